import { request } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "../../src/simulator/cryptopay.js";
import { cryptoPaySignature } from "../../src/upstream/crypto-pay.js";
import { simControl as control, topupOf } from "../support/crypto-pay.js";
import { eventually, type Harness, startHarness } from "../support/harness.js";

// Money in that cannot be forged, repeated or spammed (issue 34): the simulator's Crypto Pay token is public, so
// a signed update proves nothing; only Crypto Pay's own record credits. Every start is bounded, atomically.

let h: Harness;
let polled: Harness;
beforeAll(async () => {
  // Webhooks only here (the poll looks every ten minutes); at most 2 unpaid invoices and 10 starts a day per key.
  h = await startHarness({ TOPUP_POLL_MS: "600000", TOPUP_OPEN_INVOICES_MAX: "2", TOPUP_DAILY_MAX: "10" });
  const address = await h.api.listen({ host: "127.0.0.1", port: 0 });
  await control(h, "/cryptopay/control/webhook", { url: `${address}/cryptopay/webhook` });
  // The poll alone there, every 200 ms.
  polled = await startHarness({ TOPUP_POLL_MS: "200" });
});
afterEach(async () => {
  await h.assertLedgerInvariant();
  await polled.assertLedgerInvariant();
});
afterAll(async () => {
  await h.close();
  await polled.close();
});

