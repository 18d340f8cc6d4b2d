import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EmulatedChat } from "../../src/emulator/client.js";
import { startEmulator } from "../../src/emulator/server.js";
import { type Harness, startHarness } from "../support/harness.js";

const ADMIN = 910_000_001;
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let h: Harness;
let admin: EmulatedChat;

beforeAll(async () => {
  emulator = await startEmulator();
  h = await startHarness({}, { emulatorUrl: emulator.url, admins: [ADMIN] });
  admin = new EmulatedChat(emulator.url, { id: ADMIN, first_name: "Admin", username: "the_admin", language_code: "en" });
  await admin.reply("/start", (t) => t.includes("What would you like"));
});
afterEach(async () => h.assertLedgerInvariant());
afterAll(async () => {
  await h.close();
  await emulator.app.close();
});

let nextUser = 700_000_001;
async function customer(username: string) {
  const chat = new EmulatedChat(emulator.url, { id: nextUser++, first_name: "Cust", username, language_code: "en" });
  const shown = await chat.reply("/start", (t) => /sj_[A-Za-z0-9_-]{43}/.test(t));
  await chat.next((t) => t.includes("What would you like"));
  return { chat, key: /sj_[A-Za-z0-9_-]{43}/.exec(shown.text)![0] };
}

const say = (text: string) => admin.reply(text, () => true).then((m) => m.text);

