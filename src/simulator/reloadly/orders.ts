import { randomBytes, randomInt, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { SimContext } from "../context.js";
import { ACCOUNT_CURRENCY, PRODUCTS, senderPrice, type Product } from "./catalogue.js";
import { page } from "./page.js";
import { PRODUCT_NOT_FOUND } from "./products.js";
import { type Account, amount, type Held, hostPath, type ReloadlyState, reloadlyError, stamp, type Status, type Transaction } from "./state.js";

// Orders and what follows them (docs/providers/reloadly-giftcards.md): POST /orders answering a transaction, GET
// /orders/transactions/{id}/cards (the redeem codes), GET /reports/transactions[/{id}], GET /accounts/balance.
//
// Test inputs, by the local part of recipientEmail (docs/providers/reloadly-simulator.md):
//   fail_…      FAILED at once, nothing charged
//   slow_…      PROCESSING, SUCCESSFUL about 20 s later (times the scale)
//   slowfail_…  PROCESSING, REFUNDED about 20 s later: charged, then credited back
//   pending_…   PENDING until POST /reloadly/control/transactions/{id}/settle ends it
// and the faults of provider "reloadly" (fail_next as fail_, drop_next, hang_after_accept).

/** PROCESSING settling in about 20 s is what R10 saw in the sandbox for cards issued on demand. */
const SETTLE_MS = 20_000;

const orderSchema = z.object({
  productId: z.number().int(),
  countryCode: z
    .string()
    .regex(/^[A-Za-z]{2}$/)
    .optional(),
  quantity: z.number().int().min(1),
  unitPrice: z.number().positive(),
  customIdentifier: z.string().min(1).max(150).optional(),
  senderName: z.string().min(1),
  recipientEmail: z.email().nullish(),
  recipientPhoneDetails: z.object({ countryCode: z.string(), phoneNumber: z.string() }).optional(),
  preOrder: z.boolean().optional(),
  productAdditionalRequirements: z.record(z.string(), z.unknown()).optional(),
});
type OrderRequest = z.infer<typeof orderSchema>;

type Outcome = { now: Status; later: { to: Status; ms: number } | null; charged: boolean };

function outcome(email: string | null | undefined, failNext: boolean): Outcome {
  const local = (email ?? "").toLowerCase();
  if (failNext || local.startsWith("fail_")) return { now: "FAILED", later: null, charged: false };
  if (local.startsWith("slowfail_")) return { now: "PROCESSING", later: { to: "REFUNDED", ms: SETTLE_MS }, charged: true };
  if (local.startsWith("slow_")) return { now: "PROCESSING", later: { to: "SUCCESSFUL", ms: SETTLE_MS }, charged: true };
  if (local.startsWith("pending_")) return { now: "PENDING", later: null, charged: true };
  return { now: "SUCCESSFUL", later: null, charged: true };
}

const cardNumber = () => randomBytes(10).toString("hex").toUpperCase().slice(0, 16).match(/.{4}/g)!.join("-");

/** The prices of an order: fee and discount per card (R10), the amount deducted = cards + fees − discount. */
function price(product: Product, body: OrderRequest, unit: number) {
  const fee = amount(body.quantity * (product.senderFee + (unit * product.senderFeePercentage) / 100));
  const discount = amount((body.quantity * unit * product.discountPercentage) / 100);
  return { fee, discount, total: amount(body.quantity * unit + fee - discount) };
}

function transaction(state: ReloadlyState, account: Account, product: Product, body: OrderRequest, unit: number, result: Outcome): Transaction {
  const { fee, discount, total } = price(product, body, unit);
  const oldBalance = account.balance;
  if (result.charged) {
    account.balance = amount(account.balance - total);
    account.updatedAt = stamp();
  }
  const phone = body.recipientPhoneDetails;
  return {
    transactionId: state.nextTransactionId++,
    amount: total,
    discount,
    currencyCode: ACCOUNT_CURRENCY.code,
    fee,
    smsFee: 0,
    totalFee: fee,
    preOrdered: false,
    recipientEmail: body.recipientEmail ?? null,
    recipientPhone: phone ? `${phone.countryCode}${phone.phoneNumber}` : null,
    customIdentifier: body.customIdentifier ?? randomUUID(),
    status: result.now,
    transactionCreatedTime: stamp(),
    product: {
      productId: product.productId,
      productName: product.productName,
      countryCode: product.country.isoName,
      quantity: body.quantity,
      unitPrice: body.unitPrice,
      totalPrice: amount(body.quantity * body.unitPrice),
      currencyCode: product.recipientCurrencyCode,
      brand: product.brand,
    },
    balanceInfo: {
      oldBalance,
      newBalance: account.balance,
      cost: result.charged ? total : 0,
      currencyCode: ACCOUNT_CURRENCY.code,
      currencyName: ACCOUNT_CURRENCY.name,
      updatedAt: account.updatedAt,
    },
  };
}

async function placeOrder(sim: SimContext, state: ReloadlyState, account: Account, prefix: string, request: FastifyRequest, reply: FastifyReply) {
  const path = hostPath(request, prefix);
  const parsed = orderSchema.safeParse(request.body);
  // The status of a refused input is the published 400; its errorCode is R10's (UNCONFIRMED), its wording the simulator's.
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join(".") ?? "body";
    return reloadlyError(reply, 400, path, `Invalid input provided: ${field}`, "INVALID_INPUT_PROVIDED");
  }
  const body = parsed.data;
  const product = PRODUCTS.find((p) => p.productId === body.productId);
  if (!product) return reloadlyError(reply, 400, path, PRODUCT_NOT_FOUND, "PRODUCT_NOT_FOUND");
  const unit = senderPrice(product, body.unitPrice);
  if (unit === null) return reloadlyError(reply, 400, path, "Invalid price, please ensure you selected the right price.");
  const used = body.customIdentifier && [...account.byId.values()].some((h) => h.transaction.customIdentifier === body.customIdentifier);
  if (used) {
    const message = "The custom identifier provided has already been used. Please provide a new, unique custom identifier";
    return reloadlyError(reply, 400, path, message, "CUSTOM_IDENTIFIER_ALREADY_USED");
  }
  if (price(product, body, unit).total > account.balance) {
    return reloadlyError(reply, 400, path, "Insufficient funds in the wallet to complete this transaction", "INSUFFICIENT_BALANCE");
  }
  const fault = await sim.orderFault("reloadly", reply);
  if (fault === "dropped") return reply;
  const result = outcome(body.recipientEmail, fault === "fail_next");
  const held: Held = {
    transaction: transaction(state, account, product, body, unit, result),
    cards:
      result.now === "FAILED"
        ? []
        : Array.from({ length: body.quantity }, () => ({ cardNumber: cardNumber(), pinCode: String(randomInt(100000, 1000000)) })),
    settle: result.later && { at: Date.now() + result.later.ms * sim.scale, to: result.later.to },
    charged: result.charged,
  };
  account.byId.set(held.transaction.transactionId, held);
  if (fault === "hang_after_accept") await sim.hang();
  return held.transaction;
}

