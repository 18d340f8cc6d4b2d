import { randomUUID } from "node:crypto";
import { Composer, InlineKeyboard } from "grammy";
import { type Account, MARKUP_PRODUCTS, type MarkupProduct } from "../../core/model/account.js";
import { DomainError, isRefusal, ruleIn } from "../../core/model/errors.js";
import { targetLabel, telegramActor } from "../../core/admin.js";
import type { Core } from "../../core/index.js";
import { fromUsdt, MAX_USDT, type Micro, parseBasisPoints, parseUsdt } from "../../core/model/money.js";
import { adminConfirm, cancelFlow, starsRefund, topupApprove, topupReject } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { brandsOf, orderLine, plainNumber, usdt } from "../format.js";
import { refusalText } from "../refusals.js";

/** Which product each markup prices, for its name in the admin's language. */
const MARKUP_PRODUCT_TYPE: Record<MarkupProduct, string> = { store: "store", games: "game", giftcards: "giftcard" };

export const ADMIN_COMMANDS = {
  credit: "/credit <target> <usdt> [note]",
  debit: "/debit <target> <usdt> [note]",
  block: "/block <target>",
  unblock: "/unblock <target>",
  markup: "/markup <target> <store|games|giftcards> <percent|default>",
  owner: "/owner <target> [daily|-|keep] [per-order|-|keep]",
  wallet: "/wallet <usdt>",
  user: "/user <target>",
  stats: "/stats",
  reject: "/reject <top-up id> <reason>",
  refund: "/refund <top-up id>",
} as const;

/** The buttons only administrators are sent. */
const ADMIN_BUTTONS = [adminConfirm, topupApprove, topupReject, starsRefund];
const ADMIN_COMMAND = new RegExp(`^/(${Object.keys(ADMIN_COMMANDS).join("|")})(@\\w+)?(\\s|$)`);

/** What an administrator sends besides their commands without being a customer: /help, /cancel and Cancel, and plain text (a reason asked for). */
const ADMIN_ALSO = /^\/(help|cancel)(@\w+)?(\s|$)/;

/** An administrator's own command, button or answer: administrators use them without being customers (no key needed). */
export function isAdminUpdate(admins: Set<number>) {
  return (ctx: BotContext) => {
    if (ctx.from === undefined || !admins.has(ctx.from.id)) return false;
    const text = ctx.message?.text;
    if (text !== undefined) return ADMIN_COMMAND.test(text) || ADMIN_ALSO.test(text) || !text.startsWith("/");
    return [...ADMIN_BUTTONS, cancelFlow].some((button) => button.parse(ctx.callbackQuery?.data) !== undefined);
  };
}

/** A bad argument: the i18n key of why, and its values; answered with the command's usage line. */
class Usage extends Error {
  constructor(
    readonly key: string,
    readonly vars: Record<string, string | number> = {},
  ) {
    super(key);
  }
}

export interface AdminDeps {
  core: Core;
  admins: Set<number>;
}

/** A refused admin operation in the admin's language: a short balance names what the account holds. */
function adminRefusal(ctx: BotContext, error: DomainError): string {
  if (isRefusal(error, "insufficient_funds")) return ctx.t("adm-insufficient", { balance: usdt(error.details.balanceMicro) });
  return refusalText(ctx.t.bind(ctx), error.refusal);
}

/** Exactly one account, or the refusal (none, or the candidates of an ambiguous target). */
async function target(core: Core, text: string | undefined): Promise<Account & { telegramId: string }> {
  if (!text) throw new Usage("adm-need-target");
  try {
    return await core.admin.resolveTarget(text);
  } catch (error) {
    if (error instanceof DomainError && ruleIn(error.details) === "no_account") throw new Usage("adm-no-user", { target: text });
    throw error;
  }
}

/** An amount in USDT above zero, as an administrator types it ("1 000", "12,5"). */
function amount(text: string | undefined): Micro {
  const plain = text === undefined ? null : plainNumber(text);
  const micro = plain === null ? null : parseUsdt(plain);
  if (micro === null || micro <= 0) throw new Usage("adm-bad-amount", { max: String(MAX_USDT) });
  return micro;
}

/** A money move, told whether the admin confirmed it (the core refuses one above the threshold unconfirmed). */
type Move = (confirmed: boolean) => Promise<string>;

/** A money move waiting for the admin's Confirm; kept in memory for a few minutes (a restart asks to send it again). */
interface Pending {
  admin: number;
  until: number;
  run: Move;
}
const PENDING_MS = 5 * 60 * 1000;

/**
 * Money moves the core's rule says need confirming wait for the admin's Confirm: the move is kept in memory for a
 * few minutes under a token its Confirm and Cancel buttons carry. Installs their handler on `only`, and returns the
 * function that runs a move at once or asks first.
 */