describe("admin commands", () => {
  it("credits by id, @username or key prefix, tells the user, and records the admin in the ledger", async () => {
    const { chat, key } = await customer("carl_c");
    expect(await say(`/credit ${chat.user.id} 10 welcome bonus`)).toContain("+10.00 USDT, balance 10.00 USDT");
    expect((await chat.next((t) => t.includes("topped up"))).text).toContain("10.00 USDT");
    expect(await say("/credit @carl_c 2.5")).toContain("balance 12.50 USDT");
    expect(await say(`/credit ${key.slice(0, 11)} 0.5`)).toContain("balance 13.00 USDT");
    expect(await say("/debit @carl_c 3 correction")).toContain("balance 10.00 USDT");
    expect(await h.balance(key)).toBe(10);
    const entries = await h.service.db.selectFrom("ledger_entries").select(["kind", "actor", "note"]).where("actor", "=", `tg:${ADMIN}`).execute();
    expect(entries).toContainEqual({ kind: "credit", actor: `tg:${ADMIN}`, note: "welcome bonus" });
    expect(entries).toContainEqual({ kind: "debit", actor: `tg:${ADMIN}`, note: "correction" });
  });

  it("blocks and unblocks: the key answers 403 and the user is told", async () => {
    const { chat, key } = await customer("bella_b");
    expect(await say("/block @bella_b")).toContain("blocked");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(403);
    expect((await chat.reply("/balance", () => true)).text).toContain("blocked");
    expect(await say("/unblock @bella_b")).toContain("unblocked");
    expect((await h.call("GET", "/v1/balance", { key })).status).toBe(200);
  });

  it("refuses to block the admin's own account, with the same refusal as the Mini App's desk", async () => {
    await h.service.core.admin.issueKey(String(ADMIN));
    expect(await say(`/block ${ADMIN}`)).toBe("An administrator cannot block their own account: nothing changed.");
    expect((await h.service.core.accounts.byTelegramId(String(ADMIN)))!.blocked).toBe(false);
  });

  it("sets a personal markup the API then applies, makes an owner key, sets the wallet, and shows a user", async () => {
    const { key } = await customer("mona_m");
    expect(await say("/markup @mona_m store 1.5")).toContain("store markup 1.5%");
    expect((await h.call("GET", "/v1/store/pricing", { key })).body.markup_percent).toBe(1.5);
    expect(await say("/markup @mona_m store default")).toContain("default");
    expect((await h.call("GET", "/v1/store/pricing", { key })).body.markup_percent).toBe(3);

    expect(await say("/wallet 200")).toContain("service wallet: 200.00 USDT");
    expect(await say("/owner @mona_m 50 -")).toContain("daily limit 50.00, per-order limit none");
    expect((await h.call("GET", "/v1/balance", { key })).body).toEqual({ success: true, balance_usdt: 50, currency: "USDT", unlimited: true });
    const info = await say("/user @mona_m");
    for (const part of ["@mona_m", "owner", "balance 50.00 USDT (service wallet)", "key sj_", "markups: store top-up default"])
      expect(info).toContain(part);
    const audit = await h.service.db.selectFrom("audit_log").select(["action", "actor"]).where("actor", "=", `tg:${ADMIN}`).execute();
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(["block", "unblock", "markup", "owner"]));
  });

  it("shows today's stats with upstream readiness", async () => {
    const { key } = await customer("sam_s");
    await say("/credit @sam_s 5");
    await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 100 } });
    await h.call("POST", "/v1/stars", { key, body: { username: "fail_x", stars: 100 } });
    const stats = await say("/stats");
    // Counts in whole sentences, with the count's own form: "1 order", never "1 orders".
    expect(stats).toMatch(/^stars: (1 order|([2-9]|\d\d+) orders) completed, \d+\.\d\d USDT$/m);
    expect(stats).toMatch(/^stars: 1 order refunded, 1\.50 USDT$/m);
    expect(stats).toMatch(/^refunds: 1 order, 1\.50 USDT$/m);
    expect(stats).not.toMatch(/\b1 orders\b/);
    // The Mini App's 30-day chart, as one line of delivered volume by product.
    expect(stats).toMatch(/last 30 days, delivered: .*stars \d+\.\d\d USDT/);
    expect(stats).toContain("stars (protocol) ready");
    expect(stats).toContain("Premium (protocol) ready");
  });

  it("lists the admin commands in an administrator's /help, and never in a customer's", async () => {
    const { chat } = await customer("hugo_h");
    const mine = await say("/help");
    for (const usage of ["/credit <target> <usdt> [note]", "/reject <top-up id> <reason>", "/refund <top-up id>", "/stats"])
      expect(mine).toContain(usage);
    expect(mine).toContain("You are an administrator here");
    const theirs = (await chat.reply("/help", (t) => t.includes("/balance"))).text;
    for (const command of ["/credit", "/debit", "/block", "/stats", "/reject", "administrator"]) expect(theirs).not.toContain(command);
  });

  it("answers bad arguments with a usage line and changes nothing", async () => {
    await customer("ursula_u");
    const before = await h.service.db.selectFrom("ledger_entries").selectAll().execute();
    for (const [command, usage] of [
      ["/credit", "/credit <target> <usdt>"],
      ["/credit @ursula_u", "/credit <target> <usdt>"],
      ["/credit @ursula_u -5", "/credit <target> <usdt>"],
      ["/credit @ursula_u 1.1234567", "/credit <target> <usdt>"],
      ["/markup @ursula_u stars 5", "/markup <target>"],
      ["/markup @ursula_u store lots", "/markup <target>"],
      ["/wallet minus", "/wallet <usdt>"],
      ["/owner @ursula_u ten", "/owner <target>"],
    ]) {
      expect(await say(command), command).toContain(`usage: ${usage}`);
    }
    expect(await say("/credit @nobody_here 5")).toContain("No user @nobody_here");
    expect(await say("/debit @ursula_u 5")).toContain("Insufficient");
    // Past the bound of any amount, and an owner key, which spends the wallet: refused, saying why.
    expect(await say("/credit @ursula_u 9000000000")).toContain("at most 1000000000");
    await customer("oscar_o");
    expect(await say("/owner @oscar_o 20 -")).toContain("daily limit 20.00");
    expect(await say("/owner @oscar_o")).toContain("daily limit 20.00, per-order limit none");
    const owner = await say("/credit @oscar_o 5");
    expect(owner).toContain("owner key");
    expect(owner).toContain("wallet");
    expect(await h.service.db.selectFrom("ledger_entries").selectAll().execute()).toEqual(before);
  });

  it("does nothing for anyone who is not an admin", async () => {
    const { chat, key } = await customer("eve_e");
    const answer = await chat.reply(`/credit ${chat.user.id} 1000`, () => true);
    expect(answer.text).toContain("did not understand");
    expect(await h.balance(key)).toBe(0);
  });

  it("publishes separate command lists for admins", async () => {
    const calls = (await (await fetch(`${emulator.url}/emulator/calls`)).json()).calls as Array<{ method: string; payload: any }>;
    const lists = calls.filter((c) => c.method === "setMyCommands");
    const adminList = lists.find((c) => c.payload.scope?.chat_id === ADMIN);
    expect(adminList!.payload.commands.map((c: { command: string }) => c.command)).toEqual(expect.arrayContaining(["credit", "stats", "balance"]));
    const everyone = lists.find((c) => !c.payload.scope && !c.payload.language_code);
    expect(everyone!.payload.commands.map((c: { command: string }) => c.command)).not.toContain("credit");
  });
});