/** Crypto Pay's API itself, with the (public) token: what anyone holding it can do. */
async function cryptoPay(on: Harness, method: string, params: object) {
  const response = await request(`${on.simulatorUrl}/cryptopay/api/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", "crypto-pay-api-token": SIMULATOR_CRYPTO_PAY_TOKEN },
    body: JSON.stringify(params),
  });
  return (await response.body.json()) as any;
}

/** A webhook update signed with the token, as a forger holding it would send it. */
function signed(on: Harness, invoice: object, headers: Record<string, string> = {}, remoteAddress?: string) {
  const body = JSON.stringify({ update_id: 77, update_type: "invoice_paid", request_date: new Date().toISOString(), payload: invoice });
  return on.call("POST", "/cryptopay/webhook", {
    body,
    headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignature(SIMULATOR_CRYPTO_PAY_TOKEN, body), ...headers },
    remoteAddress,
  });
}

const accountIdOf = async (on: Harness, telegramId: string) => (await on.service.core.accounts.byTelegramId(telegramId))!.id;

describe("a signed update is only a hint: Crypto Pay's record credits", () => {
  it("credits nothing for updates the record contradicts (5,000 claimed, TON, RUB), then the record's 5 once paid", async () => {
    const { key, telegramId } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 5 } })).body;
    const claim = {
      invoice_id: topup.invoice_id,
      status: "paid",
      currency_type: "crypto",
      asset: "USDT",
      amount: "5000",
      payload: `topup:${topup.topup_id}:${await accountIdOf(h, telegramId)}`,
      bot_invoice_url: topup.pay_url,
    };
    for (const forged of [
      claim,
      { ...claim, asset: "TON", amount: "2" },
      { ...claim, currency_type: "fiat", asset: undefined, fiat: "RUB", amount: "3" },
    ]) {
      expect((await signed(h, forged)).status).toBe(200);
    }
    expect(await h.balance(key)).toBe(0);
    expect((await topupOf(h, key, topup.topup_id)).status).toBe("active");
    expect(h.logs.some((line) => line.includes('"anomaly":"update_disagrees"') && line.includes(String(topup.invoice_id)))).toBe(true);

    // Paid for real (its own webhook lost): a signed claim of 5,000 credits what Crypto Pay's record says, once.
    await control(h, `/cryptopay/control/invoices/${topup.invoice_id}/pay`, { deliver: false });
    expect((await signed(h, claim)).status).toBe(200);
    expect(await topupOf(h, key, topup.topup_id)).toMatchObject({ status: "credited", credited_usdt: 5 });
    expect((await signed(h, claim)).status).toBe(200);
    expect(await h.balance(key)).toBe(5);

    // The administrators hear of it: the monitor's next round alerts the anomalies (never credited).
    await h.service.jobs.monitor.runOnce();
    expect(h.logs.some((line) => line.includes('"alert":"anomalies"') && line.includes('"state":"firing"'))).toBe(true);
  });

  it("never credits an invoice made at Crypto Pay in another asset with our payload", async () => {
    const { key, telegramId } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 1 } })).body;
    const payload = `topup:${topup.topup_id}:${await accountIdOf(h, telegramId)}`;
    const made = await cryptoPay(h, "createInvoice", { asset: "TON", amount: "900", payload });
    expect(made.ok).toBe(true);
    await control(h, `/cryptopay/control/invoices/${made.result.invoice_id}/pay`);
    await eventually(async () =>
      h.logs.some((line) => line.includes('"anomaly":"unknown_invoice"') && line.includes(String(made.result.invoice_id))) ? true : undefined,
    );
    expect(await h.balance(key)).toBe(0);
    expect((await topupOf(h, key, topup.topup_id)).status).toBe("active");
  });

  it("answers a signed update that does not read as one 200, and logs it", async () => {
    const body = JSON.stringify({ update_id: 78, update_type: "invoice_paid", payload: { invoice_id: "not a number" } });
    const response = await h.call("POST", "/cryptopay/webhook", {
      body,
      headers: { "content-type": "application/json", "crypto-pay-api-signature": cryptoPaySignature(SIMULATOR_CRYPTO_PAY_TOKEN, body) },
    });
    expect(response.status).toBe(200);
    expect(h.logs.some((line) => line.includes("signed Crypto Pay update does not read as one"))).toBe(true);
  });

  it("bounds wrong signatures per address (429 after ten a minute) and logs the header's length, never its value", async () => {
    const header = "f".repeat(5000);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) {
      const response = await polled.call("POST", "/cryptopay/webhook", {
        body: "{}",
        headers: { "content-type": "application/json", "crypto-pay-api-signature": header },
        remoteAddress: "203.0.113.9",
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([...Array(10).fill(401), 429]);
    // Another address is not held back by that one.
    expect((await polled.call("POST", "/cryptopay/webhook", { body: "{}", headers: { "content-type": "application/json" } })).status).toBe(401);
    expect(polled.logs.some((line) => line.includes('"signatureLength":5000'))).toBe(true);
    expect(polled.logs.some((line) => line.includes(header))).toBe(false);
  });

  it("processes a correctly signed update from an address past the bound: only wrong signatures are limited", async () => {
    const { key, telegramId } = await h.newKey(0);
    const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 3 } })).body;
    // Paid, its own delivery held back: the update below is the one that tells the service.
    await control(h, `/cryptopay/control/invoices/${topup.invoice_id}/pay`, { deliver: false });
    // Behind a proxy it does not trust, every delivery and every forgery share one address.
    const shared = "198.51.100.77";
    const forge = () =>
      h.call("POST", "/cryptopay/webhook", {
        body: "{}",
        headers: { "content-type": "application/json", "crypto-pay-api-signature": "0".repeat(64) },
        remoteAddress: shared,
      });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await forge()).status);
    expect(statuses).toEqual([...Array(10).fill(401), 429, 429]);

    const claim = {
      invoice_id: topup.invoice_id,
      status: "paid",
      asset: "USDT",
      amount: "3",
      payload: `topup:${topup.topup_id}:${await accountIdOf(h, telegramId)}`,
      bot_invoice_url: topup.pay_url,
    };
    expect((await signed(h, claim, {}, shared)).status).toBe(200);
    expect(await topupOf(h, key, topup.topup_id)).toMatchObject({ status: "credited", credited_usdt: 3 });
    expect(await h.balance(key)).toBe(3);
    // The forger is still held back.
    expect((await forge()).status).toBe(429);
  });
});

describe("the simulated Crypto Pay keeps to the real API's documented shapes", () => {
  it("has a token shaped like a real one, invoices with allow_comments, and a paid crypto invoice without fiat's fields", async () => {
    // A real app token: the app's id, a colon, 35 letters and digits (client libraries check the shape).
    expect(SIMULATOR_CRYPTO_PAY_TOKEN).toMatch(/^\d+:[A-Za-z0-9_-]{35}$/);
    const made = await cryptoPay(h, "createInvoice", { asset: "USDT", amount: "1.5", allow_comments: false });
    expect(made.result).toMatchObject({ currency_type: "crypto", asset: "USDT", amount: "1.5", status: "active", allow_comments: false });
    await control(h, `/cryptopay/control/invoices/${made.result.invoice_id}/pay`, { deliver: false });
    const [paid] = (await cryptoPay(h, "getInvoices", { invoice_ids: String(made.result.invoice_id) })).result.items;
    expect(paid).toMatchObject({ status: "paid", amount: "1.5" });
    expect(paid).not.toHaveProperty("paid_amount");
    expect(await cryptoPay(h, "deleteInvoice", { invoice_id: made.result.invoice_id })).toMatchObject({ ok: false, error: { code: 400 } });
  });
});

describe("bounds that bound", () => {
  it("holds a daily bound across create and cancel: the 11th start in 24 hours is refused, and no admin or provider hears of it", async () => {
    const { key } = await h.newKey(0);
    for (let i = 0; i < 5; i += 1) {
      const { topup } = (await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 10000 } })).body;
      expect((await h.call("POST", `/v1/topups/${topup.topup_id}/cancel`, { key })).body.topup.status).toBe("cancelled");
      const transfer = await h.call("POST", "/v1/topups", { key, body: { amount_usdt: 10000, method: "transfer", reference: `spam ${i}` } });
      expect((await h.call("POST", `/v1/topups/${transfer.body.topup.topup_id}/cancel`, { key })).body.topup.status).toBe("cancelled");
    }
    const invoicesBefore = (await cryptoPay(h, "getInvoices", { count: 1000 })).result.items.length;
    for (const body of [{ amount_usdt: 10000 }, { amount_usdt: 10000, method: "transfer", reference: "spam 6" }]) {
      const refused = await h.call("POST", "/v1/topups", { key, body });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toContain("10 top-ups in the last 24 hours");
      expect(refused.body.retry_after).toBeGreaterThan(86_000);
    }
    expect((await cryptoPay(h, "getInvoices", { count: 1000 })).result.items.length).toBe(invoicesBefore);
    expect((await h.call("GET", "/v1/topups", { key })).body.count).toBe(10);
  });

  it("makes the open bounds one atomic step: 10 starts at once give 2 invoices and 3 pending transfers", async () => {
    const { key } = await h.newKey(0);
    const invoices = await Promise.all(Array.from({ length: 10 }, () => h.call("POST", "/v1/topups", { key, body: { amount_usdt: 1 } })));
    expect(invoices.map((r) => r.status).sort()).toEqual([...Array(2).fill(200), ...Array(8).fill(429)]);
    const other = await h.newKey(0);
    const transfers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.call("POST", "/v1/topups", { key: other.key, body: { amount_usdt: 1, method: "transfer", reference: `t${i}` } }),
      ),
    );
    expect(transfers.map((r) => r.status).sort()).toEqual([...Array(3).fill(200), ...Array(7).fill(429)]);
    const pending = (await h.call("GET", "/v1/topups", { key: other.key })).body.topups.filter((t: any) => t.status === "pending");
    expect(pending).toHaveLength(3);
  });
});

describe("money received is never lost", () => {
  it("credits an invoice paid before its cancel whose webhook was lost, and says so", async () => {
    const { key } = await polled.newKey(0);
    const { topup } = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 6 } })).body;
    // Paid, no webhook; the cancel comes before the poll's next look.
    await control(polled, `/cryptopay/control/invoices/${topup.invoice_id}/pay`, { deliver: false });
    const cancelled = await polled.call("POST", `/v1/topups/${topup.topup_id}/cancel`, { key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.topup).toMatchObject({ status: "credited", credited_usdt: 6 });
    expect(await polled.balance(key)).toBe(6);
    // Crypto Pay itself refuses to delete a paid invoice, as the real one does.
    expect(await cryptoPay(polled, "deleteInvoice", { invoice_id: topup.invoice_id })).toMatchObject({ ok: false });
  });

  it("settles top-ups left `creating` by a stop: tied to the invoice made, credited if paid, failed if none was made", async () => {
    const { key, telegramId } = await polled.newKey(0);
    const accountId = await accountIdOf(polled, telegramId);
    // Made fresh, so no poll settles them before their invoices exist; an hour old once they do.
    const now = new Date().toISOString();
    const creating = async (amount: number) =>
      (
        await polled.service.db
          .insertInto("topups")
          .values({
            account_id: accountId,
            method: "invoice",
            status: "creating",
            amount_micro: amount * 1e6,
            created_at: now,
            updated_at: now,
          })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const made = await creating(2);
    const paid = await creating(3);
    const none = await creating(4);
    const open = await cryptoPay(polled, "createInvoice", { asset: "USDT", amount: "2", payload: `topup:${made}:${accountId}` });
    const settled = await cryptoPay(polled, "createInvoice", { asset: "USDT", amount: "3", payload: `topup:${paid}:${accountId}` });
    await control(polled, `/cryptopay/control/invoices/${settled.result.invoice_id}/pay`, { deliver: false });
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await polled.service.db.updateTable("topups").set({ created_at: hourAgo, updated_at: hourAgo }).where("id", "in", [made, paid, none]).execute();

    await eventually(async () => ((await topupOf(polled, key, none)).status === "failed" ? true : undefined));
    expect(await topupOf(polled, key, made)).toMatchObject({ status: "active", invoice_id: open.result.invoice_id });
    expect(await topupOf(polled, key, paid)).toMatchObject({ status: "credited", credited_usdt: 3 });
    expect(await polled.balance(key)).toBe(3);
    // The one tied to its invoice can now be cancelled, and is deleted at Crypto Pay.
    expect((await polled.call("POST", `/v1/topups/${made}/cancel`, { key })).body.topup.status).toBe("cancelled");
    expect((await cryptoPay(polled, "getInvoices", { invoice_ids: String(open.result.invoice_id) })).result.items).toEqual([]);
  });

  it("refuses to cancel an invoice still being made, and answers a reused invoice id 503, never 500", async () => {
    const { key, telegramId } = await h.newKey(0);
    const accountId = await accountIdOf(h, telegramId);
    const now = new Date().toISOString();
    const { id } = await h.service.db
      .insertInto("topups")
      .values({ account_id: accountId, method: "invoice", status: "creating", amount_micro: 1e6, created_at: now, updated_at: now })
      .returning("id")
      .executeTakeFirstOrThrow();
    const early = await h.call("POST", `/v1/topups/${id}/cancel`, { key });
    expect(early.status).toBe(400);
    expect(early.body.error).toContain("still being made");

    // Another top-up already holds the id Crypto Pay answers next (a provider, or a simulator, that reused it).
    const probe = await cryptoPay(h, "createInvoice", { asset: "USDT", amount: "1" });
    const other = await h.newKey(0);
    await h.service.db
      .insertInto("topups")
      .values({
        account_id: await accountIdOf(h, other.telegramId),
        method: "invoice",
        status: "expired",
        amount_micro: 1e6,
        invoice_id: probe.result.invoice_id + 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const reused = await h.call("POST", "/v1/topups", { key: other.key, body: { amount_usdt: 1 } });
    expect(reused.status).toBe(503);
    expect(reused.body.error).toContain("nothing was charged");
    const [made] = (await h.call("GET", "/v1/topups", { key: other.key })).body.topups;
    expect(made).toMatchObject({ status: "failed", invoice_id: null });
  });

  it("reads a batch invoice by invoice: one Crypto Pay lists oddly is skipped, the others are credited", async () => {
    const { key } = await polled.newKey(0);
    const odd = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 1 } })).body.topup;
    const good = (await polled.call("POST", "/v1/topups", { key, body: { amount_usdt: 2 } })).body.topup;
    await control(polled, `/cryptopay/control/invoices/${odd.invoice_id}/garble`);
    await control(polled, `/cryptopay/control/invoices/${good.invoice_id}/pay`, { deliver: false });
    await eventually(async () => ((await topupOf(polled, key, good.topup_id)).status === "credited" ? true : undefined));
    expect(await polled.balance(key)).toBe(2);
    await eventually(async () =>
      polled.logs.some((line) => line.includes("does not read as one; skipped") && line.includes(String(odd.invoice_id))) ? true : undefined,
    );
    // Listed but unreadable is not gone: it stays open, never closed as expired.
    expect((await topupOf(polled, key, odd.topup_id)).status).toBe("active");
  });
});
