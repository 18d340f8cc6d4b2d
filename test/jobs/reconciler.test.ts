import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { request } from "undici";
import { eventually, type Harness, startHarness } from "../support/harness.js";

describe("in the running service", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterEach(async () => h.assertLedgerInvariant());
  afterAll(async () => h.close());

  it("refunds a failure exactly once however many client polls and reconciler passes see it at once", async () => {
    const { key } = await h.newKey(50);
    const placed = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_race", amount_usd: 10 } });
    expect(placed.status).toBe(202);
    const accountId = (await h.service.core.accounts.authenticate(key)).account.id;
    // The provider decides the failure (seen at the simulator, which nothing else asks meanwhile), then every path
    // that can see it races.
    const { upstream_ref } = await h.service.db
      .selectFrom("orders")
      .select("upstream_ref")
      .where("id", "=", placed.body.order_id)
      .executeTakeFirstOrThrow();
    await eventually(async () => {
      const decided = await request(`${h.simulatorUrl}/store/orders/${encodeURIComponent(String(upstream_ref))}`);
      const body = (await decided.body.json()) as { status?: string };
      return body.status === "failed" ? true : undefined;
    });
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () => h.call("GET", `/v1/store/${placed.body.order_id}`, { key })),
      ...Array.from({ length: 8 }, () => h.service.core.orders.current(accountId, placed.body.order_id)),
      h.service.jobs.reconciler.runOnce(),
    ]);
    for (const result of results.slice(0, 8)) expect((result as { body: { status: string } }).body.status).toBe("failed");
    const refunds = await h.service.db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("order_id", "=", placed.body.order_id)
      .where("kind", "=", "refund")
      .execute();
    expect(refunds).toHaveLength(1);
    expect(await h.balance(key)).toBe(50);
  });

  it("drives orders nobody polls to their final state, and tells listeners once each", async () => {
    const heard: Array<{ id: number; status: string }> = [];
    h.service.core.orders.onSettled((order) => heard.push({ id: Number(order.id), status: order.status }));
    const { key } = await h.newKey(100);
    const store = await h.call("POST", "/v1/store", { key, body: { login: "pending_quiet", amount_usd: 10 } });
    const failing = await h.call("POST", "/v1/store", { key, body: { login: "pendingfail_quiet", amount_usd: 10 } });
    const cards = await h.call("POST", "/v1/giftcards/psn-us/order", { key, body: { card_id: "psn-us-10", quantity: 2 } });
    const game = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60", player_id: "999000111" } });
    const ids = [store, failing, cards, game].map((r) => r.body.order_id);
    // Listeners hear of an order once its outcome is on disk, a flush after the row shows it (SQLite's group commit).
    const rows = await eventually(async () => {
      const found = await h.service.db.selectFrom("orders").select(["id", "status"]).where("id", "in", ids).execute();
      const told = ids.every((id) => heard.some((e) => e.id === id));
      return told && found.every((r) => r.status !== "processing") ? found : undefined;
    });
    expect(Object.fromEntries(rows.map((r) => [Number(r.id), r.status]))).toEqual({
      [ids[0]]: "completed",
      [ids[1]]: "failed",
      [ids[2]]: "completed",
      [ids[3]]: "failed",
    });
    expect(heard.filter((e) => ids.includes(e.id)).sort((a, b) => a.id - b.id)).toEqual(
      rows.map((r) => ({ id: Number(r.id), status: r.status })).sort((a, b) => a.id - b.id),
    );
    const codes = await h.call("GET", `/v1/giftcards/orders/${ids[2]}`, { key });
    expect(codes.body.codes).toHaveLength(2);
  });
});
