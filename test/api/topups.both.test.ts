import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cryptoPaySignature } from "../../src/upstream/crypto-pay.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { simControl as control, topupOf } from "../support/crypto-pay.js";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

// Money in without an administrator: Crypto Pay invoices credited once when paid (the provider's signed
// webhook, or the poll that never misses one), and transfers an administrator approves (issue 20).

let h: Harness;
let polled: Harness;
let receiver: Receiver;
/** Where `h` listens: the simulated Crypto Pay posts its webhooks there. */
let address: string;
beforeAll(async () => {
  // Webhooks only here: the poll looks at an invoice ten minutes after it is made.
  h = await startHarness({ TOPUP_POLL_MS: "600000", TOPUP_OPEN_INVOICES_MAX: "2", WEBHOOK_ALLOW_LOOPBACK: "true" });
  receiver = await startReceiver();
  address = await h.api.listen({ host: "127.0.0.1", port: 0 });
  await control(h, "/cryptopay/control/webhook", { url: `${address}/cryptopay/webhook` });
  // The poll alone there: its simulator has no webhook URL.
  polled = await startHarness({ TOPUP_POLL_MS: "200" });
});
afterEach(async () => {
  await h.assertLedgerInvariant();
  await polled.assertLedgerInvariant();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
  await polled.close();
});

const credited = (on: Harness, key: string, id: number) =>
  eventually(async () => {
    const topup = await topupOf(on, key, id);
    return topup.status === "credited" ? topup : undefined;
  });

