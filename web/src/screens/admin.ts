import { useState } from "preact/hooks";
import type { Answer } from "../api.js";
import { amount, sum } from "../money.js";
import { telegram } from "../telegram.js";
import { Choice, type Ctx, failure, Field, html, Outcome, useLoad, usdt } from "../ui.js";
import { OrderLine } from "./orders.js";

type Overview = Answer<"miniAppAdminOverview">;
type Row = Overview["today"][number];

type User = Answer<"miniAppAdminFindUser">;

const COLOURS: Record<string, string> = {
  stars: "#e5a50a",
  premium: "#9141ac",
  store: "#1c71d8",
  game: "#2ec27e",
  giftcard: "#c01c28",
  gift: "#e66100",
};

/** The last 30 days' delivered volume by product, a stacked bar a day (drawn as SVG: no chart library). */
function Chart({ ctx, days }: { ctx: Ctx; days: Overview["days"] }) {
  const { t } = ctx;
  const dates = Array.from({ length: 30 }, (_, i) => new Date(Date.now() - (29 - i) * 86_400_000).toISOString().slice(0, 10));
  const completed = days.filter((d) => d.status === "completed");
  const total = (date: string) => sum(completed.filter((d) => d.day === date).map((d) => d.volume_usdt));
  const highest = Math.max(1, ...dates.map(total));
  const width = 300;
  const height = 120;
  const bar = width / dates.length;
  const all = sum(completed.map((d) => d.volume_usdt));
  const bars = dates.flatMap((date, i) => {
    let y = height;
    return completed
      .filter((d) => d.day === date)
      .map((d) => {
        const h = (d.volume_usdt / highest) * (height - 4);
        y -= h;
        return html`<rect x=${i * bar + 1} y=${y} width=${bar - 2} height=${h} fill=${COLOURS[d.product] ?? "#888"}
          ><title>${`${date} ${t.products[d.product as keyof typeof t.products] ?? d.product}: ${usdt(d.volume_usdt)}`}</title></rect
        >`;
      });
  });
  const products = [...new Set(completed.map((d) => d.product))];
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${t.chartLabel(usdt(all))} data-testid="chart">${bars}</svg>
    <figcaption>
      ${products.map((p) => html`<span class="legend" key=${p}><i style=${`background:${COLOURS[p] ?? "#888"}`}></i>${t.products[p as keyof typeof t.products] ?? p}</span>`)}
    </figcaption>
  </figure>`;
}

function Today({ ctx, rows }: { ctx: Ctx; rows: Row[] }) {
  const { t } = ctx;
  const refunds = rows.filter((r) => r.status === "failed");
  return html`<table class="figures" data-testid="today">
    <thead>
      <tr>
        <th>${t.product}</th>
        <th>${t.statusLabel}</th>
        <th>${t.count}</th>
        <th>USDT</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            <td>${t.products[r.product as keyof typeof t.products] ?? r.product}</td>
            <td>${t.status[r.status as "completed"] ?? r.status}</td>
            <td>${r.orders}</td>
            <td>${amount(r.volume_usdt)}</td>
          </tr>`,
      )}
    </tbody>
    <tfoot>
      <tr>
        <td colspan="2">${t.refunds}</td>
        <td>${refunds.reduce((n, r) => n + r.orders, 0)}</td>
        <td>${amount(sum(refunds.map((r) => r.volume_usdt)))}</td>
      </tr>
    </tfoot>
  </table>`;
}

/**
 * A pending transfer: approve (credited once), or reject with the reason the user is told. A reference already on
 * another transfer is shown with it, and approving it (or an amount above the threshold) asks to confirm first.
 */
