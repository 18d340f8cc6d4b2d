import { createConversation } from "@grammyjs/conversations";
import { FormattedString, fmt } from "@grammyjs/parse-mode";
import { type Api, Composer, GrammyError, InlineKeyboard } from "grammy";
import type { Account } from "../../core/model/account.js";
import { DomainError } from "../../core/model/errors.js";
import type { Core } from "../../core/index.js";
import { parseUsdt } from "../../core/model/money.js";
import type { TransferReview } from "../../core/topups.js";
import type { Topup } from "../../core/model/topup.js";
import type { BotContext, Flow, FlowContext } from "../context.js";
import { answer, attempt, withCancel } from "../flows/kit.js";
import { plainNumber, type Translate, usdt } from "../format.js";
import { mainMenu } from "../keyboards.js";
import { type Refusal, refusalText } from "../refusals.js";

/** The amounts offered as buttons, in USDT (any other may be typed). */
const AMOUNTS = [10, 25, 50, 100];

export interface TopupDeps {
  core: Core;
  api: Api;
  admins: number[];
  /** A user's own language, for messages sent outside their chat's updates. */
  translator(telegramId: string): Promise<Translate>;
  tell(telegramId: string, text: (t: Translate) => string): Promise<void>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

const minute = (at: string) => at.slice(0, 16).replace("T", " ");

/** A top-up's line in /topups. */
const lineVars = (t: Translate, topup: Topup) => ({
  id: topup.id,
  method: t(`topup-method-${topup.method}`),
  amount: usdt(topup.creditedMicro ?? topup.amountMicro),
  status: t(`topup-status-${topup.status}`),
});

/** What the deciding administrator must know first: a reference used before, an amount above the threshold. */
function warnings(t: Translate, review: TransferReview, thresholdMicro: number): string[] {
  const lines: string[] = [];
  if (review.confirm.includes("above_threshold")) lines.push(t("topup-admin-above", { threshold: usdt(thresholdMicro) }));
  if (review.reused.length) {
    const others = review.reused.map(({ topup, telegramId }) => `#${topup.id} (${t(`topup-status-${topup.status}`)}, ${telegramId ?? "?"})`);
    lines.push(t("topup-admin-reused", { others: others.join(", ") }));
  }
  return lines;
}
const who = (account: Account) => `${account.telegramId}${account.username ? ` @${account.username}` : ""}`;

/**
 * Money in, from the chat: "Top up" (the main menu, /topup) offers amounts; a tap makes a Crypto Pay invoice and
 * answers its pay link (two taps from the menu). "I paid by transfer" takes an amount and a reference and asks
 * every administrator, whose first Approve or Reject decides (the others' messages then say who decided). The
 * user is told when a top-up is credited or rejected; /topups lists theirs, with Cancel on those still open.
 */
export function topupFeatures(deps: TopupDeps) {
  const { core } = deps;
  const composer = new Composer<BotContext>();

  const refusal = (ctx: FlowContext, outcome: Refusal) => refusalText(ctx.t.bind(ctx), outcome);

  async function topupFlow(conversation: Flow, ctx: FlowContext) {
    const telegramId = String(ctx.from!.id);
    const account = await conversation.external(async () => (await core.accounts.byTelegramId(telegramId)) ?? null);
    if (!account) return ctx.reply(ctx.t("start-first"));
    const methods = core.topups.methods();
    const { minMicro, maxMicro } = core.topups.limits;
    const bounds = { min: usdt(minMicro), max: usdt(maxMicro) };
    const keyboard = new InlineKeyboard();
    for (const amount of AMOUNTS)
      if (amount * 1_000_000 >= minMicro && amount * 1_000_000 <= maxMicro) keyboard.text(`${amount} USDT`, `tp:${amount}`);
    if (methods.transfer) keyboard.row().text(ctx.t("btn-topup-transfer"), "tp:transfer");
    let transfer = !methods.invoice;
    if (!methods.invoice && !methods.transfer) return ctx.reply(ctx.t("topup-off"), { reply_markup: mainMenu(ctx) });
    await ctx.reply(ctx.t(transfer ? "topup-transfer-amount" : "topup-ask", bounds), {
      reply_markup: withCancel(ctx, transfer ? undefined : keyboard),
    });

    let amountMicro: number | null = null;
    while (amountMicro === null) {
      const reply = await answer(conversation, ctx);
      if (reply.kind === "button" && reply.data === "tp:transfer") {
        transfer = true;
        await ctx.reply(ctx.t("topup-transfer-amount", bounds), { reply_markup: withCancel(ctx) });
        continue;
      }
      const text = reply.kind === "button" ? (reply.data.startsWith("tp:") ? reply.data.slice(3) : "") : plainNumber(reply.text);
      const micro = text === null ? null : parseUsdt(text);
      if (micro !== null && micro >= minMicro && micro <= maxMicro) amountMicro = micro;
      else await ctx.reply(ctx.t("topup-bad-amount", bounds), { reply_markup: withCancel(ctx) });
    }

    if (!transfer) {
      const made = await attempt(conversation, () => core.topups.startInvoice(account, amountMicro!));
      if (!made.ok) return ctx.reply(refusal(ctx, made), { reply_markup: mainMenu(ctx) });
      return ctx.reply(ctx.t("topup-invoice", { amount: usdt(made.value.amountMicro), until: minute(made.value.expiresAt ?? "") }), {
        reply_markup: invoiceKeyboard(ctx.t.bind(ctx), made.value),
      });
    }

    await ctx.reply(ctx.t("topup-transfer-reference"), { reply_markup: withCancel(ctx) });
    let reference = "";
    while (!reference) {
      const reply = await answer(conversation, ctx);
      if (reply.kind === "text" && reply.text) reference = reply.text;
    }
    const made = await attempt(conversation, () => core.topups.requestTransfer(account, amountMicro!, reference));
    if (!made.ok) return ctx.reply(refusal(ctx, made), { reply_markup: mainMenu(ctx) });
    return ctx.reply(ctx.t("topup-transfer-sent", { amount: usdt(made.value.amountMicro), id: made.value.id }), { reply_markup: mainMenu(ctx) });
  }

  const invoiceKeyboard = (t: Translate, topup: Topup) =>
    new InlineKeyboard()
      .url(t("btn-topup-pay", { amount: usdt(topup.amountMicro) }), topup.payUrl ?? "https://t.me/CryptoBot")
      .row()
      .text(t("btn-topup-cancel"), `tp:cancel:${topup.id}`);

  composer.use(createConversation<BotContext, FlowContext>(topupFlow, { id: "topup" }));

  const enter = async (ctx: BotContext) => {
    await ctx.conversation.exitAll();
    await ctx.conversation.enter("topup");
  };
  composer.command("topup", enter);
  composer.callbackQuery("menu:topup", async (ctx) => {
    await ctx.answerCallbackQuery();
    await enter(ctx);
  });

  /** The user's top-ups, newest first, with Cancel on an open invoice or a transfer still pending. */
  composer.command("topups", async (ctx) => {
    const topups = await core.topups.list(ctx.caller!.account, { limit: 10 });
    if (!topups.length) return ctx.reply(ctx.t("topups-none"), { reply_markup: mainMenu(ctx) });
    const keyboard = new InlineKeyboard();
    for (const topup of topups.filter((t) => t.status === "active" || t.status === "pending")) {
      keyboard.text(ctx.t("btn-topup-cancel-one", { id: topup.id }), `tp:cancel:${topup.id}`).row();
    }
    const lines = topups.map((t) => ctx.t("topups-line", lineVars(ctx.t.bind(ctx), t)));
    return ctx.reply(lines.join("\n"), { reply_markup: keyboard.inline_keyboard.length ? keyboard : mainMenu(ctx) });
  });

  composer.callbackQuery(/^tp:cancel:(\d+)$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const id = Number(ctx.match[1]);
    try {
      const topup = await core.topups.cancel(ctx.caller!.account, id);
      await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
      if (topup.status === "credited") return ctx.reply(ctx.t("topup-cancel-paid", { id }), { reply_markup: mainMenu(ctx) });
      if (topup.status !== "cancelled") {
        return ctx.reply(ctx.t("topups-line", lineVars(ctx.t.bind(ctx), topup)), { reply_markup: mainMenu(ctx) });
      }
      await ctx.reply(ctx.t("topup-cancelled", { id }), { reply_markup: mainMenu(ctx) });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      await ctx.reply(refusalText(ctx.t.bind(ctx), error), { reply_markup: mainMenu(ctx) });
    }
  });

