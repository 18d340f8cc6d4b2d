import { beforeEach, describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { insertStandardAccount } from "../../src/db/accounts.js";
import type { Db } from "../../src/db/database.js";
import { createClaims } from "../../src/db/leases.js";
import { insertOrder } from "../../src/db/orders.js";
import { eventTarget, insertEvent } from "../../src/db/outbox.js";
import { transaction } from "../../src/db/transaction.js";
import {
  changeEndpointUrl,
  countDropped,
  deleteEndpoint,
  disableEndpoint,
  endpointOf,
  endTurn,
  insertEndpoint,
  releaseEndpoints,
  revokePreviousSecret,
  rotateEndpointSecret,
  sendingEndpoint,
} from "../../src/db/webhook-endpoints.js";
import {
  claimTurns,
  finishPing,
  giveUpPending,
  insertPing,
  listAttempts,
  pendingEvents,
  purgeEvents,
  recordAttempt,
  recordOutcome,
  releaseEvents,
  setOutcome,
} from "../../src/db/webhook-events.js";
import { useMigratedDatabase } from "../support/migrated-database.js";

// The webhook repositories on either engine: endpoints, the outbox, and the leased dispatch of events.

let db: Db;
let telegram = 9_300_000;

const at = "2026-01-01T00:00:00.000Z";
const minute = (n: number) => new Date(Date.parse(at) + n * 60_000).toISOString();

useMigratedDatabase(4, (opened) => (db = opened));

/** An account with an endpoint. */
async function endpointAccount(url = "https://hooks.example.com/in") {
  const account = await insertStandardAccount(db, { telegramId: String(telegram++), username: null, at });
  await insertEndpoint(db, { accountId: account.id, url, secretSealed: "sealed-1", at });
  return account.id;
}

const event = (accountId: number, orderId: number | null = null, when = at) =>
  insertEvent(db, {
    eventId: `evt_${Math.random().toString(16).slice(2)}`,
    accountId,
    type: "order.completed",
    orderId,
    test: false,
    payload: "{}",
    at: when,
  });

const order = (accountId: number) =>
  insertOrder(db, {
    accountId,
    fundingAccountId: accountId,
    productType: "stars",
    idempotencyKey: null,
    requestHash: "h",
    recipient: "alice",
    details: { stars: 100, usdt_per_star_micro: 15_000 },
    chargeMicro: micro(1_500_000),
    upstreamRef: `ref-${Math.random()}`,
    checkAfter: at,
    at,
  });

const newClaims = () => ({ endpoints: createClaims(), events: createClaims() });

/** The events of the turns claimed at `now` (leased until `until`), up to `perEndpoint` per endpoint. */
const claimDueEvents = async (claims: ReturnType<typeof newClaims>, options: { now: string; until: string; limit: number; perEndpoint?: number }) =>
  (await claimTurns(db, claims, { perEndpoint: 10, ...options })).flatMap((turn) => turn.events);

const attempt = (succeeded: boolean, when = at) => ({
  url: "https://hooks.example.com/in",
  at: when,
  statusCode: succeeded ? 200 : 500,
  error: succeeded ? null : "HTTP 500",
  durationMs: 12.4,
  succeeded,
});

describe("webhook endpoints", () => {
  it("are stored, changed, rotated, disabled once and deleted", async () => {
    const accountId = await endpointAccount();
    expect((await eventTarget(db, accountId, 10))?.account).toMatchObject({ id: accountId, balanceMicro: 0 });
    const plain = await insertStandardAccount(db, { telegramId: String(telegram++), username: null, at });
    expect(await eventTarget(db, plain.id, 10)).toBeNull();
    expect(await endpointOf(db, accountId)).toMatchObject({
      url: "https://hooks.example.com/in",
      enabled: true,
      secretSealed: "sealed-1",
      previousSecretSealed: null,
    });

    await rotateEndpointSecret(db, accountId, {
      secretSealed: "sealed-2",
      previousSecretSealed: "sealed-1",
      previousUntil: minute(60),
      at: minute(1),
    });
    expect(await sendingEndpoint(db, accountId)).toEqual({
      url: "https://hooks.example.com/in",
      secretSealed: "sealed-2",
      previousSecretSealed: "sealed-1",
      previousSecretUntil: minute(60),
    });

    expect(await revokePreviousSecret(db, accountId, minute(1))).toBe(true);
    expect(await sendingEndpoint(db, accountId)).toMatchObject({ secretSealed: "sealed-2", previousSecretSealed: null, previousSecretUntil: null });
    expect(await revokePreviousSecret(db, 999_999, minute(1))).toBe(false);

    expect(await disableEndpoint(db, accountId, { at: minute(2), reason: "gave up" })).toBe("https://hooks.example.com/in");
    // A second disable (another instance giving up too) changes nothing and tells nobody.
    expect(await disableEndpoint(db, accountId, { at: minute(3), reason: "again" })).toBeNull();
    expect(await endpointOf(db, accountId)).toMatchObject({ enabled: false, disabledAt: minute(2), disabledReason: "gave up" });

    await changeEndpointUrl(db, accountId, { url: "https://hooks.example.com/v2", at: minute(4) });
    expect(await endpointOf(db, accountId)).toMatchObject({
      url: "https://hooks.example.com/v2",
      enabled: true,
      disabledAt: null,
      updatedAt: minute(4),
    });

    expect(await deleteEndpoint(db, accountId)).toBe(true);
    expect(await deleteEndpoint(db, accountId)).toBe(false);
    expect(await endpointOf(db, accountId)).toBeUndefined();
  });
});

describe("the outbox and the dispatch's events", () => {
  // Each test claims from the whole table: what earlier tests left waiting is settled first.
  beforeEach(async () => {
    await db.updateTable("webhook_events").set({ status: "failed", next_attempt_at: null }).where("status", "=", "pending").execute();
  });

  it("writes an event only with the transaction that reports it", async () => {
    const accountId = await endpointAccount();
    await expect(
      transaction(db, async (trx) => {
        await insertEvent(trx, { eventId: "evt_rolled_back", accountId, type: "balance.changed", orderId: null, test: false, payload: "{}", at });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await pendingEvents(db, accountId)).toBe(0);
    await event(accountId);
    expect(await pendingEvents(db, accountId)).toBe(1);
  });

  it("claims each due event once among claimers at once, in order per order, and never for a disabled endpoint", async () => {
    const accountId = await endpointAccount();
    const { id: orderId } = await order(accountId);
    const first = await event(accountId, orderId);
    const second = await event(accountId, orderId);
    const others = await Promise.all([event(accountId), event(accountId), event(accountId)]);
    const later = await event(accountId, null, minute(30));
    const disabled = await endpointAccount();
    await event(disabled);
    await disableEndpoint(db, disabled, { at, reason: "off" });

    const now = minute(1);
    const claim = () => claimDueEvents(newClaims(), { now, until: minute(2), limit: 10 });
    const [a, b] = await Promise.all([claim(), claim()]);
    const claimed = [...a, ...b].map((e) => e.id).sort((x, y) => x - y);
    // The order's second event waits for its first; the later one is not due; the disabled endpoint's never comes.
    expect(claimed).toEqual([first.id, ...others.map((e) => e.id)].sort((x, y) => x - y));
    expect(claimed).not.toContain(second.id);
    expect(claimed).not.toContain(later.id);
    expect([...a, ...b].every((e) => e.attempts === 1 && e.lease === minute(2))).toBe(true);
    // Leased: nothing is due again before the lease ends.
    expect(await claim()).toEqual([]);
  });

  it("records an outcome only under the lease it was claimed with, and hands back only leases still held", async () => {
    const accountId = await endpointAccount();
    const events = await Promise.all([event(accountId), event(accountId), event(accountId)]);
    const claims = newClaims();
    const claimed = await claimDueEvents(claims, { now: minute(1), until: minute(2), limit: 10 });
    expect(claimed.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
    const [delivered, retried, stolen] = claimed;

    // The attempt and the outcome together (one statement on PostgreSQL), or each on its own.
    expect(await recordOutcome(db, delivered, attempt(true, minute(1)), { delivered: minute(1) })).toBe(true);
    await recordAttempt(db, retried, attempt(false, minute(1)));
    expect(await setOutcome(db, retried, { retryAt: minute(5), error: "HTTP 500" })).toBe(true);
    // Another instance took this one after the lease lapsed: this claim's outcome no longer applies, though its
    // attempt, which was made, is recorded.
    await db
      .updateTable("webhook_events")
      .set({ next_attempt_at: minute(9) })
      .where("id", "=", stolen.id)
      .execute();
    expect(await setOutcome(db, stolen, { givenUp: "too late" })).toBe(false);
    expect(await recordOutcome(db, stolen, attempt(false, minute(2)), { givenUp: "too late" })).toBe(false);
    expect(await db.selectFrom("webhook_events").select(["status", "next_attempt_at"]).where("id", "=", stolen.id).executeTakeFirst()).toEqual({
      status: "pending",
      next_attempt_at: minute(9),
    });
    expect(await db.selectFrom("webhook_events").select("status").where("id", "=", delivered.id).executeTakeFirst()).toEqual({ status: "delivered" });

    claims.events.drop(delivered.id);
    claims.events.drop(retried.id);
    // Only the stolen one is still held here, and its lease is not this instance's any more: nothing is handed back.
    expect(await releaseEvents(db, claims.events, minute(3))).toEqual([]);
    expect(await pendingEvents(db, accountId)).toBe(2);

    const page = await listAttempts(db, accountId, { limit: 2 });
    expect(page).toEqual([
      expect.objectContaining({ eventId: stolen.eventId, succeeded: false, statusCode: 500 }),
      expect.objectContaining({ eventType: "order.completed", succeeded: false, statusCode: 500, error: "HTTP 500", durationMs: 12 }),
    ]);
    const next = await listAttempts(db, accountId, { limit: 5, before: page[1].id });
    expect(next).toEqual([expect.objectContaining({ eventId: delivered.eventId, succeeded: true, statusCode: 200, error: null })]);
  });

  it("hands a cut claim back as due now", async () => {
    const accountId = await endpointAccount();
    const pending = await event(accountId);
    const claims = newClaims();
    await claimDueEvents(claims, { now: minute(1), until: minute(2), limit: 10 });
    // The endpoint is leased with its events: neither comes again until both are handed back.
    expect(await claimDueEvents(newClaims(), { now: minute(1), until: minute(2), limit: 10 })).toEqual([]);
    expect(await releaseEvents(db, claims.events, minute(1))).toEqual([pending.id]);
    expect(await releaseEndpoints(db, claims.endpoints, minute(1))).toEqual([accountId]);
    const again = await claimDueEvents(newClaims(), { now: minute(1), until: minute(2), limit: 10 });
    expect(again.map((e) => e.id)).toContain(pending.id);
    expect(again.find((e) => e.id === pending.id)?.attempts).toBe(2);
  });

  it("takes turns per endpoint: a few events each, the longest ready first, one probe while the breaker is open", async () => {
    const [busy, quiet] = [await endpointAccount(), await endpointAccount()];
    await db
      .updateTable("webhook_endpoints")
      .set({ ready_at: minute(-5) })
      .where("account_id", "=", quiet)
      .execute();
    const busyEvents = [];
    for (let i = 0; i < 6; i += 1) busyEvents.push(await event(busy));
    const quietEvent = await event(quiet);

    // Five slots: the quiet endpoint (ready longest) first, then four of the busy one's oldest; nothing more.
    const turns = await claimTurns(db, newClaims(), { now: minute(1), until: minute(2), limit: 5, perEndpoint: 4 });
    expect(turns.map((t) => [t.accountId, t.events.map((e) => e.id)])).toEqual([
      [quiet, [quietEvent.id]],
      [busy, busyEvents.slice(0, 4).map((e) => e.id)],
    ]);

    // The quiet endpoint's turn delivers; the busy one's fails and opens its breaker: nothing until its wait is
    // over, then one event (the probe).
    await setOutcome(db, turns[0].events[0], { delivered: minute(1) });
    expect(await endTurn(db, quiet, { lease: minute(2), at: minute(1), failed: false, retryAt: minute(99) })).toBe(true);
    const busyTurn = turns[1];
    for (const e of busyTurn.events) await setOutcome(db, e, { retryAt: minute(1), error: "HTTP 500" });
    expect(await endTurn(db, busy, { lease: minute(2), at: minute(1), failed: true, retryAt: minute(10) })).toBe(true);
    // Ended once: a second end under the same lease changes nothing.
    expect(await endTurn(db, busy, { lease: minute(2), at: minute(1), failed: true, retryAt: minute(10) })).toBe(false);
    expect(await endpointOf(db, busy)).toMatchObject({ failingSince: minute(1), retryAt: minute(10) });
    expect(await claimTurns(db, newClaims(), { now: minute(9), until: minute(30), limit: 16, perEndpoint: 4 })).toEqual([]);
    const [probe] = await claimTurns(db, newClaims(), { now: minute(10), until: minute(11), limit: 16, perEndpoint: 4 });
    expect(probe).toMatchObject({ accountId: busy, failures: 1, failingSince: minute(1) });
    expect(probe.events.map((e) => e.id)).toEqual([busyEvents[0].id]);

    // A probe that fails again keeps the streak's start; one that succeeds closes the breaker.
    await endTurn(db, busy, { lease: minute(11), at: minute(10), failed: true, retryAt: minute(12) });
    expect(await endpointOf(db, busy)).toMatchObject({ failingSince: minute(1), retryAt: minute(12) });
    const [again] = await claimTurns(db, newClaims(), { now: minute(12), until: minute(13), limit: 16, perEndpoint: 4 });
    expect(again.failures).toBe(2);
    await endTurn(db, busy, { lease: minute(13), at: minute(12), failed: false, retryAt: minute(99) });
    expect(await endpointOf(db, busy)).toMatchObject({ failingSince: null, retryAt: null });
    const [healthy] = await claimTurns(db, newClaims(), { now: minute(12), until: minute(13), limit: 16, perEndpoint: 4 });
    expect(healthy.events).toHaveLength(4);

    // Setting the URL again closes the breaker too.
    await endTurn(db, busy, { lease: minute(13), at: minute(12), failed: true, retryAt: minute(60) });
    await changeEndpointUrl(db, busy, { url: "https://hooks.example.com/again", at: minute(13) });
    expect(await endpointOf(db, busy)).toMatchObject({ failingSince: null, retryAt: null });
    expect((await claimTurns(db, newClaims(), { now: minute(13), until: minute(14), limit: 16, perEndpoint: 4 }))[0].events).toHaveLength(4);

    await giveUpPending(db, busy, "endpoint removed");
    expect(await pendingEvents(db, busy)).toBe(0);
  });

  it("counts waiting events up to the cap, and the events dropped past it", async () => {
    const accountId = await endpointAccount();
    for (let i = 0; i < 3; i += 1) await event(accountId);
    expect((await eventTarget(db, accountId, 3))?.full).toBe(true);
    expect((await eventTarget(db, accountId, 4))?.full).toBe(false);
    await countDropped(db, accountId, minute(5));
    await countDropped(db, accountId, minute(6));
    expect(await endpointOf(db, accountId)).toMatchObject({ droppedEvents: 2, lastDroppedAt: minute(6) });
  });

  it("records a ping as final from the start, and its one attempt with it", async () => {
    const accountId = await endpointAccount();
    const ping = await insertPing(db, { eventId: "evt_ping_1", accountId, payload: '{"type":"ping"}', at });
    expect(await pendingEvents(db, accountId)).toBe(0);
    expect(await claimDueEvents(newClaims(), { now: minute(10), until: minute(11), limit: 10 })).toEqual([]);
    await finishPing(db, ping, attempt(true));
    const [recorded] = await listAttempts(db, accountId, { limit: 5 });
    expect(recorded).toMatchObject({ eventId: "evt_ping_1", eventType: "ping", test: true, succeeded: true });
  });

  it("purges old delivered and given-up events with their attempts, never a pending one", async () => {
    const accountId = await endpointAccount();
    const [old, keep] = await Promise.all([event(accountId, null, minute(-120)), event(accountId, null, minute(-120))]);
    const claimed = await claimDueEvents(newClaims(), { now: minute(1), until: minute(2), limit: 10 });
    const oldClaim = claimed.find((e) => e.id === old.id)!;
    await recordAttempt(db, oldClaim, attempt(true, minute(-119)));
    await setOutcome(db, oldClaim, { delivered: minute(-119) });
    await db
      .updateTable("webhook_events")
      .set({ next_attempt_at: minute(-1) })
      .where("id", "=", keep.id)
      .execute();

    expect(await purgeEvents(db, { before: minute(-60), max: 100 })).toBeGreaterThanOrEqual(1);
    expect(await db.selectFrom("webhook_events").select("id").where("id", "in", [old.id, keep.id]).execute()).toEqual([{ id: keep.id }]);
    expect(await db.selectFrom("webhook_attempts").select("id").where("event_id", "=", old.id).execute()).toEqual([]);
  });
});
