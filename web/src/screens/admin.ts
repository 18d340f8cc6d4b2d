import { on, postEvent } from "@telegram-apps/bridge";
import { useState } from "preact/hooks";
import type { Answer } from "../api.js";
import { amount, approx, sum } from "../money.js";
import { telegram } from "../telegram.js";
import { Choice, type Ctx, failure, Field, html, Outcome, useLoad, usdt } from "../ui.js";
import { StarsRefundLookup, UserStarsTopups } from "./desk-stars.js";
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

const DAY_MS = 86_400_000;

/** A round top for the value axis (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten), at least the highest day. */
function roundTop(highest: number): number {
  const power = 10 ** Math.floor(Math.log10(highest));
  return [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * power).find((top) => top >= highest - 1e-9) ?? highest;
}

/** An axis value in the page's locale, to the cent at most: "0", "2.25"; "2,25" in Russian. */
const tick = (value: number) => approx(value, Number.isInteger(value) ? 0 : Number.isInteger(value * 10) ? 1 : 2);

/** A UTC day as the chart's axis names it ("27 Nov"), or in full for the table and the summary. */
const dayLabel = (ctx: Ctx, date: string, long = false) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(ctx.language, { timeZone: "UTC", day: "numeric", month: long ? "long" : "short" });

/**
 * The last 30 days' delivered volume by product, a stacked bar a day (SVG, no chart library): dates under the bars,
 * USDT on a value axis with gridlines, each day's total written over its bar when few days have one (else the
 * highest and the latest). Screen readers get a summary (role="img") and the days as a table.
 */
