import { useState } from "preact/hooks";
import type { Answer } from "../api.js";
import { telegram } from "../telegram.js";
import { type Ctx, failure, Field, html, Outcome, useLoad, usdt } from "../ui.js";

// The admin desk's refund of a Stars top-up: found by its id or among a user's latest, refunded after a confirmation
// (the credit reversed in the ledger, then Telegram's refundStarPayment). The service says why when it refuses: the
// credit spent, refunded already, Telegram refusing or not answering.

type DeskTopup = Answer<"miniAppAdminTopup">;
type Item = Omit<DeskTopup, "success">;

/** One Stars top-up with Refund, asked in place before anything is done. */
function StarsTopupRow({ ctx, item, changed, owner = false }: { ctx: Ctx; item: Item; changed: () => void; owner?: boolean }) {
  const { t, api } = ctx;
  const [now, setNow] = useState(item);
  const [asking, setAsking] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const topup = now.topup;
  const stars = topup.stars ?? 0;
  const credit = usdt(topup.credited_usdt ?? topup.amount_usdt);
  const who = `${now.telegram_id ?? "?"}${now.username ? ` @${now.username}` : ""}`;
  const refundable = topup.method === "stars" && (topup.status === "credited" || topup.status === "refunding");
  async function refund() {
    setAsking(false);
    setBusy(true);
    try {
      const done = await api.post<DeskTopup>(`/miniapp/admin/topups/${topup.topup_id}/refund`, { confirmed: true });
      telegram.haptic("success");
      setNow(done);
      setOutcome({ kind: "ok", text: t.deskRefunded(stars, usdt(done.reversed_usdt ?? 0)) });
    } catch (e) {
      telegram.haptic("error");
      setOutcome({ kind: "error", text: failure(t, e) });
      // A refused refund may have changed it (Telegram's refusal restores the credit): read it again.
      const again = await api.get<DeskTopup>(`/miniapp/admin/topups/${topup.topup_id}`).catch(() => null);
      if (again) setNow(again);
    } finally {
      setBusy(false);
      changed();
    }
  }
  return html`<li class="transfer" data-testid="stars-topup-row">
    <p>
      ${t.deskStarsLine(topup.topup_id, stars, credit, t.deskTopupStatus[topup.status] ?? topup.status)}
      <span class="muted"
        >${`${owner ? ` · ${who}` : ""} · ${new Date(topup.created_at).toLocaleString(ctx.language, { dateStyle: "short", timeStyle: "short" })}`}</span
      >
    </p>
    ${
      asking
        ? html`<p role="alert" data-testid="refund-ask">${t.deskRefundAsk(stars, credit, who)}</p>
            <div class="pair">
              <button type="button" class="ddanger-button" data-testid="refund-confirm" onClick=${refund}>${t.deskRefundYes}</button>
              <button type="button" class="secondary" onClick=${() => setAsking(false)}>${t.cancel}</button>
            </div>`
        : refundable &&
          html`<button type="button" class="secondary" data-testid="refund" disabled=${busy} onClick=${() => setAsking(true)}>
            ${t.deskRefund}
          </button>`
    }
    ${outcome && html`<${Outcome} kind=${outcome.kind} text=${outcome.text} testId="refund-outcome" />`}
  </li>`;
}

/** A found user's latest Stars top-ups, each refundable. */
export function UserStarsTopups({ ctx, telegramId, changed }: { ctx: Ctx; telegramId: string; changed: () => void }) {
  const { t, api } = ctx;
  const list = useLoad(() => api.get<Answer<"miniAppAdminStarsTopups">>(`/miniapp/admin/users/${telegramId}/stars-topups`), [telegramId]);
  return html`<div class="dblock" data-testid="user-stars-topups">
    <h3>${t.deskStars}</h3>
    ${
      list.kind === "ok"
        ? list.value.topups.length
          ? html`<ul class="list">
              ${list.value.topups.map((item) => html`<${StarsTopupRow} ctx=${ctx} key=${item.topup.topup_id} item=${item} changed=${changed} />`)}
            </ul>`
          : html`<p class="muted">${t.deskStarsNone}</p>`
        : list.kind === "error"
          ? html`<${Outcome} kind="error" text=${failure(t, list.error)} />`
          : html`<p class="muted">${t.loading}</p>`
    }
  </div>`;
}

/** Any Stars top-up by its id (as the user or the bot names it), to refund. */
export function StarsRefundLookup({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [id, setId] = useState("");
  const [found, setFound] = useState<Item | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Not a form: the desk's one form is finding a user.
  const ready = /^\d+$/.test(id.trim());
  const look = async () => {
    setError(null);
    setFound(null);
    try {
      setFound(await api.get<DeskTopup>(`/miniapp/admin/topups/${encodeURIComponent(id.trim())}`));
    } catch (e) {
      setError(failure(t, e));
    }
  };
  return html`<section class="card desk" data-testid="stars-refund">
    <h2>${t.deskStars}</h2>
    <div class="dlookup">
      <${Field}
        label=${t.deskTopupId}
        name="topup_id"
        inputmode="numeric"
        value=${id}
        onInput=${setId}
        autocomplete="off"
        onKeyDown=${(e: KeyboardEvent) => e.key === "Enter" && ready && void look()}
      />
      <button type="button" data-testid="stars-lookup" disabled=${!ready} onClick=${() => void look()}>${t.deskLookUp}</button>
    </div>
    ${error && html`<${Outcome} kind="error" text=${error} testId="stars-lookup-error" />`}
    ${
      found &&
      html`<ul class="list">
        <${StarsTopupRow} ctx=${ctx} key=${found.topup.topup_id} item=${found} owner=${true} changed=${() => undefined} />
      </ul>`
    }
  </section>`;
}