  // The administrators' decision: Approve at once, or after a confirmation when the amount is above
  // ADMIN_CONFIRM_ABOVE_USDT or the reference is another transfer's too; Reject asks for the reason.
  const onlyAdmins = composer.filter((ctx) => ctx.from !== undefined && deps.admins.includes(ctx.from.id));
  onlyAdmins.callbackQuery(/^tq:(ok|okc):(\d+)$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const id = Number(ctx.match[2]);
    const confirmed = ctx.match[1] === "okc";
    const admin = { telegramId: String(ctx.from.id), name: ctx.from.first_name };
    if (!confirmed) {
      const { topup, review } = await core.topups.review(id);
      if (topup.status === "pending" && review.confirm.length) {
        const account = await core.accounts.get(topup.accountId);
        const t = ctx.t.bind(ctx);
        const text = [
          t("topup-admin-confirm", { id, user: who(account), amount: usdt(topup.amountMicro) }),
          ...warnings(t, review, core.topups.limits.confirmAboveMicro),
        ].join("\n");
        return ctx.reply(text, { reply_markup: new InlineKeyboard().text(t("btn-approve-confirm", { id }), `tq:okc:${id}`) });
      }
    } else {
      await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    }
    const decided = await core.topups.decide(id, admin, { approve: true, confirmed });
    if (decided.decided) return;
    await afterDecision(decided.topup, false);
    await ctx.reply(ctx.t("topup-decided-already", { id }));
  });
  // Reject needs the reason the user is told: the button says how to send it (a command works on any instance).
  onlyAdmins.callbackQuery(/^tq:no:(\d+)$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("topup-reject-how", { id: Number(ctx.match[1]) }));
  });
  onlyAdmins.command("reject", async (ctx) => {
    const [id, ...words] = ctx.match.trim().split(/\s+/);
    const reason = words.join(" ");
    if (!/^[1-9]\d{0,14}$/.test(id ?? "") || !reason) return ctx.reply(ctx.t("adm-usage", { usage: "/reject <top-up id> <reason>" }));
    try {
      const decided = await core.topups.decide(
        Number(id),
        { telegramId: String(ctx.from!.id), name: ctx.from!.first_name },
        { approve: false, reason },
      );
      if (!decided.decided) await afterDecision(decided.topup, false);
      return ctx.reply(ctx.t(decided.decided ? "topup-rejected-done" : "topup-decided-already", { id: Number(id) }));
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return ctx.reply(refusalText(ctx.t.bind(ctx), error));
    }
  });

  /**
   * Every administrator's message about the transfer (stored, so whichever instance sees the decision or the
   * cancel edits them all) now says what became of it, without buttons; the user hears a rejection here.
   */
  async function afterDecision(topup: Topup, decidedNow: boolean, by?: string) {
    const account = await core.accounts.get(topup.accountId);
    const decider = by ?? topup.decidedBy ?? "?";
    const key =
      topup.status === "credited"
        ? "topup-admin-approved"
        : topup.status === "rejected"
          ? "topup-admin-rejected"
          : topup.status === "cancelled"
            ? "topup-admin-cancelled"
            : "topup-admin-closed";
    for (const { chat, message } of await core.topups.notices(topup.id)) {
      const t = await deps.translator(String(chat));
      const text = t(key, {
        id: topup.id,
        user: who(account),
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

  // A decision taken (here or in the Mini App's admin desk): the administrators' messages and the user hear of it.
  core.topups.onDecided((topup, admin) => {
    afterDecision(topup, true, `${admin.name} (${admin.telegramId})`).catch((error: unknown) =>
      deps.log.error({ topupId: topup.id, err: error }, "top-up decision notice failed"),
    );
  });

  // A transfer cancelled by its user: the administrators' messages lose their buttons at once.
  core.topups.onCancelled((topup) => {
    afterDecision(topup, false).catch((error: unknown) => deps.log.error({ topupId: topup.id, err: error }, "top-up cancel notice failed"));
  });

  // A transfer stated (here or over the API): every administrator gets it with the user's name, id and balance,
  // the reference as plain code (never a link), and what would make approving need a confirmation.
  core.topups.onRequested((topup) => {
    void (async () => {
      const account = await core.accounts.get(topup.accountId);
      const [balance, { review }] = await Promise.all([core.accounts.available(account), core.topups.review(topup.id)]);
      const sent: Array<{ chat: number; message: number }> = [];
      for (const admin of deps.admins) {
        const t = await deps.translator(String(admin));
        const head = t("topup-admin-ask", { id: topup.id, user: who(account), amount: usdt(topup.amountMicro), balance: usdt(balance) });
        const flags = warnings(t, review, core.topups.limits.confirmAboveMicro);
        const text = fmt`${head}\n${t("topup-admin-reference")} ${FormattedString.code(topup.reference ?? "")}${flags.length ? `\n${flags.join("\n")}` : ""}`;
        try {
          const message = await deps.api.sendMessage(admin, text.text, {
            entities: text.entities,
            link_preview_options: { is_disabled: true },
            reply_markup: new InlineKeyboard().text(t("btn-approve"), `tq:ok:${topup.id}`).text(t("btn-reject"), `tq:no:${topup.id}`),
          });
          sent.push({ chat: admin, message: message.message_id });
        } catch (error) {
          deps.log.warn({ admin, err: error }, "could not ask an administrator about a transfer top-up");
        }
      }
      await core.topups.saveNotices(topup.id, sent);
    })().catch((error) => deps.log.error({ topupId: topup.id, err: error }, "transfer notice failed"));
  });

  // A top-up credited (paid, or approved): its owner hears of it in their language.
  core.topups.onCredited((topup, balance) => {
    void (async () => {
      const account = await core.accounts.get(topup.accountId);
      if (account.telegramId) {
        await deps.tell(account.telegramId, (t) => t("topup-credited", { amount: usdt(topup.creditedMicro ?? 0), balance: usdt(balance ?? 0) }));
      }
    })().catch((error) => deps.log.error({ topupId: topup.id, err: error }, "top-up notice failed"));
  });

  return composer;
}
