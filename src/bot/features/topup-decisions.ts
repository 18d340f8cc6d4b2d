import { createConversation } from "@grammyjs/conversations";
import { FormattedString, fmt } from "@grammyjs/parse-mode";
import { Composer, GrammyError, InlineKeyboard } from "grammy";
import type { Account } from "../../core/model/account.js";
import { DomainError } from "../../core/model/errors.js";
import type { Micro } from "../../core/model/money.js";
import type { TransferReview } from "../../core/topups/transfers.js";
import type { Topup } from "../../core/model/topup.js";
import { topupApprove, topupReject } from "../callback-data.js";
import type { BotContext, Flow, FlowContext } from "../context.js";
import { type Translate, usdt } from "../format.js";
import { withCancel } from "../flows/kit.js";
import { refusalText } from "../refusals.js";
import type { TopupDeps } from "./topups.js";

/** What the deciding administrator must know first: a reference used before, an amount above the threshold. */
function warnings(t: Translate, review: TransferReview, thresholdMicro: Micro): string[] {
  const lines: string[] = [];
  if (review.confirm.includes("above_threshold")) lines.push(t("topup-admin-above", { threshold: usdt(thresholdMicro) }));
  if (review.reused.length) {
    const others = review.reused.map(({ topup, telegramId }) => `#${topup.id} (${t(`topup-status-${topup.status}`)}, ${telegramId ?? "?"})`);
    lines.push(t("topup-admin-reused", { others: others.join(", ") }));
  }
  return lines;
}
/** A user as administrators see them: their Telegram id and @username. */
export const accountLabel = (account: Account) => `${account.telegramId}${account.username ? ` @${account.username}` : ""}`;

/** The text of an administrator's message once the transfer is no longer pending, by what became of it. */
const CLOSED_NOTICE: Partial<Record<Topup["status"], string>> = {
  credited: "topup-admin-approved",
  rejected: "topup-admin-rejected",
  cancelled: "topup-admin-cancelled",
};

/**
 * Every administrator's message about the transfer (stored, so whichever instance sees the decision or the
 * cancel edits them all) now says what became of it, without buttons; the user hears of a rejection made now.
 */
async function closeTransferNotices(deps: TopupDeps, topup: Topup, decidedNow: boolean, by?: string) {
  const { core } = deps;
  const account = await core.accounts.get(topup.accountId);
  const decider = by ?? topup.decidedBy ?? "?";
  const key = CLOSED_NOTICE[topup.status] ?? "topup-admin-closed";
  for (const { chat, message } of await core.topups.notices(topup.id)) {
    const t = await deps.translator(String(chat));
    const text = t(key, {
      id: topup.id,
      user: accountLabel(account),
      amount: usdt(topup.amountMicro),
      by: decider,
      reason: topup.reason ?? "",
      status: topup.status,
    });
    await deps.api.editMessageText(chat, message, text).catch((error: unknown) => {
      if (!(error instanceof GrammyError)) deps.log.warn({ err: error }, "could not update an administrator's top-up message");
    });
  }
  if (decidedNow && topup.status === "rejected" && account.telegramId) {
    await deps.tell(account.telegramId, (t) => t("topup-rejected", { id: topup.id, amount: usdt(topup.amountMicro), reason: topup.reason ?? "" }));
  }
}

/**
 * A transfer stated (here or over the API): every administrator gets it with the user's name, id and balance,
 * the reference as plain code (never a link), and what would make approving need a confirmation. The messages
 * are stored, so any instance can close them.
 */
async function askAdmins(deps: TopupDeps, topup: Topup) {
  const { core } = deps;
  const account = await core.accounts.get(topup.accountId);
  const [balance, { review }] = await Promise.all([core.accounts.available(account), core.topups.review(topup.id)]);
  const sent: Array<{ chat: number; message: number }> = [];
  for (const admin of deps.admins) {
    const t = await deps.translator(String(admin));
    const head = t("topup-admin-ask", { id: topup.id, user: accountLabel(account), amount: usdt(topup.amountMicro), balance: usdt(balance) });
    const flags = warnings(t, review, core.admin.confirm.aboveMicro);
    const text = fmt`${head}\n${t("topup-admin-reference")} ${FormattedString.code(topup.reference ?? "")}${flags.length ? `\n${flags.join("\n")}` : ""}`;
    try {
      const message = await deps.api.sendMessage(admin, text.text, {
        entities: text.entities,
        link_preview_options: { is_disabled: true },
        reply_markup: new InlineKeyboard()
          .text(t("btn-approve"), topupApprove.pack({ confirmed: false, id: topup.id }))
          .text(t("btn-reject"), topupReject.pack({ id: topup.id })),
      });
      sent.push({ chat: admin, message: message.message_id });
    } catch (error) {
      deps.log.warn({ admin, err: error }, "could not ask an administrator about a transfer top-up");
    }
  }
  await core.topups.saveNotices(topup.id, sent);
}

/** What the core's top-up events mean in the chats: administrators asked and told, users told. */
function listenToTopups(deps: TopupDeps) {
  const { core, log } = deps;
  // A decision taken (here or in the Mini App's admin desk): the administrators' messages and the user hear of it.
  core.topups.onDecided((topup, admin) => {
    closeTransferNotices(deps, topup, true, `${admin.name} (${admin.telegramId})`).catch((error: unknown) =>
      log.error({ topupId: topup.id, err: error }, "top-up decision notice failed"),
    );
  });
  // A transfer cancelled by its user: the administrators' messages lose their buttons at once.
  core.topups.onCancelled((topup) => {
    closeTransferNotices(deps, topup, false).catch((error: unknown) => log.error({ topupId: topup.id, err: error }, "top-up cancel notice failed"));
  });
  core.topups.onRequested((topup) => {
    askAdmins(deps, topup).catch((error) => log.error({ topupId: topup.id, err: error }, "transfer notice failed"));
  });
  // A top-up credited (paid, or approved): its owner hears of it in their language.
  core.topups.onCredited((topup, balance) => {
    void (async () => {
      const account = await core.accounts.get(topup.accountId);
      if (account.telegramId) {
        const vars = { amount: usdt(topup.creditedMicro ?? 0), balance: usdt(balance ?? 0), stars: String(topup.stars ?? 0) };
        await deps.tell(account.telegramId, (t) => t(topup.method === "stars" ? "topup-credited-stars" : "topup-credited", vars));
      }
    })().catch((error) => log.error({ topupId: topup.id, err: error }, "top-up notice failed"));
  });
}

