import { createHash, randomUUID } from "node:crypto";
import { lockAccount } from "../db/accounts.js";
import type { Db } from "../db/database.js";
import { findReplay, insertOrder, type NewOrder } from "../db/orders.js";
import type { OneStatementWrites } from "../db/placement.js";
import { transaction } from "../db/transaction.js";
import { availableTo, type Caller, getAccount, type Spendable, spendable } from "./accounts.js";
import { type Claims, createClaims, releaseOrders } from "../db/leases.js";
import { DomainError, invalid, isDatabaseUnavailable } from "./model/errors.js";
import { checkAmount, post } from "./ledger.js";
import { IDEMPOTENCY_KEY_RULE, idempotencyKeyOf } from "./formats.js";
import { type Micro, micro, toUsdt } from "./model/money.js";
import type { OrderOf, ProductDefinition } from "./model/order.js";
import type { UpstreamOutcome } from "./ports.js";
import type { Clock } from "./model/clock.js";
import type { LowBalance } from "./low-balance.js";
import type { Order } from "./model/products.js";
import type { QuoteBook, QuoteTarget } from "./quotes.js";
import type { BindingQuote } from "./model/quote.js";

/** A purchase ready to place: everything checked, the price fixed, and how to hand it to the provider. */
interface Prepared<D> {
  recipient: string;
  /** The recipient as the backend addresses them (Telegram: the user id), where it resolved one before the charge. */
  recipientId?: string | null;
  chargeMicro: Micro;
  details: D;
  send(reference: string): Promise<UpstreamOutcome>;
}

/** What a product module gives the pipeline; the rest (placement, idempotency, settlement) is shared. */
export interface Purchasable<T extends string, R, D> extends ProductDefinition<T, D> {
  /** The spec's identifying fields, normalised; with the idempotency key they decide a replay. Pure and cheap. */
  identify(request: R): unknown[];
  /** The product's rules, its live reads and its price; throws a DomainError when the purchase is refused. */
  prepare(caller: Caller, request: R): Promise<Prepared<D>>;
  /** prepare asks no provider, so a replay may run it: see placement in the pipeline's buy. */
  preparesOffline?: boolean;
}

/** The exact charge of a purchase as it would be placed now, and the details it would carry; nothing is stored. */
export interface Priced<D> {
  recipient: string;
  chargeMicro: Micro;
  details: D;
}

export interface Placed<O> {
  order: O;
  replay: boolean;
  /** What the caller can spend right after (the balance the answer shows): from the ledger post, read once for a replay. */
  balanceAfterMicro: Micro;
}

/** The charge the buyer saw: never charge more (or, when exact, anything else); refuse with `price_changed` instead. */
export interface PriceGuard {
  confirmedMicro: Micro;
  exact?: boolean;
}

/** The terms of a purchase beside what is bought. */
export interface PurchaseOptions {
  /** Buying: with the identifying fields it decides a replay (none: every call is a new purchase). */
  idempotencyKey?: string | null;
  guard?: PriceGuard;
  /** A binding quote (POST /v1/quotes): the order is charged exactly its amount, or refused with a `quote_*` reason. */
  quoteId?: string;
}

/** One purchase as a face asks for it, to price, quote or buy: who buys, what, and on which terms. */
export interface PurchaseRequest<R> extends PurchaseOptions {
  caller: Caller;
  /** The product's own fields: a recipient and an amount, a login and a nominal, a game code and its fields… */
  item: R;
}

/** inline: the outcome came back with the purchase itself, so the buyer already saw it. */
export interface SettledHow {
  inline: boolean;
  /** An administrator's decision on a held order: the only outcome a held order takes. */
  decided?: boolean;
  /** Whether the order's account has a webhook endpoint, when its placement just read it: the finish need not ask. */
  endpoint?: boolean;
}

/** Applies an outcome: the order as it is now, and the balance its refund left when this call refunded it. */
type Settle = (orderId: number, outcome: UpstreamOutcome, how: SettledHow) => Promise<{ order: Order; refundBalanceMicro: Micro | null }>;

