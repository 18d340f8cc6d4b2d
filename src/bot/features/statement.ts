import { Composer, InlineKeyboard, InputFile } from "grammy";
import type { Core } from "../../core/index.js";
import type { StatementEntry, StatementRange } from "../../core/statement.js";
import { exportFileName, statementCsv } from "../../wire/statement-csv.js";
import { menuEntry, statementExport, statementPage } from "../callback-data.js";
import type { BotContext } from "../context.js";
import { minute, type Translate, usdt } from "../format.js";
import { mainMenu } from "../keyboards.js";

const PAGE_SIZE = 10;
/** A long admin note is cut in the chat (the CSV has it whole), so a page stays far below Telegram's 4096 characters. */
const NOTE_SHOWN = 80;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The export ranges the bot offers, in UTC: [from, to) as the API takes them. */
const EXPORT_RANGES = {
  month: (now: Date) => ({ from: monthStart(now, 0), to: monthStart(now, 1) }),
  "last-month": (now: Date) => ({ from: monthStart(now, -1), to: monthStart(now, 0) }),
  "30d": (now: Date) => {
    const tomorrow = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    return { from: new Date(tomorrow - 30 * DAY_MS).toISOString(), to: new Date(tomorrow).toISOString() };
  },
} as const;
type ExportRange = keyof typeof EXPORT_RANGES;

function monthStart(now: Date, offset: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString();
}

const day = (iso: string) => iso.slice(0, 10);

function entryLine(t: Translate, entry: StatementEntry): string {
  const parts = [minute(entry.createdAt), t(`ledger-kind-${entry.kind}`), `${entry.amountMicro > 0 ? "+" : ""}${usdt(entry.amountMicro)}`];
  if (entry.orderId !== null) parts.push(t("statement-order", { id: String(entry.orderId) }));
  if (entry.balanceAfterMicro !== null) parts.push(`→ ${usdt(entry.balanceAfterMicro)}`);
  const note = entry.note && (entry.note.length > NOTE_SHOWN ? `${entry.note.slice(0, NOTE_SHOWN)}…` : entry.note);
  return note ? `${parts.join(" · ")}\n    ${t("statement-note", { note })}` : parts.join(" · ");
}

/** /statement: the ledger, newest first, ten entries a page with an "older" button, and CSV exports of a month or 30 days. */
export function statementFeatures(core: Core) {
  const composer = new Composer<BotContext>();

  async function page(ctx: BotContext, before: number | null) {
    const account = ctx.caller!.account;
    const t = ctx.t.bind(ctx);
    const statement = await core.statements.page(account, { limit: PAGE_SIZE, before, from: null, to: null });
    const keyboard = new InlineKeyboard();
    if (statement.nextBefore !== null) keyboard.text(ctx.t("statement-older"), statementPage.pack({ before: statement.nextBefore })).row();
    keyboard
      .text(ctx.t("statement-export-month"), statementExport.pack({ range: "month" }))
      .text(ctx.t("statement-export-last-month"), statementExport.pack({ range: "last-month" }))
      .row()
      .text(ctx.t("statement-export-30d"), statementExport.pack({ range: "30d" }));
    const title =
      statement.basis === "owner_orders"
        ? ctx.t("statement-title-owner", { total: usdt(statement.closingMicro) })
        : ctx.t("statement-title", { balance: usdt(statement.closingMicro) });
    const body = statement.entries.length ? statement.entries.map((entry) => entryLine(t, entry)).join("\n") : ctx.t("statement-none");
    const more = before === null ? "" : `${ctx.t("statement-older-page")}\n`;
    return ctx.reply(`${title}\n${more}\n${body}`, { reply_markup: keyboard });
  }

  async function exportRange(ctx: BotContext, name: ExportRange) {
    const range: StatementRange = EXPORT_RANGES[name](core.clock.now());
    const statement = await core.statements.export(ctx.caller!.account, range);
    const csv = statementCsv(statement);
    const last = new Date(Date.parse(range.to!) - 1).toISOString();
    const caption = ctx.t(statement.basis === "owner_orders" ? "statement-export-caption-owner" : "statement-export-caption", {
      from: day(range.from!),
      to: day(last),
      count: statement.entries.length,
      opening: usdt(statement.openingMicro),
      closing: usdt(statement.closingMicro),
    });
    return ctx.replyWithDocument(new InputFile(Buffer.from(csv, "utf8"), exportFileName(range)), { caption, reply_markup: mainMenu(ctx) });
  }

  composer.command("statement", (ctx) => page(ctx, null));
  composer.callbackQuery(menuEntry.filter({ entry: "statement" }), async (ctx) => {
    await ctx.answerCallbackQuery();
    await page(ctx, null);
  });
  composer.callbackQuery(statementPage.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await page(ctx, statementPage.unpack(ctx.callbackQuery.data).before);
  });
  composer.callbackQuery(statementExport.filter(), async (ctx) => {
    await ctx.answerCallbackQuery();
    await exportRange(ctx, statementExport.unpack(ctx.callbackQuery.data).range);
  });
  return composer;
}
