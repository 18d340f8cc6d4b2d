import { Composer } from "grammy";
import type { Account } from "../../core/accounts.js";
import { DomainError } from "../../core/errors.js";
import type { Core } from "../../core/index.js";
import { MARKUP_PRODUCTS, type MarkupProduct } from "../../core/markup.js";
import { MAX_USDT, parseBasisPoints, parseUsdt } from "../../core/money.js";
import type { BotContext } from "../context.js";
import { orderLine, type Translate, usdt } from "../format.js";

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
} as const;

class Usage extends Error {}

export interface AdminDeps {
  core: Core;
  admins: Set<number>;

  /** Tells a user something in their own language; failures (a user who blocked the bot) are logged, not thrown. */
  tell(telegramId: string, text: (t: Translate) => string): Promise<void>;
}

/**
 * Admin commands, for the ids in ADMIN_TELEGRAM_IDS only: everyone else falls through as if they did not exist.
 * A target is a Telegram user id, an @username the bot has seen, or a key's display prefix (sj_xxxxxxxx).
 * Every action is a ledger or audit entry naming the admin (actor tg:<id>).
 */
export function adminFeatures({ core, admins, tell }: AdminDeps) {
  const composer = new Composer<BotContext>();
  const only = composer.filter((ctx) => ctx.from !== undefined && admins.has(ctx.from.id));

  async function target(text: string | undefined): Promise<Account & { telegramId: string }> {
    if (!text) throw new Usage("a target is needed");
    const account = await core.admin.findTarget(text);
    if (!account?.telegramId) throw new DomainError("not_found", `No user ${text}`);
    return account as Account & { telegramId: string };
  }

  const amount = (text: string | undefined) => {
    const micro = text === undefined ? null : parseUsdt(text);
    if (micro === null || micro <= 0) throw new Usage(`the amount is a USDT number above 0, at most ${MAX_USDT}, with at most 6 decimals`);
    return micro;
  };

  /** Runs one admin command: a bad argument answers the usage line, never an exception. */
  function command(name: keyof typeof ADMIN_COMMANDS, run: (args: string[], actor: string, ctx: BotContext) => Promise<string>) {
    only.command(name, async (ctx) => {
      const args = ctx.match.trim().split(/\s+/).filter(Boolean);
      try {
        await ctx.reply(await run(args, `tg:${ctx.from!.id}`, ctx));
      } catch (error) {
        if (error instanceof Usage) await ctx.reply(`${error.message}\nusage: ${ADMIN_COMMANDS[name]}`);
        else if (error instanceof DomainError) await ctx.reply(error.message);
        else throw error;
      }
    });
  }

  command("credit", async ([who, sum, ...note], actor) => {
    const account = await target(who);
    const balance = await core.admin.credit(account.telegramId, amount(sum), actor, note.join(" ") || undefined);
    await tell(account.telegramId, (t) => t("credited", { amount: usdt(amount(sum)), balance: usdt(balance) }));
    return `${who}: +${usdt(amount(sum))} USDT, balance ${usdt(balance)} USDT`;
  });

  command("debit", async ([who, sum, ...note], actor) => {
    const account = await target(who);
    const balance = await core.admin.debit(account.telegramId, amount(sum), actor, note.join(" ") || undefined);
    return `${who}: -${usdt(amount(sum))} USDT, balance ${usdt(balance)} USDT`;
  });

  for (const name of ["block", "unblock"] as const) {
    command(name, async ([who], actor) => {
      const account = await target(who);
      await core.admin.setBlocked(account.telegramId, name === "block", actor);
      return `${who}: ${name === "block" ? "blocked" : "unblocked"}`;
    });
  }

  command("markup", async ([who, product, percent], actor) => {
    if (!MARKUP_PRODUCTS.includes(product as MarkupProduct)) throw new Usage(`the product is one of ${MARKUP_PRODUCTS.join(", ")}`);
    const basisPoints = percent === "default" ? null : parseBasisPoints(percent ?? "");
    if (basisPoints === null && percent !== "default") throw new Usage("the percent is a number from 0 to 100 such as 4 or 2.5, or 'default'");
    const account = await target(who);
    await core.admin.setMarkup(account.telegramId, product as MarkupProduct, basisPoints, actor);
    return `${who}: ${product} markup ${basisPoints === null ? "default" : `${percent}%`}`;
  });

  command("owner", async ([who, daily, perOrder], actor) => {
    // A limit left out (or "keep") stays as it is; "-" removes it.
    const limit = (text: string | undefined) => (text === undefined || text === "keep" ? undefined : text === "-" ? null : amount(text));
    const account = await target(who);
    const limits = await core.admin.makeOwner(account.telegramId, { dailyLimitMicro: limit(daily), orderLimitMicro: limit(perOrder) }, actor);
    const shown = (micro: number | null) => (micro === null ? "none" : usdt(micro));
    return `${who}: owner key, daily limit ${shown(limits.dailyLimitMicro)}, per-order limit ${shown(limits.orderLimitMicro)}`;
  });

  command("wallet", async ([sum], actor) => {
    const micro = sum === "0" ? 0 : amount(sum);
    return `service wallet: ${usdt(await core.admin.setWallet(micro, actor))} USDT`;
  });

  command("user", async ([who], _actor, ctx) => {
    const account = await target(who);
    const [funds, prefix, recent] = await Promise.all([
      core.accounts.balance(account),
      core.admin.keyPrefix(account.id),
      core.orders.list(account.id, 5),
    ]);
    const rates = MARKUP_PRODUCTS.map((p) => `${p} ${account.markupBp[p] === null ? "default" : `${account.markupBp[p]! / 100}%`}`).join(", ");
    return [
      `user ${account.telegramId}${account.username ? ` @${account.username}` : ""} (${account.kind}${account.blocked ? ", BLOCKED" : ""})`,
      `balance ${usdt(funds.availableMicro)} USDT${funds.unlimited ? " (service wallet)" : ""}`,
      `key ${prefix ?? "none"}…`,
      `markups: ${rates}`,
      ...recent.map((order) => orderLine(ctx.t.bind(ctx), order)),
    ].join("\n");
  });

  command("stats", async () => {
    const rows = await core.admin.stats(core.clock.now());
    const { ready } = await core.health();
    const lines = rows.map((r) => `${r.product} ${r.status}: ${r.orders} orders, ${usdt(r.volumeMicro)} USDT`);
    const refunds = rows.filter((r) => r.status === "failed");
    return [
      "today (UTC):",
      ...(lines.length ? lines : ["no orders yet"]),
      `refunds: ${refunds.reduce((n, r) => n + r.orders, 0)}, ${usdt(refunds.reduce((n, r) => n + r.volumeMicro, 0))} USDT`,
      `upstreams: ${Object.entries(ready)
        .map(([name, ok]) => `${name} ${ok ? "ready" : "DOWN"}`)
        .join(", ")}`,
    ].join("\n");
  });

  return composer;
}