export interface PurchasePipelineOptions {
  db: Db;
  clock: Clock;
  /** How long a new order's provider call may take: until then the reconciler leaves it alone. */
  reconcileAfterMs: number;
  settle: Settle;
  log: { warn(obj: object, msg: string): void };
  quotes: QuoteBook;
  lowBalance: LowBalance;
  /** The storage's one-statement writes where it has them (PostgreSQL): the common purchase is then one round trip. */
  oneStatement?: OneStatementWrites;
  /** The backend each product type sends new orders to: kept on the order, which is settled there. */
  backends: Readonly<Record<string, string>>;
}

/** The order as the product's own type: the request hash holds the product type, so a replay is of the same product. */
const asProduct = <T extends string, D>(order: Order, product: ProductDefinition<T, D>): OrderOf<T, D> => {
  if (order.productType !== product.type) throw new Error(`order ${order.id} is a ${order.productType} order, not ${product.type}`);
  return order as unknown as OrderOf<T, D>;
};

/** What the caller can spend once the charge (or its refund) is on the books, from the balance the ledger post left. */
function availableAfter(funds: Spendable, fundingBalanceMicro: Micro, spentMicro: Micro): Micro {
  if (funds.dailyLeftMicro === null) return fundingBalanceMicro;
  return micro(Math.min(fundingBalanceMicro, Math.max(0, funds.dailyLeftMicro - spentMicro)));
}

function requestHash(productType: string, identifying: unknown[]): string {
  return createHash("sha256")
    .update(JSON.stringify([productType, ...identifying]))
    .digest("hex");
}

/** What a quote for this item is bound to. */
function target<R>(product: Purchasable<string, R, unknown>, item: R): QuoteTarget {
  return { productType: product.type, requestHash: requestHash(product.type, product.identify(item)) };
}

/**
 * The live purchase at the quoted charge, with the details as quoted (the prices the charge was computed
 * from), so the order adds up; the live rules have passed and its send is the live one.
 */
function withQuote<D>(live: Prepared<D>, bound: BindingQuote): Prepared<D> {
  return { ...live, chargeMicro: bound.chargeMicro, details: bound.details as D };
}

/** The key as compared and stored (NFC); a key no one could see or type back is refused. */
function checkKey(key: string | null): string | null {
  if (key === null) return null;
  const normal = idempotencyKeyOf(key);
  if (normal === null) throw invalid(`idempotency_key must be ${IDEMPOTENCY_KEY_RULE}`);
  return normal;
}

function checkGuard(chargeMicro: Micro, guard: PriceGuard | undefined) {
  if (!guard) return;
  const { confirmedMicro, exact } = guard;
  if (chargeMicro > confirmedMicro || (exact && chargeMicro !== confirmedMicro)) {
    const now = toUsdt(chargeMicro);
    const message = exact
      ? `The price is now ${now} USDT, not the confirmed ${toUsdt(confirmedMicro)} USDT: nothing was charged`
      : `The charge would be ${now} USDT, above the ${toUsdt(confirmedMicro)} USDT this request allows: nothing was charged`;
    throw invalid(message, { reason: "price_changed", requiredMicro: chargeMicro });
  }
}

/** Refuses a charge above what the caller may spend (or an owner key's per-order limit), before anything is written. */
function affordable(funds: Spendable, requiredMicro: Micro) {
  if (funds.orderLimitMicro !== null && requiredMicro > funds.orderLimitMicro) {
    throw new DomainError("insufficient_funds", "The order exceeds this key's per-order limit", {
      requiredMicro,
      balanceMicro: micro(Math.min(funds.availableMicro, funds.orderLimitMicro)),
    });
  }
  if (requiredMicro > funds.availableMicro) throw short(requiredMicro, funds.availableMicro);
}