function confirmations(only: Composer<BotContext>, core: Core) {
  const pending = new Map<string, Pending>();

  /** Runs a money move now, or, above the threshold, after the admin taps Confirm. */
  async function runOrConfirm(ctx: BotContext, micro: Micro, question: string, run: Move): Promise<string | null> {
    if (!core.admin.confirm.needed(micro)) return run(false);
    const token = randomUUID().slice(0, 12);
    pending.set(token, { admin: ctx.from!.id, until: core.clock.now().getTime() + PENDING_MS, run });
    await ctx.reply(question, {
      reply_markup: new InlineKeyboard()
        .text(ctx.t("btn-confirm"), adminConfirm.pack({ go: true, token }))
        .text(ctx.t("btn-cancel"), adminConfirm.pack({ go: false, token })),
    });
    return null;
  }

  only.callbackQuery(adminConfirm.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { go, token } = adminConfirm.unpack(ctx.callbackQuery.data);
    const waiting = pending.get(token);
    pending.delete(token);
    // The buttons go first: a second tap finds no pending move.
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (!waiting || waiting.admin !== ctx.from.id || waiting.until < core.clock.now().getTime()) return ctx.reply(ctx.t("adm-expired"));
    if (!go) return ctx.reply(ctx.t("adm-dropped"));
    try {
      await ctx.reply(await waiting.run(true));
    } catch (error) {
      if (error instanceof DomainError) await ctx.reply(adminRefusal(ctx, error));
      else throw error;
    }
  });

  return runOrConfirm;
}

/**
 * How an admin command is added to the admins' composer: its arguments split, its reply sent; a bad argument
 * answers the usage line, a refusal its reason, never an exception.
 */
function adminCommand(only: Composer<BotContext>) {
  return (name: keyof typeof ADMIN_COMMANDS, run: (args: string[], actor: string, ctx: BotContext) => Promise<string | null>) => {
    only.command(name, async (ctx) => {
      const args = ctx.match.trim().split(/\s+/).filter(Boolean);
      try {
        const reply = await run(args, telegramActor(String(ctx.from!.id)), ctx);
        if (reply !== null) await ctx.reply(reply);
      } catch (error) {
        if (error instanceof Usage) await ctx.reply(`${ctx.t(error.key, error.vars)}\n${ctx.t("adm-usage", { usage: ADMIN_COMMANDS[name] })}`);
        else if (error instanceof DomainError) await ctx.reply(adminRefusal(ctx, error));
        else throw error;
      }
    });
  };
}

/**
 * Admin commands, for the ids in ADMIN_TELEGRAM_IDS only: everyone else falls through as if they did not exist.
 * A target is a Telegram user id, an @username the bot has seen, or a key's display prefix (sj_xxxxxxxx).
 * Every action is a ledger or audit entry naming the admin (actor tg:<id>); replies follow the admin's
 * language; the user is told of a credit, a debit and a block; large money moves are confirmed first.
 */
export function adminFeatures({ core, admins }: AdminDeps) {
  const composer = new Composer<BotContext>();
  const only = composer.filter((ctx) => ctx.from !== undefined && admins.has(ctx.from.id));
  const runOrConfirm = confirmations(only, core);
  const command = adminCommand(only);

  command("credit", async ([who, sum, ...note], actor, ctx) => {
    const account = await target(core, who);
    const micro = amount(sum);
    const label = targetLabel(account);
    return runOrConfirm(ctx, micro, ctx.t("adm-confirm-credit", { target: label, amount: usdt(micro) }), async (confirmed) => {
      const balance = await core.admin.credit(account.telegramId, micro, actor, { note: note.join(" ") || undefined, confirmed });
      return ctx.t("adm-credited", { target: label, amount: usdt(micro), balance: usdt(balance) });
    });
  });

  command("debit", async ([who, sum, ...note], actor, ctx) => {
    const account = await target(core, who);
    const micro = amount(sum);
    const label = targetLabel(account);
    return runOrConfirm(ctx, micro, ctx.t("adm-confirm-debit", { target: label, amount: usdt(micro) }), async (confirmed) => {
      const balance = await core.admin.debit(account.telegramId, micro, actor, { note: note.join(" ") || undefined, confirmed });
      return ctx.t("adm-debited", { target: label, amount: usdt(micro), balance: usdt(balance) });
    });
  });

  for (const name of ["block", "unblock"] as const) {
    command(name, async ([who], actor, ctx) => {
      const account = await target(core, who);
      await core.admin.setBlocked(account.telegramId, name === "block", actor);
      return ctx.t(name === "block" ? "adm-blocked" : "adm-unblocked", { target: targetLabel(account) });
    });
  }

  command("markup", async ([who, product, percent], actor, ctx) => {
    if (!MARKUP_PRODUCTS.includes(product as MarkupProduct)) throw new Usage("adm-bad-product", { products: MARKUP_PRODUCTS.join(", ") });
    const basisPoints = percent === "default" ? null : parseBasisPoints(percent ?? "");
    if (basisPoints === null && percent !== "default") throw new Usage("adm-bad-percent");
    const account = await target(core, who);
    await core.admin.setMarkup(account.telegramId, product as MarkupProduct, basisPoints, actor);
    return ctx.t("adm-markup", { target: targetLabel(account), product: product!, percent: basisPoints === null ? "default" : `${percent}%` });
  });

  command("owner", async ([who, daily, perOrder], actor, ctx) => {
    // A limit left out (or "keep") stays as it is; "-" removes it.
    const limit = (text: string | undefined) => (text === undefined || text === "keep" ? undefined : text === "-" ? null : amount(text));
    const account = await target(core, who);
    const limits = await core.admin.makeOwner(account.telegramId, { dailyLimitMicro: limit(daily), orderLimitMicro: limit(perOrder) }, actor);
    const shown = (micro: number | null) => (micro === null ? ctx.t("adm-none") : usdt(micro));
    return ctx.t("adm-owner", { target: targetLabel(account), daily: shown(limits.dailyLimitMicro), perOrder: shown(limits.orderLimitMicro) });
  });

  command("wallet", async ([sum], actor, ctx) => {
    const micro = sum === "0" ? fromUsdt(0) : amount(sum);
    return runOrConfirm(ctx, micro, ctx.t("adm-confirm-wallet", { amount: usdt(micro) }), async (confirmed) =>
      ctx.t("adm-wallet", { amount: usdt(await core.admin.setWallet(micro, actor, { confirmed })) }),
    );
  });

  command("user", async ([who], _actor, ctx) => describeUser(core, ctx, await target(core, who)));
  command("stats", async (_args, _actor, ctx) => describeStats(core, ctx));

  return composer;
}