/**
 * Transfers, for the administrators: the first Approve or Reject decides (the others' messages then say who
 * decided). Approve goes at once, or after a confirmation when the amount is above ADMIN_CONFIRM_ABOVE_USDT or
 * the reference is another transfer's too; Reject asks for the reason in the next message (or /reject <id> <reason>).
 * The user is told when a top-up is credited or rejected.
 */
/**
 * Reject's step, installed with the purchase flows, before the features that answer commands: a command sent while
 * it waits reaches it first and leaves it (then is answered as usual), never to leave it waiting for the next text.
 */
export function rejectReasonStep(deps: TopupDeps) {
  return new Composer<BotContext>().use(createConversation<BotContext, FlowContext>(askRejectReason(deps), { id: REJECT_CONVERSATION }));
}

export function topupDecisionFeatures(deps: TopupDeps) {
  const { core } = deps;
  const composer = new Composer<BotContext>();
  listenToTopups(deps);

  const onlyAdmins = composer.filter((ctx) => ctx.from !== undefined && deps.admins.includes(ctx.from.id));
  onlyAdmins.callbackQuery(topupApprove.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const { id, confirmed } = topupApprove.unpack(ctx.callbackQuery.data);
    const admin = { telegramId: String(ctx.from.id), name: ctx.from.first_name };
    if (!confirmed) {
      const { topup, review } = await core.topups.review(id);
      if (topup.status === "pending" && review.confirm.length) {
        const account = await core.accounts.get(topup.accountId);
        const t = ctx.t.bind(ctx);
        const text = [
          t("topup-admin-confirm", { id, user: accountLabel(account), amount: usdt(topup.amountMicro) }),
          ...warnings(t, review, core.admin.confirm.aboveMicro),
        ].join("\n");
        return ctx.reply(text, {
          reply_markup: new InlineKeyboard().text(t("btn-approve-confirm", { id }), topupApprove.pack({ confirmed: true, id })),
        });
      }
    } else {
      await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    }
    const decided = await core.topups.decide(id, admin, { approve: true, confirmed });
    if (decided.decided) return;
    await closeTransferNotices(deps, decided.topup, false);
    await ctx.reply(ctx.t("topup-decided-already", { id }));
  });
  // Reject needs the reason the user is told: asked for in the admin's next message (the conversation's state is
  // shared, so the answer may reach any instance).
  onlyAdmins.callbackQuery(topupReject.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    await ctx.conversation.enter(REJECT_CONVERSATION, topupReject.unpack(ctx.callbackQuery.data).id);
  });
  onlyAdmins.command("reject", async (ctx) => {
    const [id, ...words] = ctx.match.trim().split(/\s+/);
    const reason = words.join(" ");
    if (!/^[1-9]\d{0,14}$/.test(id ?? "") || !reason) return ctx.reply(ctx.t("adm-usage", { usage: "/reject <top-up id> <reason>" }));
    return ctx.reply(await rejectTransfer(deps, ctx, Number(id), reason));
  });

  return composer;
}

const REJECT_CONVERSATION = "reject-transfer";

/** Rejects a transfer with the reason its user is told; answers what the administrator is told. */
async function rejectTransfer(deps: TopupDeps, ctx: FlowContext, id: number, reason: string): Promise<string> {
  try {
    const decided = await deps.core.topups.decide(id, { telegramId: String(ctx.from!.id), name: ctx.from!.first_name }, { approve: false, reason });
    if (!decided.decided) await closeTransferNotices(deps, decided.topup, false);
    return ctx.t(decided.decided ? "topup-rejected-done" : "topup-decided-already", { id });
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return refusalText(ctx.t.bind(ctx), error.refusal);
  }
}

/**
 * Reject's one step: the administrator's next message is the reason the user is told. Cancel (the button or /cancel)
 * decides nothing; another command or button leaves the step and is handled as usual.
 */
function askRejectReason(deps: TopupDeps) {
  return async (conversation: Flow, ctx: FlowContext, id: number) => {
    const asked = await conversation.external(async () => {
      const { topup } = await deps.core.topups.review(id);
      const account = await deps.core.accounts.get(topup.accountId);
      return { pending: topup.status === "pending", user: accountLabel(account), amount: usdt(topup.amountMicro) };
    });
    if (!asked.pending) {
      await ctx.reply(ctx.t("topup-decided-already", { id }));
      return;
    }
    await ctx.reply(ctx.t("topup-reject-ask", { id, user: asked.user, amount: asked.amount }), { reply_markup: withCancel(ctx) });
    for (;;) {
      const next = await conversation.wait();
      if (next.callbackQuery || next.message?.text?.startsWith("/")) await conversation.halt({ next: true });
      const reason = next.message?.text?.trim();
      if (reason) {
        await ctx.reply(await conversation.external(() => rejectTransfer(deps, next, id, reason)));
        return;
      }
      await ctx.reply(ctx.t("topup-reject-text-please"), { reply_markup: withCancel(ctx) });
    }
  };
}