function Transfer({ ctx, item, decided }: { ctx: Ctx; item: Overview["pending_transfers"][number]; decided: () => void }) {
  const { t, api } = ctx;
  const [reason, setReason] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const decide = async (body: object) => {
    try {
      const answer = await api.post<Answer<"miniAppAdminDecide">>(`/miniapp/admin/topups/${item.topup.topup_id}/decision`, body);
      telegram.haptic(answer.decided ? "success" : "warning");
      decided();
    } catch (e) {
      setError(failure(t, e));
    }
  };
  const who = `${item.telegram_id ?? "?"}${item.username ? ` @${item.username}` : ""}`;
  return html`<li class="transfer" data-testid="transfer">
    <p>${`#${item.topup.topup_id} · ${who} · ${usdt(item.topup.amount_usdt)} · ${item.topup.reference ?? ""}`}</p>
    ${
      item.reference_used_by.length
        ? html`<p class="warning" data-testid="reference-reused">
            ${t.referenceReused(item.reference_used_by.map((u) => `#${u.topup_id} (${u.status}, ${u.telegram_id ?? "?"})`).join(", "))}
          </p>`
        : null
    }
    ${
      confirming
        ? html`<p>${t.confirmApprove(usdt(item.topup.amount_usdt), who)}</p>
            <div class="pair">
              <button type="button" data-testid="approve-confirm" onClick=${() => decide({ approve: true, confirmed: true })}>${t.confirm}</button>
              <button type="button" class="secondary" onClick=${() => setConfirming(false)}>${t.cancel}</button>
            </div>`
        : html`<div class="pair">
              <button type="button" data-testid="approve" onClick=${() => (item.confirm.length ? setConfirming(true) : decide({ approve: true }))}>
                ${t.approve}
              </button>
              <button type="button" class="secondary" disabled=${!reason.trim()} onClick=${() => decide({ approve: false, reason: reason.trim() })}>
                ${t.reject}
              </button>
            </div>
            <${Field} label=${t.rejectReason} name="reason" value=${reason} onInput=${setReason} maxlength="200" />`
    }
    ${error && html`<${Outcome} kind="error" text=${error} />`}
  </li>`;
}

/** A found user: their balance, key and orders; credit or debit (confirmed above the threshold), block or unblock. */
function UserCard({ ctx, user, confirmAbove, changed }: { ctx: Ctx; user: User; confirmAbove: number; changed: () => void }) {
  const { t, api } = ctx;
  const [direction, setDirection] = useState("credit");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const value = Number(amount);
  async function move(confirmed: boolean) {
    if (!(value > 0)) return;
    if (value > confirmAbove && !confirmed) {
      setConfirming(true);
      return;
    }
    setConfirming(false);
    try {
      const answer = await api.post<Answer<"miniAppAdminMove">>(`/miniapp/admin/users/${user.telegram_id}/balance`, {
        direction,
        amount_usdt: value,
        ...(note.trim() ? { note: note.trim() } : {}),
        confirmed,
      });
      telegram.haptic("success");
      setOutcome({ kind: "ok", text: t.moved(direction === "credit" ? `+${usdt(value)}` : `-${usdt(value)}`, usdt(answer.balance_usdt)) });
      setAmount("");
      changed();
    } catch (e) {
      telegram.haptic("error");
      setOutcome({ kind: "error", text: failure(t, e) });
    }
  }
  async function block() {
    try {
      await api.post(`/miniapp/admin/users/${user.telegram_id}/block`, { blocked: !user.blocked });
      changed();
    } catch (e) {
      setOutcome({ kind: "error", text: failure(t, e) });
    }
  }
  return html`<div data-testid="user">
    <p>
      <strong>${`${user.telegram_id}${user.username ? ` @${user.username}` : ""}`}</strong
      >${` · ${user.kind}${user.blocked ? ` · ${t.blocked}` : ""}`}
    </p>
    <p>${`${t.balance}: ${usdt(user.balance_usdt)} · ${t.apiKey}: ${user.key_prefix ?? t.none}`}</p>
    ${
      user.orders.length
        ? html`<ul class="list">
            ${user.orders.map((o) => html`<${OrderLine} ctx=${ctx} order=${o} />`)}
          </ul>`
        : null
    }
    <${Choice}
      label=${t.direction}
      name="direction"
      value=${direction}
      options=${[
        ["credit", t.credit],
        ["debit", t.debit],
      ]}
      onChange=${setDirection}
    />
    <${Field} label=${t.amountUsdt} name="amount" type="number" inputmode="decimal" value=${amount} onInput=${setAmount} />
    <${Field} label=${t.note} name="note" value=${note} onInput=${setNote} maxlength="200" />
    ${
      confirming
        ? html`<p>${t.confirmMove(direction === "credit" ? t.credit : t.debit, usdt(value), user.telegram_id)}</p>
            <div class="pair">
              <button type="button" data-testid="move-confirm" onClick=${() => move(true)}>${t.confirm}</button>
              <button type="button" class="secondary" onClick=${() => setConfirming(false)}>${t.cancel}</button>
            </div>`
        : html`<button type="button" data-testid="move" disabled=${!(value > 0)} onClick=${() => move(false)}>
            ${direction === "credit" ? t.credit : t.debit}
          </button>`
    }
    <button type="button" class=${user.blocked ? "secondary" : "danger"} onClick=${block}>${user.blocked ? t.unblock : t.block}</button>
    ${outcome && html`<${Outcome} kind=${outcome.kind} text=${outcome.text} testId="move-outcome" />`}
  </div>`;
}

/** The admin desk: the volume charts, upstream readiness, transfers waiting, and a user to find and act on. */
export function Admin({ ctx }: { ctx: Ctx }) {
  const { t, api } = ctx;
  const [version, setVersion] = useState(0);
  const overview = useLoad(() => api.get<Overview>("/miniapp/admin/overview"), [version]);
  const [target, setTarget] = useState("");
  const [user, setUser] = useState<User | null>(null);
  const [error, setError] = useState<string | null>(null);
  const find = async (wanted = target) => {
    setError(null);
    try {
      setUser(await api.get<User>(`/miniapp/admin/users?target=${encodeURIComponent(wanted.trim())}`));
    } catch (e) {
      setUser(null);
      setError(failure(t, e));
    }
  };
  if (overview.kind === "loading") return html`<p class="muted">${t.loading}</p>`;
  if (overview.kind === "error") return html`<${Outcome} kind="error" text=${failure(t, overview.error)} />`;
  const o = overview.value;
  // After a move or a block: the user read again, and the administrator's own balance (the move may have been theirs).
  const changed = (telegramId: string) => Promise.all([find(telegramId), ctx.refresh()]);
  return html`<section class="card">
      <h1>${t.admin}</h1>
      <h2>${t.last30}</h2>
      <${Chart} ctx=${ctx} days=${o.days} />
      <h2>${t.today}</h2>
      <${Today} ctx=${ctx} rows=${o.today} />
      <h2>${t.upstreams}</h2>
      <p data-testid="upstreams">
        ${Object.entries(o.upstreams).map(([name, ok]) => html`<span class=${ok ? "chip ok" : "chip down"} key=${name}>${`${name} ${ok ? "✓" : "✗"}`}</span>`)}
      </p>
    </section>
    <section class="card">
      <h2>${t.transfers}</h2>
      ${
        o.pending_transfers.length
          ? html`<ul class="list">
              ${o.pending_transfers.map((p) => html`<${Transfer} ctx=${ctx} key=${p.topup.topup_id} item=${p} decided=${() => setVersion((v) => v + 1)} />`)}
            </ul>`
          : html`<p class="muted">${t.noTransfers}</p>`
      }
    </section>
    <section class="card">
      <h2>${t.findUser}</h2>
      <form
        onSubmit=${(e: Event) => {
          e.preventDefault();
          void find();
        }}
      >
        <${Field} label=${t.target} name="target" value=${target} onInput=${setTarget} autocomplete="off" />
        <button type="submit" disabled=${!target.trim()}>${t.find}</button>
      </form>
      ${error && html`<${Outcome} kind="error" text=${error} testId="find-error" />`}
      ${user && html`<${UserCard} ctx=${ctx} user=${user} confirmAbove=${o.confirm_above_usdt} changed=${() => changed(user.telegram_id)} />`}
    </section>`;
}
