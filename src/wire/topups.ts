import { z } from "zod";
import { REFERENCE_MAX } from "../core/topups/transfers.js";
import type { Topup } from "../core/model/topup.js";
import { hasMicroPrecision, MAX_USDT, toUsdt } from "../core/model/money.js";
import { dateTime, expect, limitField } from "./common.js";

// Top-ups (an addition to the contract): a Crypto Pay invoice the key's owner pays, or a transfer they state for
// an administrator to approve. Either is credited once, as a `topup` ledger entry.

export const topupBody = z.object({
  amount_usdt: z
    .number(expect("amount_usdt", "a number"))
    .positive("amount_usdt must be more than 0")
    .max(MAX_USDT, `amount_usdt must be at most ${MAX_USDT}`)
    .refine(hasMicroPrecision, "amount_usdt must have at most 6 decimals")
    .describe("How much to top up, in USDT, within the documented bounds"),
  method: z
    .enum(["invoice", "transfer"], { error: 'method must be "invoice" or "transfer"' })
    .optional()
    .describe(
      "invoice: a Crypto Pay invoice, credited when paid (the default where offered). transfer: you paid another way; an administrator approves it",
    ),
  reference: z
    .string(expect("reference", "a string"))
    .max(REFERENCE_MAX, `reference must be at most ${REFERENCE_MAX} characters`)
    .optional()
    .describe("transfer only (required): the transaction id or a note the administrator can check"),
});

export const topupIdParams = z.object({
  topup_id: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "topup_id must be a whole number of at least 1")
    .transform(Number),
});

export const topupsQuery = z.object({
  limit: limitField,
  before: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "before must be a top-up id (a whole number of at least 1)")
    .transform(Number)
    .optional(),
});

export const topupView = z
  .object({
    topup_id: z.number().int(),
    method: z.enum(["invoice", "transfer", "stars"]).describe("stars: paid in Telegram Stars, in the bot or the Mini App"),
    status: z
      .enum(["creating", "active", "pending", "credited", "expired", "cancelled", "rejected", "failed", "refunding", "refunded"])
      .describe(
        "invoice: active (waiting to be paid), credited (paid, the amount received added), expired, cancelled, failed (not made). transfer: pending, credited (approved), rejected, cancelled. stars: active, credited, expired, cancelled, refunding, refunded (the Stars given back, the credit reversed)",
      ),
    stars: z.number().int().nullable().describe("stars only: the Stars the invoice asks"),
    amount_usdt: z.number(),
    credited_usdt: z.number().nullable().describe("What was added to the balance, once credited"),
    invoice_id: z.number().int().nullable(),
    pay_url: z.string().nullable().describe("Open it to pay (in Telegram, @CryptoBot)"),
    web_app_url: z.string().nullable(),
    expires_at: dateTime.nullable(),
    reference: z.string().nullable(),
    reason: z.string().nullable().describe("Why a transfer was rejected"),
    created_at: dateTime,
    credited_at: dateTime.nullable(),
  })
  .meta({ id: "Topup" });

export const topupResponse = z.object({ success: z.literal(true), topup: topupView });

export const topupsResponse = z.object({
  success: z.literal(true),
  count: z.number().int(),
  topups: z.array(topupView),
  next_before: z.number().int().nullable().describe("Pass as `before` for the next (older) page; null on the last page"),
});

export const toTopupView = (topup: Topup): z.infer<typeof topupView> => ({
  topup_id: topup.id,
  method: topup.method,
  status: topup.status,
  amount_usdt: toUsdt(topup.amountMicro),
  credited_usdt: topup.creditedMicro === null ? null : toUsdt(topup.creditedMicro),
  invoice_id: topup.invoiceId,
  pay_url: topup.payUrl,
  web_app_url: topup.webAppUrl,
  expires_at: topup.expiresAt,
  reference: topup.reference,
  reason: topup.reason,
  created_at: topup.createdAt,
  credited_at: topup.creditedAt,
  stars: topup.stars,
});

export const topupsView = (topups: Topup[], limit: number): z.infer<typeof topupsResponse> => ({
  success: true as const,
  count: topups.length,
  topups: topups.map(toTopupView),
  next_before: topups.length === limit ? topups[topups.length - 1].id : null,
});
