import { describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { type EmulatedChat, EmulatedStars } from "../../src/emulator/client.js";
import { adminCli } from "../support/admin-core.js";
import { type BotHarness, eventually, type Harness, TEST_BOT_TOKEN } from "../support/harness.js";
import { useBotHarness } from "../support/use-harness.js";

// `npm run admin -- stars …` against a running service's database and the Bot API emulator, on this engine: the
// summary, a reconciliation that matches and one that does not (exit 1), and refunds of Stars top-ups with every
// refusal said (exit 1). At STAR_COST_USDT 0.01 a Star credits 0.01 USDT; a gift sells at 0.015 USDT a Star and 3
// months of Premium at 11.99 USDT for 1000 Stars.

const SETTINGS = { GIFTS_BACKEND: "telegram", PREMIUM_BACKEND: "telegram", STAR_COST_USDT: "0.01", TOPUP_POLL_MS: "60000" };

let bots: BotHarness;
let h: Harness;
let stars: EmulatedStars;
useBotHarness(795_000_001, { env: { ...SETTINGS, STARS_BOOK_CHECK_MINUTES: "600" }, books: true }, async (started) => {
  bots = started;
  h = started.h;
  stars = new EmulatedStars(bots.emulatorUrl);
  // The book opened at the service's start; the CLI reads the same bot.
  await h.service.jobs.starBook!.runOnce();
});

/** The CLI as an operator runs it: the service's database, the bot's token and the same settings. */
const cli = (...args: string[]) =>
  adminCli(
    {
      DATABASE_URL: h.databaseUrl,
      ...h.databaseEnv,
      ...SETTINGS,
      BOT_TOKEN: TEST_BOT_TOKEN,
      TELEGRAM_API_ROOT: bots.emulatorUrl,
      TELEGRAM_API_EMULATOR: "true",
    },
    "stars",
    ...args,
  );

const account = async (telegramId: string) => (await h.service.core.accounts.byTelegramId(telegramId))!;
const balance = async (telegramId: string) => (await account(telegramId)).balanceMicro;

async function paid(chat: EmulatedChat, telegramId: string, count: number) {
  const made = await h.service.core.topups.starsLink(await account(telegramId), count);
  await chat.pay(made.link);
  await eventually(async () =>
    (await h.service.core.topups.get(await account(telegramId), made.topup.id)).status === "credited" ? true : undefined,
  );
  return made.topup;
}

describe("npm run admin -- stars", () => {
  it("shows the balance, today's Stars, the margins and the last reconciliation; reconciles, exit 1 on a difference", async () => {
    const { chat, telegramId } = await bots.registered(0);
    await paid(chat, telegramId, 300);
    const starBalance = (await h.service.core.starBook.summary()).balance!;

    const matched = await cli("reconcile");
    expect(matched).toMatchObject({ code: 0, stderr: "" });
    expect(matched.stdout).toContain(`the book matches Telegram (balance ${starBalance}, book ${starBalance}`);

    const shown = await cli();
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split("\n");
    expect(lines[0]).toBe(`bot's Star balance: ${starBalance} (live)`);
    expect(lines[1]).toBe("open orders will spend: 0 Stars (0 gift and Premium orders processing or held)");
    expect(lines[2]).toMatch(/^today \(\d{4}-\d\d-\d\d UTC\): in payment \+300; out none; net \+300$/);
    expect(lines.slice(3, 8)).toEqual([
      "margins in Stars at the top-up rate (0.01 USDT a Star), less what the bot pays:",
      "  gift, per Star: 0.015 USDT = 1.5 Stars in, 1 out, margin +0.5",
      "  premium 3 months: 11.99 USDT = 1199 Stars in, 1000 out, margin +199",
      "  premium 6 months: 15.99 USDT = 1599 Stars in, 1500 out, margin +99",
      "  premium 12 months: 28.99 USDT = 2899 Stars in, 2500 out, margin +399",
    ]);
    expect(lines[8]).toMatch(
      /^last reconciliation .*: the book matches Telegram \(balance \d+, book \d+, opening -?\d+, \d+ transactions compared\)$/,
    );
    expect(shown.stdout).not.toContain(TEST_BOT_TOKEN);

    // --json: the Mini App desk's Star book (GET /miniapp/admin/stars), field for field.
    const asJson = await cli("--json");
    expect(asJson).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(asJson.stdout)).toMatchObject({ balance: starBalance, open_orders: 0, open_stars: 0, rate_usdt: 0.01 });

    // Stars taken behind the book's back: the difference printed, exit 1; and the summary says so too.
    await stars.setBalance(starBalance - 40);
    try {
      const differs = await cli("reconcile");
      expect(differs.code).toBe(1);
      expect(differs.stdout).toContain("1 difference (");
      expect(differs.stdout).toContain(`  balance: Telegram ${starBalance - 40}, book ${starBalance}`);
      expect((await cli()).stdout).toContain(`  balance: Telegram ${starBalance - 40}, book ${starBalance}`);
    } finally {
      await stars.setBalance(starBalance);
    }
    expect((await cli("reconcile")).code).toBe(0);
  });

  it("refunds a Stars top-up once under the CLI's name, and says why it will not", async () => {
    const { chat, telegramId } = await bots.registered(0);
    const topup = await paid(chat, telegramId, 200);
    const refunded = await cli("refund", String(topup.id));
    expect(refunded).toMatchObject({ code: 0, stderr: "" });
    expect(refunded.stdout.trim()).toBe(
      `top-up #${topup.id} refunded: 200 Stars given back to Telegram user ${telegramId}, 2.00 USDT taken back from the balance`,
    );
    expect(await balance(telegramId)).toBe(0);
    const reversal = await h.service.db
      .selectFrom("ledger_entries")
      .select(["actor", "amount_micro"])
      .where("topup_id", "=", topup.id)
      .where("kind", "=", "reversal")
      .execute();
    expect(reversal).toEqual([{ actor: expect.stringMatching(/^cli:/), amount_micro: -2_000_000 }]);

    const again = await cli("refund", String(topup.id));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Top-up ${topup.id} was refunded already`);

    const spent = await paid(chat, telegramId, 300);
    await h.service.core.admin.debit(telegramId, micro(2_500_000), "test", { note: "spent" });
    const refused = await cli("refund", String(spent.id));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Top-up ${spent.id}'s 3.00 USDT is already spent (the balance is 0.50 USDT): it cannot be refunded`);
    expect(await balance(telegramId)).toBe(500_000);

    for (const [args, why] of [
      [["refund", "999999"], "No top-up 999999"],
      [["refund", "abc"], "a top-up id is a whole number"],
      [["refund"], "a top-up id is a whole number"],
      [["sideways"], "stars takes nothing, reconcile, or refund <topup-id>"],
    ] as const) {
      const answer = await cli(...args);
      expect(answer.code, args.join(" ")).toBe(1);
      expect(answer.stderr).toContain(why);
      expect(answer.stdout).toBe("");
    }
    // The book holds both payments and the one refund, and still matches Telegram.
    expect((await cli("reconcile")).code).toBe(0);
  });
});