function Chart({ ctx, days }: { ctx: Ctx; days: Overview["days"] }) {
  const { t } = ctx;
  const dates = Array.from({ length: 30 }, (_, i) => new Date(Date.now() - (29 - i) * DAY_MS).toISOString().slice(0, 10));
  const completed = days.filter((d) => d.status === "completed");
  const totals = dates.map((date) => sum(completed.filter((d) => d.day === date).map((d) => d.volume_usdt)));
  const all = sum(totals);
  const withData = dates.map((date, i) => ({ date, i, total: totals[i] })).filter((d) => d.total > 0);
  const top = roundTop(Math.max(...totals, 0) || 1);
  const [width, height, left, right, above, below] = [320, 170, 34, 6, 18, 22];
  const plot = { w: width - left - right, h: height - above - below };
  const slot = plot.w / dates.length;
  const y = (value: number) => above + plot.h - (value / top) * plot.h;
  const bars = dates.flatMap((date, i) => {
    let base = 0;
    return completed
      .filter((d) => d.day === date)
      .map((d) => {
        const from = y(base);
        base += d.volume_usdt;
        return html`<rect
          key=${`${date}-${d.product}`}
          x=${left + i * slot + 1}
          y=${y(base)}
          width=${Math.max(slot - 2, 1)}
          height=${Math.max(from - y(base), 0.5)}
          fill=${COLOURS[d.product] ?? "#888"}
        />`;
      });
  });
  const best = withData.reduce<(typeof withData)[number] | null>((a, d) => (a === null || d.total > a.total ? d : a), null);
  const labelled = withData.length <= 6 ? withData : withData.filter((d) => d === best || d === withData[withData.length - 1]);
  const values = labelled.map((d) => {
    const x = Math.min(Math.max(left + (d.i + 0.5) * slot, left + 14), width - right - 14);
    return html`<text key=${`v${d.date}`} class="dchart-value" x=${x} y=${y(d.total) - 5} text-anchor="middle">${amount(d.total)}</text>`;
  });
  const ticks = [0, top / 2, top].map(
    (v) =>
      html`<g key=${`t${v}`}>
        <line class=${v === 0 ? "dchart-base" : "dchart-grid"} x1=${left} x2=${width - right} y1=${y(v)} y2=${y(v)} />
        <text class="dchart-axis" x=${left - 4} y=${y(v) + 3} text-anchor="end">${tick(v)}</text>
      </g>`,
  );
  // Four dates: room for "29 окт." between each in either language.
  const dateTicks = [0, 10, 20, 29].map(
    (i) =>
      html`<text
        key=${`d${i}`}
        class="dchart-axis"
        x=${left + (i + 0.5) * slot}
        y=${height - 6}
        text-anchor=${i === 0 ? "start" : i === 29 ? "end" : "middle"}
        >${dayLabel(ctx, dates[i])}</text
      >`,
  );
  const summary = best ? t.deskChartSummary(usdt(all), withData.length, usdt(best.total), dayLabel(ctx, best.date, true)) : t.deskChartNone;
  const products = [...new Set(completed.map((d) => d.product))];
  return html`<figure class="dchart">
    <svg viewBox=${`0 0 ${width} ${height}`} role="img" aria-label=${summary} data-testid="chart">
      ${ticks}
      <text class="dchart-axis" x=${2} y=${10} text-anchor="start">USDT</text>
      ${bars} ${values} ${dateTicks}
    </svg>
    ${
      withData.length
        ? html`<figcaption class="dchart-legend">
            ${products.map(
              (p) =>
                html`<span class="dchart-key" key=${p}
                  ><i style=${`background:${COLOURS[p] ?? "#888"}`}></i>${t.products[p as keyof typeof t.products] ?? p}</span
                >`,
            )}
          </figcaption>`
        : html`<figcaption class="muted dchart-legend">${t.deskChartNone}</figcaption>`
    }
    <table class="sr-only" data-testid="chart-table">
      <caption>
        ${t.deskChartTable}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t.deskDay}</th>
          <th scope="col">USDT</th>
        </tr>
      </thead>
      <tbody>
        ${withData.map(
          (d) =>
            html`<tr key=${d.date}>
              <th scope="row">${dayLabel(ctx, d.date, true)}</th>
              <td>${amount(d.total)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </figure>`;
}

/** Today's figures: a row per product and status (the status under the product's name, so neither wraps), refunds last. */
function Today({ ctx, rows }: { ctx: Ctx; rows: Row[] }) {
  const { t } = ctx;
  const refunds = rows.filter((r) => r.status === "failed");
  return html`<table class="dtable" data-testid="today">
    <thead>
      <tr>
        <th scope="col">${`${t.product} · ${t.statusLabel}`}</th>
        <th scope="col" class="num">${t.count}</th>
        <th scope="col" class="num">USDT</th>
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (r) =>
          html`<tr>
            <td>
              <span class="dtable-product">${t.products[r.product as keyof typeof t.products] ?? r.product}</span>
              <span class="dtable-status">${t.status[r.status as "completed"] ?? r.status}</span>
            </td>
            <td class="num">${r.orders}</td>
            <td class="num">${amount(r.volume_usdt)}</td>
          </tr>`,
      )}
    </tbody>
    <tfoot>
      <tr>
        <td>${t.refunds}</td>
        <td class="num">${refunds.reduce((n, r) => n + r.orders, 0)}</td>
        <td class="num">${amount(sum(refunds.map((r) => r.volume_usdt)))}</td>
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

/**
 * Telegram's own confirmation (showPopup with a destructive button) inside Telegram; null outside it, where the page
 * asks in place. Resolves true only for the destructive button.
 */
function telegramConfirm(message: string, yes: string): Promise<boolean> | null {
  if (!telegram.inTelegram) return null;
  return new Promise((resolve) => {
    const off = on("popup_closed", ({ button_id }) => {
      off();
      resolve(button_id === "yes");
    });
    try {
      (postEvent as (method: string, params?: object) => void)("web_app_open_popup", {
        message,
        buttons: [
          { id: "yes", type: "destructive", text: yes },
          { id: "no", type: "cancel" },
        ],
      });
    } catch {
      off();
      resolve(false);
    }
  });
}