/** A placed order with the funding account's balance after its charge. */
type NewlyPlaced = { order: Order; balanceAfter: Micro; funds: Spendable; endpoint?: boolean };
/** A placed order, or the earlier order of a replay. */
type Placing = NewlyPlaced | { replay: Order; balanceAfterMicro: Micro };

const short = (requiredMicro: Micro, balanceMicro: Micro) =>
  new DomainError("insufficient_funds", "Insufficient balance", { requiredMicro, balanceMicro });

/** Whether a purchase can be placed in one statement: a standard account's own balance, no quote to spend. */
const placeableAtOnce = (caller: Caller, quoteId: string | undefined) => caller.account.kind !== "owner" && !quoteId;

/** What the pipeline's stages share: its options, and the orders whose provider call is under way here. */
interface PipelineContext extends PurchasePipelineOptions {
  /** Until the call answers, their `check_after` keeps the reconciler off. */
  calling: Claims;
}

/** What the caller can spend now, for an answer that placed nothing (a replay); see availableTo. */
const availableNow = (p: PipelineContext, caller: Caller, unmoved = false) => availableTo(p.db, caller, p.clock.now(), unmoved);

/**
 * The caller with its account as it is now: a personal markup set a moment ago prices this purchase. An API
 * caller's account was read for this very request, when its key was checked.
 */
const current = async (db: Db, caller: Caller): Promise<Caller> =>
  caller.fresh ? caller : { ...caller, account: await getAccount(db, caller.account.id) };

/** A prepared purchase to place: the buyer as read just now, the order's product type, key and request hash. */
interface Placement {
  caller: Caller;
  type: string;
  prepared: Priced<unknown> & { recipientId?: string | null };
  key: string | null;
  hash: string;
  quoteId?: string;
}

/**
 * The debit and the order row in one transaction: the order row is the saved result, and the unique index
 * on (account, key, request) decides a race with a concurrent duplicate, whose order the caller then answers.
 * `caller.account` is as read just before (`current`): a standard account's funds are checked on it, and the
 * ledger's guarded update decides a race; an owner key's daily limit is read afresh under the account's lock.
 */
async function place(p: PipelineContext, { caller, type, prepared, key, hash, quoteId }: Placement): Promise<Placing> {
  const { db, oneStatement } = p;
  const now = p.clock.now();
  const at = now.toISOString();
  const newOrder = (funds: Spendable): NewOrder => ({
    accountId: caller.account.id,
    fundingAccountId: funds.fundingAccountId,
    productType: type,
    idempotencyKey: key,
    requestHash: hash,
    recipient: prepared.recipient,
    details: prepared.details,
    chargeMicro: prepared.chargeMicro,
    upstreamRef: randomUUID(),
    checkAfter: new Date(now.getTime() + p.reconcileAfterMs).toISOString(),
    at,
    backend: p.backends[type] ?? null,
    recipientId: prepared.recipientId ?? null,
  });
  if (oneStatement && placeableAtOnce(caller, quoteId)) {
    // The common purchase (its own balance, no quote to spend) in one statement: one round trip on PostgreSQL.
    const funds = await spendable(db, caller.account, now, false);
    checkAmount(prepared.chargeMicro);
    affordable(funds, prepared.chargeMicro);
    const placement = await oneStatement.place(db, newOrder(funds), caller.actor);
    if ("replay" in placement) return { replay: placement.replay, balanceAfterMicro: availableAfter(funds, placement.balanceMicro, micro(0)) };
    if ("shortMicro" in placement) throw short(prepared.chargeMicro, placement.shortMicro);
    return { order: placement.order, balanceAfter: placement.balanceAfterMicro, funds, endpoint: placement.endpoint };
  }
  return transaction(db, async (trx) => {
    const owner = caller.account.kind === "owner";
    // An owner key's daily limit is read, then spent: no other instance may do the same in between.
    if (owner) await lockAccount(trx, caller.account.id);
    const funds = await spendable(trx, caller.account, now, owner);
    affordable(funds, prepared.chargeMicro);
    const order = await insertOrder(trx, newOrder(funds));
    const balanceAfter = await post(trx, {
      accountId: funds.fundingAccountId,
      amountMicro: micro(-prepared.chargeMicro),
      kind: "charge",
      orderId: order.id,
      actor: caller.actor,
      at,
    });
    // Spent with the charge or not at all: a second purchase naming it rolls back here.
    if (quoteId) await p.quotes.consume(trx, caller.account.id, quoteId, { productType: type, requestHash: hash }, order.id, at);
    return { order, balanceAfter, funds };
  });
}