interface TransactionFilters {
  page?: string;
  size?: string;
  customIdentifier?: string;
  status?: string;
  productId?: string;
  productName?: string;
  brandId?: string;
  brandName?: string;
  recipientEmail?: string;
  startDate?: string;
  endDate?: string;
}

function transactions(account: Account, q: TransactionFilters): Transaction[] {
  const same = (a: string | null | undefined, b: string | undefined) => b === undefined || (a ?? "").toLowerCase() === b.toLowerCase();
  return [...account.byId.values()]
    .map((h) => h.transaction)
    .filter(
      (t) =>
        same(t.customIdentifier, q.customIdentifier) &&
        same(t.status, q.status) &&
        same(String(t.product.productId), q.productId) &&
        same(t.product.productName, q.productName) &&
        same(String(t.product.brand.brandId), q.brandId) &&
        same(t.product.brand.brandName, q.brandName) &&
        same(t.recipientEmail, q.recipientEmail) &&
        (!q.startDate || t.transactionCreatedTime >= q.startDate) &&
        (!q.endDate || t.transactionCreatedTime <= q.endDate),
    );
}

export function orderRoutes(app: FastifyInstance, sim: SimContext, state: ReloadlyState, account: Account, prefix: string): void {
  const byId = (id: string) => account.byId.get(Number(id));

  app.post("/orders", async (request, reply) => placeOrder(sim, state, account, prefix, request, reply));

  // Codes of a SUCCESSFUL transaction, one element per card (R6, R7). Before it succeeds, or after it failed, the
  // answer is not published (R10: "404 or an empty list"): the simulator answers an empty list.
  app.get<{ Params: { id: string } }>("/orders/transactions/:id/cards", async (request, reply) => {
    const held = byId(request.params.id);
    if (!held) return reloadlyError(reply, 404, hostPath(request, prefix), "Invalid transaction id");
    return held.transaction.status === "SUCCESSFUL" ? held.cards : [];
  });

  app.get<{ Querystring: TransactionFilters }>("/reports/transactions", async (request) => page(transactions(account, request.query), request.query));

  app.get<{ Params: { id: string } }>("/reports/transactions/:id", async (request, reply) => {
    const held = byId(request.params.id);
    return held?.transaction ?? reloadlyError(reply, 404, hostPath(request, prefix), "Gift Card transaction not found");
  });

  app.get("/accounts/balance", async () => ({
    balance: account.balance,
    currencyCode: ACCOUNT_CURRENCY.code,
    currencyName: ACCOUNT_CURRENCY.name,
    updatedAt: account.updatedAt,
  }));
}