describe("top-ups by Crypto Pay invoice", () => {
  it("answers the invoice's pay link and expiry, credits it once when paid, as a topup entry, and a replayed webhook credits nothing", async () => {
    const { key } = await h.newKey(0);
    expect((await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } })).status).toBe(200);
    const started = await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 25 } });
    expect(started.status).toBe(200);
    const topup = started.body.topup;
    expect(topup).toMatchObject({ method: "invoice", status: "active", amount_usdt: 25, credited_usdt: null });
    expect(topup.pay_url).toMatch(/^https:\/\/t\.me\/CryptoBot\?start=/);
    expect(Date.parse(topup.expires_at) - Date.now()).toBeGreaterThan(59 * 60_000);
    expect(await h.balance(key)).toBe(0);

    await control(h, `/cryptopay/control/invoices/${topup.invoice_id}/pay`);
    expect(await credited(h, key, topup.topup_id)).toMatchObject({ credited_usdt: 25 });
    expect(await h.balance(key)).toBe(25);
    // The partner's own webhook hears of it.
    const event = await receiver.waitFor((r) => r.json.type === "balance.changed" && r.json.data.kind === "topup");
    expect(event.json.data).toMatchObject({ kind: "topup", amount_usdt: 25, balance_usdt: 25, note: `Crypto Pay invoice ${topup.invoice_id}` });
    // The provider delivers again (as it does when unsure): nothing more.
    await control(h, `/cryptopay/control/invoices/${topup.invoice_id}/webhook`);
    await eventually(async () => {
      const { deliveries } = (await (await request(`${h.simulatorUrl}/cryptopay/control/deliveries`)).body.json()) as any;
      return deliveries.filter((d: any) => d.invoiceId === topup.invoice_id && d.status === 200).length >= 2 ? true : undefined;
    });
    expect(await h.balance(key)).toBe(25);

    const ledger = await h.call("GET", "/v1/ledger", { key });
    expect(ledger.body.entries).toEqual([
      expect.objectContaining({ kind: "topup", amount_usdt: 25, balance_after_usdt: 25, note: `Crypto Pay invoice ${topup.invoice_id}` }),
    ]);
    const listed = await h.call("GET", "/v1/topups", { key });
    expect(listed.body).toMatchObject({ success: true, count: 1, next_before: null });
    expect(listed.body.topups[0]).toMatchObject({ topup_id: topup.topup_id, status: "credited" });
  });

  it("refuses a forged webhook with 401 and credits nothing; ignores an invoice Crypto Pay does not have, with a log line", async () => {
    const { key, telegramId } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 50 } })).body;
    const paid = {
      invoice_id: topup.invoice_id,
      status: "paid",
      asset: "USDT",
      amount: "50",
      paid_asset: "USDT",
      paid_amount: "50",
      payload: `topup:${topup.topup_id}:${(await h.service.core.accounts.byTelegramId(telegramId))!.id}`,
      bot_invoice_url: "https://t.me/CryptoBot?start=x",
    };
    const body = JSON.stringify({ update_id: 1, update_type: "invoice_paid", request_date: new Date().toISOString(), payload: paid });
    for (const signature of [undefined, "0".repeat(64), cryptoPaySignature("999:wrongtokenwrongtoken", body)]) {
      const forged = await h.call("POST", "/cryptopay/webhook", {
        body: JSON.parse(body),
        headers: { "content-type": "application/json", ...(signature ? { "crypto-pay-api-signature": signature } : {}) },
      });
      expect(forged.status).toBe(401);
    }
    expect(h.logs.some((line) => line.includes("wrong signature was refused"))).toBe(true);
    expect(await h.balance(key)).toBe(0);
    expect((await topupOf(h, key, topup.topup_id)).status).toBe("active");

    const unknown = JSON.stringify({
      update_id: 2,
      update_type: "invoice_paid",
      payload: { ...paid, invoice_id: 987654, payload: "topup:987654:1" },
    });
    const ignored = await request(`${address}/cryptopay/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignature(SIMULATOR_CRYPTO_PAY_TOKEN, unknown) },
      body: unknown,
    });
    expect(ignored.statusCode).toBe(200);
    await ignored.body.dump();
    expect(h.logs.some((line) => line.includes("matches no top-up") && line.includes('"anomaly":"no_record"') && line.includes("987654"))).toBe(true);
    expect(await h.balance(key)).toBe(0);
  });

  it("holds to its bounds: amounts, open invoices per key, owner keys, bad input; each refusal changes nothing", async () => {
    const { key } = await h.newKey(0);
    const refusals = [
      [{ amount_usdt: 0.5 }, 400, "from 1.00 to 10000.00 USDT"],
      [{ amount_usdt: 10_001 }, 400, "from 1.00 to 10000.00 USDT"],
      [{ amount_usdt: "ten" }, 400, "amount_usdt"],
      [{ amount_usdt: 1.0000001 }, 400, "6 decimals"],
      [{ amount_usdt: 5, method: "card" }, 400, "method"],
      [{ amount_usdt: 5, method: "transfer" }, 400, "reference"],
    ] as const;
    for (const [body, status, says] of refusals) {
      const res = await h.call("POST", "/v1/topups", { key, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error).toContain(says);
    }
    expect((await h.call("GET", "/v1/topups", { key })).body.count).toBe(0);

    for (let i = 0; i < 2; i += 1) expect((await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 5 } })).status).toBe(200);
    const third = await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 5 } });
    expect(third.status).toBe(429);
    expect(third.body.error).toContain("2 unpaid invoices");
    expect(third.body.retry_after).toBeGreaterThan(0);
    expect((await h.call("GET", "/v1/topups", { key })).body.count).toBe(2);

    const owner = await h.newKey(0);
    await h.service.core.admin.makeOwner(owner.telegramId, {}, "test");
    const refused = await h.call("POST", "/v1/topups", { key: owner.key, body: { amount_usdt: 5 } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("owner key");
    expect((await h.call("GET", "/v1/topups", { key: owner.key })).body.count).toBe(0);
  });

  it("cancels an unpaid invoice at the provider, and no other", async () => {
    const { key } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 7 } })).body;
    const cancelled = await h.call("POST", `/v1/topups/${topup.topup_id}/cancel`, { key });
    expect(cancelled.body.topup.status).toBe("cancelled");
    expect((await h.call("POST", `/v1/topups/${topup.topup_id}/cancel`, { key })).status).toBe(400);
    const other = await h.newKey(0);
    expect((await h.call("GET", `/v1/topups/${topup.topup_id}`, { key: other.key })).status).toBe(404);
    expect((await h.call("POST", `/v1/topups/${topup.topup_id}/cancel`, { key: other.key })).status).toBe(404);
  });
});

describe("the poll: invoices paid while no webhook came", () => {
  it("credits an invoice paid with no webhook, once, closes one that expired, and credits that one if it was paid after all", async () => {
    const { key, telegramId } = await polled.newKey(0);
    const paid = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 12 } })).body.topup;
    const lapsed = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 3 } })).body.topup;
    await control(polled, `/cryptopay/control/invoices/${paid.invoice_id}/pay`, { deliver: false });
    await control(polled, `/cryptopay/control/invoices/${lapsed.invoice_id}/expire`);
    expect(await credited(polled, key, paid.topup_id)).toMatchObject({ credited_usdt: 12 });
    await eventually(async () => ((await topupOf(polled, key, lapsed.topup_id)).status === "expired" ? true : undefined));
    // More passes change nothing: two run now (the second a whole pass of its own), instead of sleeping for some.
    await polled.service.jobs.topupPoll!.runOnce();
    await polled.service.jobs.topupPoll!.runOnce();
    expect(await polled.balance(key)).toBe(12);
    const entries = await polled.service.db.selectFrom("ledger_entries").select("kind").where("kind", "=", "topup").execute();
    expect(entries).toHaveLength(1);

    // One we closed early (our clock ahead of the provider's) is paid there after all: it is still credited.
    const early = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 3 } })).body.topup;
    await polled.service.db.updateTable("topups").set({ status: "expired", check_after: null }).where("id", "=", early.topup_id).execute();
    const update = JSON.stringify({
      update_id: 9,
      update_type: "invoice_paid",
      payload: {
        invoice_id: early.invoice_id,
        status: "paid",
        currency_type: "crypto",
        asset: "USDT",
        amount: "3",
        payload: `topup:${early.topup_id}:${(await polled.service.core.accounts.byTelegramId(telegramId))!.id}`,
        bot_invoice_url: early.pay_url,
      },
    });
    await control(polled, `/cryptopay/control/invoices/${early.invoice_id}/pay`, { deliver: false });
    const told = await polled.call("POST", "/cryptopay/webhook", {
      body: update,
      headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignature(SIMULATOR_CRYPTO_PAY_TOKEN, update) },
    });
    expect(told.status).toBe(200);
    expect(await topupOf(polled, key, early.topup_id)).toMatchObject({ status: "credited", credited_usdt: 3 });
    expect(await polled.balance(key)).toBe(15);
  });
});

describe("top-ups by transfer, approved by an administrator", () => {
  it("credits the amount once on the first approval; a later decision changes nothing; a rejection keeps its reason", async () => {
    const { key } = await h.newKey(0);
    const asked = await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 40, method: "transfer", reference: "tx 0xabc" } });
    expect(asked.status).toBe(200);
    expect(asked.body.topup).toMatchObject({ method: "transfer", status: "pending", reference: "tx 0xabc" });
    const admin = { telegramId: "910000001", name: "Ann" };
    const [first, second] = await Promise.all([
      h.service.core.topups.decide(asked.body.topup.topup_id, admin, { approve: true }),
      h.service.core.topups.decide(asked.body.topup.topup_id, { telegramId: "910000002", name: "Bob" }, { approve: false, reason: "late" }),
    ]);
    expect([first.decided, second.decided].filter(Boolean)).toHaveLength(1);
    const winner = first.decided ? "approved" : "rejected";
    if (winner === "approved") {
      expect(await h.balance(key)).toBe(40);
      const [entry] = (await h.call("GET", "/v1/ledger", { key })).body.entries;
      expect(entry).toMatchObject({
        kind: "topup",
        amount_usdt: 40,
        note: `Transfer top-up ${asked.body.topup.topup_id} approved`,
      });
      // Who approved is in the audit log, never in the customer's note.
      const audit = await h.service.db.selectFrom("audit_log").selectAll().where("action", "=", "approve_transfer").execute();
      expect(audit.some((row) => row.actor === "admin:910000001" && row.details.includes(`"topup_id":${asked.body.topup.topup_id}`))).toBe(true);
    } else {
      expect(await h.balance(key)).toBe(0);
    }

    const again = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 5, method: "transfer", reference: "cash" } })).body.topup;
    const rejected = await h.service.core.topups.decide(again.topup_id, admin, { approve: false, reason: "no such transfer" });
    expect(rejected.topup).toMatchObject({ status: "rejected", reason: "no such transfer", decidedBy: "910000001" });
    expect((await topupOf(h, key, again.topup_id)).reason).toBe("no such transfer");

    const mine = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 5, method: "transfer", reference: "later" } })).body.topup;
    expect((await h.call("POST", `/v1/topups/${mine.topup_id}/cancel`, { key })).body.topup.status).toBe("cancelled");
    expect((await h.service.core.topups.decide(mine.topup_id, admin, { approve: true })).decided).toBe(false);
  });
});
