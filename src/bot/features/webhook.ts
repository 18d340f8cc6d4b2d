import { FormattedString, fmt } from "@grammyjs/parse-mode";
import { Composer, InlineKeyboard } from "grammy";
import { DomainError } from "../../core/model/errors.js";
import type { Core } from "../../core/index.js";
import { webhookNewSecret, webhookPing, webhookRemove, webhookRemoveAnswer, webhookRevokePrevious } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { minute } from "../format.js";
import { mainMenu } from "../keyboards.js";

/** The endpoint as it stands: its URL, state, backlog, back-off and last attempt, with what can be done. */
async function status(core: Core, ctx: BotContext) {
  const { webhooks } = core;
  const accountId = ctx.caller!.account.id;
  const endpoint = await webhooks.get(accountId);
  if (!endpoint) return ctx.reply(ctx.t("webhook-none"), { reply_markup: mainMenu(ctx) });
  const [last] = await webhooks.attempts(accountId, { limit: 1 });
  const lines = [
    ctx.t("webhook-status", { url: endpoint.url, enabled: endpoint.enabled ? "yes" : "no", pending: await webhooks.pending(accountId) }),
  ];
  if (!endpoint.enabled) lines.push(ctx.t("webhook-disabled-why", { reason: endpoint.disabledReason ?? "" }));
  else if (endpoint.retryAt) lines.push(ctx.t("webhook-backing-off", { since: minute(endpoint.failingSince ?? ""), next: minute(endpoint.retryAt) }));
  if (endpoint.droppedEvents > 0) {
    lines.push(ctx.t("webhook-dropped", { count: endpoint.droppedEvents, limit: webhooks.pendingLimit, at: minute(endpoint.lastDroppedAt ?? "") }));
  }
  if (last) {
    const result = last.succeeded ? String(last.statusCode) : (last.error ?? "");
    lines.push(ctx.t("webhook-last", { at: minute(last.attemptedAt), type: last.eventType, result }));
  }
  const keyboard = new InlineKeyboard()
    .text(ctx.t("btn-webhook-ping"), webhookPing.pack())
    .text(ctx.t("btn-webhook-secret"), webhookNewSecret.pack())
    .row()
    .text(ctx.t("btn-webhook-remove"), webhookRemove.pack());
  // During a rotation's overlap the old secret still signs: it can be stopped at once (a leaked one).
  if (endpoint.previousSecretUntil && endpoint.previousSecretUntil > core.clock.now().toISOString()) {
    keyboard.row().text(ctx.t("btn-webhook-revoke"), webhookRevokePrevious.pack());
  }
  return ctx.reply(lines.join("\n"), { reply_markup: keyboard });
}

/** A secret is shown once, as a code entity (tap to copy). */
async function showSecret(ctx: BotContext, intro: string, secret: string) {
  const message = fmt`${intro}\n\n${FormattedString.code(secret)}\n\n${ctx.t("webhook-secret-once")}`;
  await ctx.reply(message.text, { entities: message.entities, reply_markup: mainMenu(ctx) });
}

/** /webhook: the key's signed webhook endpoint, set by URL, with a test ping, a new secret and removal. */
export function webhookFeatures(core: Core) {
  const composer = new Composer<BotContext>();
  const { webhooks } = core;

  composer.command("webhook", async (ctx) => {
    const url = ctx.match.trim();
    if (!url) return status(core, ctx);
    try {
      const { endpoint, secret } = await webhooks.set(ctx.caller!.account.id, url);
      if (secret) return showSecret(ctx, ctx.t("webhook-set", { url: endpoint.url }), secret);
      return ctx.reply(ctx.t("webhook-changed", { url: endpoint.url }), { reply_markup: mainMenu(ctx) });
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== "invalid_input") throw error;
      return ctx.reply(ctx.t("webhook-bad-url"), { reply_markup: mainMenu(ctx) });
    }
  });

  composer.callbackQuery(webhookPing.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const endpoint = await webhooks.get(ctx.caller!.account.id);
    if (!endpoint) return ctx.reply(ctx.t("webhook-none"), { reply_markup: mainMenu(ctx) });
    const ping = await webhooks.ping(ctx.caller!.account.id);
    const text = ping.delivered
      ? ctx.t("webhook-ping-ok", { status: String(ping.statusCode), ms: Math.round(ping.durationMs) })
      : ctx.t("webhook-ping-failed", { result: ping.error ?? `HTTP ${ping.statusCode}` });
    return ctx.reply(text, { reply_markup: mainMenu(ctx) });
  });

  composer.callbackQuery(webhookNewSecret.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    const endpoint = await webhooks.get(ctx.caller!.account.id);
    if (!endpoint) return ctx.reply(ctx.t("webhook-none"), { reply_markup: mainMenu(ctx) });
    const rotated = await webhooks.rotateSecret(ctx.caller!.account.id);
    await showSecret(ctx, ctx.t("webhook-secret-new", { until: minute(rotated.previousSecretUntil) }), rotated.secret);
  });

  composer.callbackQuery(webhookRevokePrevious.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (!(await webhooks.get(ctx.caller!.account.id))) return ctx.reply(ctx.t("webhook-none"), { reply_markup: mainMenu(ctx) });
    await webhooks.revokePreviousSecret(ctx.caller!.account.id);
    return ctx.reply(ctx.t("webhook-revoked"), { reply_markup: mainMenu(ctx) });
  });

  composer.callbackQuery(webhookRemove.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t("webhook-remove-ask"), {
      reply_markup: new InlineKeyboard()
        .text(ctx.t("btn-webhook-remove-yes"), webhookRemoveAnswer.pack({ yes: true }))
        .text(ctx.t("btn-webhook-keep"), webhookRemoveAnswer.pack({ yes: false })),
    });
  });
  composer.callbackQuery(webhookRemoveAnswer.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    if (!webhookRemoveAnswer.unpack(ctx.callbackQuery.data).yes) return ctx.reply(ctx.t("webhook-kept"), { reply_markup: mainMenu(ctx) });
    const removed = await webhooks.remove(ctx.caller!.account.id);
    return ctx.reply(ctx.t(removed ? "webhook-removed" : "webhook-none"), { reply_markup: mainMenu(ctx) });
  });

  return composer;
}