/** A found user: their balance, key and orders; credit or debit (confirmed above the threshold); block apart, confirmed. */
function UserCard({ ctx, user, confirmAbove, changed }: { ctx: Ctx; user: User; confirmAbove: number; changed: () => void }) {
  const { t, api } = ctx;
  const [direction, setDirection] = useState("credit");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [confirming, setConfirming] = useState(false);
  const [askingBlock, setAskingBlock] = useState(false);
  const [outcome, setOutcome] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [blockOutcome, setBlockOutcome] = useState<string | null>(null);
  const value = Number(amount);
  const who = `${user.telegram_id}${user.username ? ` @${user.username}` : ""}`;
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
      // The note went with this move: the next one starts blank.
      setAmount("");
      setNote("");
      changed();
    } catch (e) {
      telegram.haptic("error");
      setOutcome({ kind: "error", text: failure(t, e) });
    }
  }
  async function block() {
    setAskingBlock(false);
    setBlockOutcome(null);
    try {
      await api.post(`/miniapp/admin/users/${user.telegram_id}/block`, { blocked: !user.blocked });
      telegram.haptic("success");
      changed();
    } catch (e) {
      telegram.haptic("error");
      setBlockOutcome(failure(t, e));
    }
  }
  async function askBlock() {
    const question = user.blocked ? t.deskUnblockAsk(who) : t.deskBlockAsk(who);
    const asked = telegramConfirm(question, user.blocked ? t.deskUnblockYes : t.deskBlockYes);
    if (asked === null) setAskingBlock(true);
    else if (await asked) await block();
  }
  return html`<div class="duser" data-testid="user">
    <p class="duser-who">
      <strong>${who}</strong>
      <span class="muted">${` · ${t.deskKinds[user.kind] ?? user.kind}${user.blocked ? ` · ${t.blocked}` : ""}`}</span>
    </p>
    <p>${`${t.balance}: ${usdt(user.balance_usdt)} · ${t.apiKey}: `}<span class="nowrap">${user.key_prefix ?? t.none}</span></p>
    ${
      user.orders.length
        ? html`<ul class="list">
            ${user.orders.map((o) => html`<${OrderLine} ctx=${ctx} order=${o} />`)}
          </ul>`
        : null
    }
    <${UserStarsTopups} ctx=${ctx} telegramId=${user.telegram_id} changed=${changed} />
    <div class="dblock">
      <h3>${t.deskMoveTitle}</h3>
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
      ${outcome && html`<${Outcome} kind=${outcome.kind} text=${outcome.text} testId="move-outcome" />`}
    </div>
    <div class="dblock ddanger" data-testid="access">
      <h3>${t.deskAccess}</h3>
      <p class="muted">${user.blocked ? t.deskUnblockExplain : t.deskBlockExplain}</p>
      ${
        askingBlock
          ? html`<p role="alert" data-testid="block-ask">${user.blocked ? t.deskUnblockAsk(who) : t.deskBlockAsk(who)}</p>
              <button type="button" class=${user.blocked ? "" : "ddanger-button"} data-testid="block-confirm" onClick=${block}>
                ${user.blocked ? t.deskUnblockYes : t.deskBlockYes}
              </button>
              <button type="button" class="secondary" onClick=${() => setAskingBlock(false)}>${t.cancel}</button>`
          : html`<button type="button" class=${user.blocked ? "secondary" : "ddanger-button"} data-testid="block" onClick=${askBlock}>
              ${user.blocked ? t.unblock : t.block}
            </button>`
      }
      ${blockOutcome && html`<${Outcome} kind="error" text=${blockOutcome} testId="block-outcome" />`}
    </div>
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
  return html`<section class="card desk">
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
    <section class="card desk">
      <h2>${t.transfers}</h2>
      ${
        o.pending_transfers.length
          ? html`<ul class="list">
              ${o.pending_transfers.map((p) => html`<${Transfer} ctx=${ctx} key=${p.topup.topup_id} item=${p} decided=${() => setVersion((v) => v + 1)} />`)}
            </ul>`
          : html`<p class="muted">${t.noTransfers}</p>`
      }
    </section>
    <section class="card desk">
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
    </section>
    <${StarsRefundLookup} ctx=${ctx} />`;
}