/** /user: an account as the administrator sees it: kind, state, balance, key, markups and its latest orders. */
async function describeUser(core: Core, ctx: BotContext, account: Account & { telegramId: string }): Promise<string> {
  const [funds, prefix, recent] = await Promise.all([
    core.accounts.balance(account),
    core.admin.keyPrefix(account.id),
    core.orders.list(account.id, 5),
  ]);
  const brands = await brandsOf(core, recent);
  const rates = MARKUP_PRODUCTS.map(
    (p) => `${ctx.t(`product-${MARKUP_PRODUCT_TYPE[p]}`)} ${account.markupBp[p] === null ? ctx.t("adm-default") : `${account.markupBp[p]! / 100}%`}`,
  ).join(", ");
  return [
    ctx.t("adm-user", {
      id: account.telegramId,
      username: account.username ? ` @${account.username}` : "",
      kind: ctx.t(`kind-${account.kind}`),
      blocked: account.blocked ? "yes" : "no",
    }),
    ctx.t(funds.unlimited ? "adm-user-wallet" : "adm-user-balance", { balance: usdt(funds.availableMicro) }),
    ctx.t("adm-user-key", { prefix: prefix ?? ctx.t("adm-none") }),
    ctx.t("adm-user-markups", { rates }),
    ...recent.map((order) => orderLine(ctx.t.bind(ctx), order, brands)),
  ].join("\n");
}

/** /stats: today's orders by product and status, refunds, 30 days' delivered volume, top-ups and the upstreams. */
async function describeStats(core: Core, ctx: BotContext): Promise<string> {
  const { today: rows, days } = await core.admin.volume(core.clock.now(), 30);
  // The 30 days the Mini App charts, as one line: delivered volume by product.
  const delivered = new Map<string, number>();
  for (const r of days) if (r.status === "completed") delivered.set(r.product, (delivered.get(r.product) ?? 0) + r.volumeMicro);
  const { ready, backends } = await core.health.current();
  // Whole sentences per status and count (the locale picks the plural form): no words glued across a language's agreement.
  const lines = rows.map((r) =>
    ctx.t("adm-stats-line", { product: ctx.t(`product-${r.product}`), status: r.status, orders: r.orders, volume: usdt(r.volumeMicro) }),
  );
  const refunds = rows.filter((r) => r.status === "failed");
  return [
    ctx.t("adm-stats-title"),
    ...(lines.length ? lines : [ctx.t("adm-stats-none")]),
    ctx.t("adm-stats-refunds", { orders: refunds.reduce((n, r) => n + r.orders, 0), volume: usdt(refunds.reduce((n, r) => n + r.volumeMicro, 0)) }),
    ctx.t("adm-stats-30d", {
      list: [...delivered].map(([product, volume]) => `${ctx.t(`product-${product}`)} ${usdt(volume)} USDT`).join(", ") || ctx.t("adm-none"),
    }),
    ctx.t("adm-stats-topups", {
      list:
        (await core.topups.stats())
          .map((r) => {
            const vars = { method: ctx.t(`topup-method-${r.method}`), status: ctx.t(`topup-status-${r.status}`), count: r.count };
            return r.creditedMicro ? ctx.t("adm-stats-topup-credited", { ...vars, amount: usdt(r.creditedMicro) }) : ctx.t("adm-stats-topup", vars);
          })
          .join(", ") || ctx.t("adm-none"),
    }),
    ctx.t("adm-stats-upstreams", {
      list: Object.entries(ready)
        // Each product with its backend: Premium on the bot is told apart from stars on the gateway.
        .map(([name, ok]) =>
          ctx.t("adm-stats-upstream", {
            name: ctx.t(`upstream-${name}`),
            backend: backends[name as keyof typeof backends],
            ready: ok ? "yes" : "no",
          }),
        )
        .join(", "),
    }),
  ].join("\n");
}