/**
 * What the purchase would charge now, with every rule and live read applied (and the price guard, when
 * given); nothing is stored, charged or sent. The sandbox and the bot's confirmations show this.
 */
async function price<T extends string, R, D>(
  p: PipelineContext,
  product: Purchasable<T, R, D>,
  { caller, item, guard, quoteId }: PurchaseRequest<R>,
): Promise<Priced<D>> {
  // A named quote is checked (never spent): the sandbox answers what the purchase would charge with it.
  const bound = quoteId ? await p.quotes.usable(caller.account.id, quoteId, target(product, item)) : null;
  const live = await product.prepare(await current(p.db, caller), item);
  const quoted = bound ? withQuote(live, bound) : live;
  checkGuard(quoted.chargeMicro, guard);
  return { recipient: quoted.recipient, chargeMicro: quoted.chargeMicro, details: quoted.details };
}

/** The purchase: a replay answered as its earlier order, or prepared, placed, sent and settled. */
async function buy<T extends string, R, D>(
  p: PipelineContext,
  product: Purchasable<T, R, D>,
  { caller, item, guard, quoteId, idempotencyKey = null }: PurchaseRequest<R>,
): Promise<Placed<OrderOf<T, D>>> {
  const { db } = p;
  const key = checkKey(idempotencyKey);
  const hash = requestHash(product.type, product.identify(item));
  const replay = (order: Order, balanceAfterMicro: Micro) => ({ order: asProduct(order, product), replay: true, balanceAfterMicro });
  // A replay is looked up before anything that needs a provider, so it answers even while the provider is down.
  // Where the placement is one statement and prepare asks no provider, that statement finds it instead: one
  // round trip fewer for every keyed purchase on PostgreSQL.
  if (key && !(product.preparesOffline && p.oneStatement && placeableAtOnce(caller, quoteId))) {
    const earlier = await findReplay(db, caller.account.id, key, hash);
    if (earlier) return replay(earlier, await availableNow(p, caller, true));
  }
  const buyer = await current(db, caller);
  let prepared: Prepared<D>;
  let placing: Placing;
  try {
    // A quote's refusal costs no provider call; its charge then stands whatever the live price is now.
    const bound = quoteId ? await p.quotes.usable(caller.account.id, quoteId, { productType: product.type, requestHash: hash }) : null;
    const live = await product.prepare(buyer, item);
    prepared = bound ? withQuote(live, bound) : live;
    checkGuard(prepared.chargeMicro, guard);
    placing = await place(p, { caller: buyer, type: product.type, prepared, key, hash, quoteId });
  } catch (error) {
    // A database that cannot answer now cannot be asked again either: the caller hears so at once.
    if (isDatabaseUnavailable(error)) throw error;
    // Refused now, or a concurrent identical request committed first: the earlier order is the answer.
    const earlier = key ? await findReplay(db, caller.account.id, key, hash) : undefined;
    if (earlier) return replay(earlier, await availableNow(p, caller));
    throw error;
  }
  if ("replay" in placing) return replay(placing.replay, placing.balanceAfterMicro);
  const sent = await sendAndSettle(p, buyer, prepared, placing);
  return { order: asProduct(sent.order, product), replay: false, balanceAfterMicro: sent.balanceAfterMicro };
}

/**
 * A placed order's provider call and its outcome, settled inline: the order as it is then, and what the caller
 * can spend after. Runs after the commit, outside buy's catch: nothing here may pass for a lost race.
 */