describe("admin targets", () => {
  it("credits the current holder of a username, clears it from whoever held it before, and names the Telegram id", async () => {
    // The first holder left the name in Telegram without writing to the bot again; the next one takes it.
    const before = await customer("partner_p");
    const now = await customer("partner_p");
    const reply = await say("/credit @partner_p 4");
    expect(reply).toContain(`${now.chat.user.id} @partner_p: +4.00 USDT`);
    expect(await h.balance(now.key)).toBe(4);
    expect(await h.balance(before.key)).toBe(0);
    const rows = await h.service.db
      .selectFrom("accounts")
      .select(["telegram_id", "username"])
      .where("telegram_id", "in", [String(before.chat.user.id), String(now.chat.user.id)])
      .execute();
    expect(rows).toContainEqual({ telegram_id: String(before.chat.user.id), username: null });
    expect(rows).toContainEqual({ telegram_id: String(now.chat.user.id), username: "partner_p" });
    // A confirmation names the account it resolved, not the text typed.
    const question = await say("/credit @PARTNER_P 5000");
    expect(question).toContain(`${now.chat.user.id} @partner_p`);
    await admin.tap("Confirm");
    expect((await admin.next((t) => t.includes("+5000.00 USDT"))).text).toContain(`${now.chat.user.id} @partner_p`);
    expect(await h.balance(now.key)).toBe(5004);
  });

  it("refuses a target that could be several accounts, naming the candidates, and changes nothing", async () => {
    const [one, two] = [await customer("dup_one"), await customer("dup_two")];
    // Two live keys whose display prefixes start alike: the short prefix could be either.
    for (const { chat } of [one, two]) {
      const account = await h.service.db
        .selectFrom("accounts")
        .select("id")
        .where("telegram_id", "=", String(chat.user.id))
        .executeTakeFirstOrThrow();
      await h.service.db
        .updateTable("api_keys")
        .set({ display_prefix: `sj_QQQQ${chat.user.id % 10}` })
        .where("account_id", "=", account.id)
        .where("revoked_at", "is", null)
        .execute();
    }
    const reply = await say("/credit sj_QQQQ 3");
    expect(reply).toContain(`${one.chat.user.id} @dup_one`);
    expect(reply).toContain(`${two.chat.user.id} @dup_two`);
    expect(reply).toContain("Nothing changed");
    expect([await h.balance(one.key), await h.balance(two.key)]).toEqual([0, 0]);
  });
});

describe("start-up", () => {
  it("runs when Telegram refuses the command lists, and logs it", async () => {
    const refusing = await startEmulator();
    await fetch(`${refusing.url}/emulator/refuse`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ method: "setMyCommands", refuse: true }),
    });
    const started = await startHarness({}, { emulatorUrl: refusing.url });
    try {
      const chat = new EmulatedChat(refusing.url, { id: 730_000_001, first_name: "Late", language_code: "en" });
      expect((await chat.reply("/start", (t) => /sj_/.test(t))).text).toContain("API key");
      expect(started.logs.join("")).toContain("setMyCommands failed");
    } finally {
      await started.close();
      await refusing.app.close();
    }
  });
});

describe("webhook mode", () => {
  it("takes updates on POST /telegram/webhook with the secret token, and refuses them without it", async () => {
    const secret = "webhook-secret-for-tests-1234";
    const hooked = await startHarness(
      { BOT_WEBHOOK_URL: "https://bot.example.test/telegram/webhook", BOT_WEBHOOK_SECRET: secret },
      { emulatorUrl: emulator.url },
    );
    try {
      const calls = (await (await fetch(`${emulator.url}/emulator/calls`)).json()).calls as Array<{ method: string; payload: any }>;
      expect(calls.filter((c) => c.method === "setWebhook").at(-1)!.payload).toMatchObject({
        url: "https://bot.example.test/telegram/webhook",
        secret_token: secret,
      });
      const chat = new EmulatedChat(emulator.url, { id: 720_000_001, first_name: "Hook", language_code: "en" });
      const update = {
        update_id: 1,
        message: {
          message_id: 1,
          date: 0,
          chat: { id: 720_000_001, type: "private", first_name: "Hook" },
          from: { id: 720_000_001, is_bot: false, first_name: "Hook" },
          text: "/start",
          entities: [{ type: "bot_command", offset: 0, length: 6 }],
        },
      };
      const refused = await hooked.api.inject({
        method: "POST",
        url: "/telegram/webhook",
        payload: update,
        headers: { "x-telegram-bot-api-secret-token": "wrong" },
      });
      expect(refused.statusCode).toBe(401);
      const taken = await hooked.api.inject({
        method: "POST",
        url: "/telegram/webhook",
        payload: update,
        headers: { "x-telegram-bot-api-secret-token": secret },
      });
      expect(taken.statusCode).toBe(200);
      expect((await chat.next((t) => /sj_[A-Za-z0-9_-]{43}/.test(t))).protect_content).toBeFalsy();
    } finally {
      await hooked.close();
    }
  });
});
