import { Composer, InlineKeyboard } from "grammy";
import { DomainError, type StarsRefundRefusal } from "../../core/model/errors.js";
import type { Topup } from "../../core/model/topup.js";
import { starsRefund } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { usdt } from "../format.js";
import { refusalText } from "../refusals.js";
import { accountLabel } from "./topup-decisions.js";
import type { TopupDeps } from "./topups.js";

const minute = (at: string | null) => (at ?? "").slice(0, 16).replace("T", " ");

/** Why a top-up cannot be refunded as it stands, before asking the administrator to confirm (the core decides again). */
function cannotRefund(topup: Topup): Extract<StarsRefundRefusal, "not_stars" | "refunded" | "not_paid"> | null {
  if (topup.method !== "stars") return "not_stars";
  if (topup.status === "refunded") return "refunded";
  return topup.status === "credited" || topup.status === "refunding" ? null : "not_paid";
}

/** What a refund's listeners tell: the customer that their Stars went back, the administrators what Telegram's own refund could not take back. */
function listenToRefunds(deps: TopupDeps) {
  const { core, log } = deps;
  core.topups.onRefunded((topup, shortMicro) => {
    void (async () => {
      const account = await core.accounts.get(topup.accountId);
      const taken = topup.reversedMicro ?? 0;
      if (account.telegramId) {
        await deps.tell(account.telegramId, (t) => t("topup-refunded", { id: topup.id, stars: String(topup.stars ?? 0), amount: usdt(taken) }));
      }
      if (shortMicro <= 0) return;
      const vars = {
        id: topup.id,
        user: accountLabel(account),
        stars: String(topup.stars ?? 0),
        taken: usdt(taken),
        credited: usdt(topup.creditedMicro ?? 0),
        short: usdt(shortMicro),
      };
      for (const admin of deps.admins) await deps.tell(String(admin), (t) => t("adm-refund-short", vars));
    })().catch((error) => log.error({ topupId: topup.id, err: error }, "refund notice failed"));
  });
}

/**
 * An administrator's refund of a Stars top-up: /refund <id> shows whose it is, its Stars, USDT and date, and asks to
 * confirm; the confirmation (its id on the button, so any instance takes it) asks the core, which takes the credit
 * back and has Telegram give the Stars back. Every refusal is said by its reason. The customer hears of any refund,
 * the administrators of one Telegram made that the balance could not cover.
 */
export function starsRefundFeatures(deps: TopupDeps) {
  const { core } = deps;
  const composer = new Composer<BotContext>();
  listenToRefunds(deps);
  const only = composer.filter((ctx) => ctx.from !== undefined && deps.admins.includes(ctx.from.id));
  const refused = (ctx: BotContext, error: unknown) => {
    if (!(error instanceof DomainError)) throw error;
    return ctx.reply(refusalText(ctx.t.bind(ctx), error.refusal));
  };

  only.command("refund", async (ctx) => {
    const id = ctx.match.trim();
    if (!/^[1-9]\d{0,14}$/.test(id)) return ctx.reply(`${ctx.t("adm-refund-bad-id")}\n${ctx.t("adm-usage", { usage: "/refund <top-up id>" })}`);
    try {
      const topup = await core.topups.find(Number(id));
      const why = cannotRefund(topup);
      if (why) return ctx.reply(refusalText(ctx.t.bind(ctx), { code: "invalid_input", details: { rule: "stars_refund", refund: why } }));
      const account = await core.accounts.get(topup.accountId);
      const text = ctx.t("adm-refund-ask", {
        id: topup.id,
        user: accountLabel(account),
        stars: String(topup.stars ?? 0),
        date: minute(topup.creditedAt),
        amount: usdt(topup.creditedMicro ?? 0),
      });
      return ctx.reply(text, {
        reply_markup: new InlineKeyboard()
          .text(ctx.t("btn-refund-confirm", { id: topup.id }), starsRefund.pack({ go: true, id: topup.id }))
          .text(ctx.t("btn-cancel"), starsRefund.pack({ go: false, id: topup.id })),
      });
    } catch (error) {
      return refused(ctx, error);
    }
  });

  only.callbackQuery(starsRefund.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { go, id } = starsRefund.unpack(ctx.callbackQuery.data);
    // The buttons go first: a second tap finds none (and the core refuses a second refund anyway).
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (!go) return ctx.reply(ctx.t("adm-refund-dropped"));
    try {
      const topup = await core.topups.refundStars(id, { telegramId: String(ctx.from.id), name: ctx.from.first_name });
      const account = await core.accounts.get(topup.accountId);
      return ctx.reply(
        ctx.t("adm-refund-done", {
          id,
          stars: String(topup.stars ?? 0),
          user: accountLabel(account),
          amount: usdt(topup.reversedMicro ?? topup.creditedMicro ?? 0),
        }),
      );
    } catch (error) {
      return refused(ctx, error);
    }
  });

  return composer;
}