async function sendAndSettle(
  p: PipelineContext,
  buyer: Caller,
  prepared: Prepared<unknown>,
  placing: NewlyPlaced,
): Promise<{ order: Order; balanceAfterMicro: Micro }> {
  const { order, funds } = placing;
  p.lowBalance.charged(buyer.account, prepared.chargeMicro, placing.balanceAfter);
  const balanceAfterMicro = availableAfter(funds, placing.balanceAfter, prepared.chargeMicro);
  p.calling.hold(order.id, order.checkAfter!);
  try {
    const outcome = await prepared.send(order.upstreamRef);
    try {
      const settled = await p.settle(order.id, outcome, { inline: true, endpoint: placing.endpoint });
      // Refunded by this call: the balance its refund left; failed by another path meanwhile: read once.
      const settledBalance =
        settled.refundBalanceMicro !== null
          ? availableAfter(funds, settled.refundBalanceMicro, micro(0))
          : settled.order.status === "failed"
            ? await availableNow(p, buyer)
            : balanceAfterMicro;
      return { order: settled.order, balanceAfterMicro: settledBalance };
    } catch (error) {
      // The charge is committed and the provider may have delivered: never a 500 now. The order is answered
      // as still processing, and the reconciler applies the outcome from the provider later.
      p.log.warn({ orderId: order.id, err: error }, "could not record a provider's answer; the reconciler will");
      return { order, balanceAfterMicro };
    }
  } finally {
    p.calling.drop(order.id);
  }
}

/**
 * The one purchase pipeline every product runs through: replay check, prepare (rules, live reads, price),
 * place (idempotency, funds, debit and order row in one transaction), send, settle. The charge commits
 * before the provider is called, and no transaction is ever open across a provider call.
 */
export function createPurchasePipeline(options: PurchasePipelineOptions) {
  const p: PipelineContext = { ...options, calling: createClaims() };

  const pipeline = {
    /** What the purchase would charge now (see price); nothing is stored, charged or sent. */
    price: <T extends string, R, D>(product: Purchasable<T, R, D>, purchase: PurchaseRequest<R>) => price(p, product, purchase),

    /**
     * A binding quote: what the purchase would charge now (every rule and live read applied), stored for the
     * caller. A quote is not priced against another quote: the request's quoteId is not read.
     */
    async issueQuote<T extends string, R, D>(product: Purchasable<T, R, D>, purchase: PurchaseRequest<R>): Promise<BindingQuote<D>> {
      const quoted = await price(p, product, { caller: purchase.caller, item: purchase.item, guard: purchase.guard });
      return p.quotes.issue(purchase.caller.account.id, target(product, purchase.item), quoted);
    },

    buy: <T extends string, R, D>(product: Purchasable<T, R, D>, purchase: PurchaseRequest<R>) => buy(p, product, purchase),

    /** Orders whose provider call is under way in this process. */
    calling: () => p.calling.size,
    /**
     * At a stop that cut calls short: their orders are made due now (guarded, see releaseOrders), so the next
     * instance's reconciler asks the provider at once; returns their ids. Safe for money: a provider that has not
     * registered the order yet answers "not found", and that fails the order only once it is older than
     * RECONCILE_AFTER_MS (settlement's refresh), when no call sent before could still land.
     */
    release(): Promise<number[]> {
      return releaseOrders(p.db, p.calling, p.clock.now().toISOString());
    },

    /** A product's price, binding quote and buy, what every product module offers the faces. */
    offer<T extends string, R, D>(product: Purchasable<T, R, D>) {
      return {
        price: (purchase: PurchaseRequest<R>) => price(p, product, purchase),
        issueQuote: (purchase: PurchaseRequest<R>) => pipeline.issueQuote(product, purchase),
        buy: (purchase: PurchaseRequest<R>) => buy(p, product, purchase),
      };
    },
  };
  return pipeline;
}

export type PurchasePipeline = ReturnType<typeof createPurchasePipeline>;
