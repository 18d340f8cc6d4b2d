import { z } from "zod";
import { USERNAME_MAX, USERNAME_MIN, USERNAME_PATTERN } from "../core/formats.js";
import { type Account, KEY_GRACE_MAX_HOURS } from "../core/model/account.js";
import { toUsdt } from "../core/model/money.js";
import type { ListedOrder } from "../core/model/products.js";
import { REFERENCE_MAX, type TransferReview } from "../core/topups/transfers.js";
import type { Topup } from "../core/model/topup.js";
import { dateTime } from "./common.js";
import { orderSummary, summaryView } from "./orders.js";
import type { StarsOffer } from "../core/topups/stars.js";
import { topupBody, toTopupView, topupView } from "./topups.js";

// The Mini App's own bodies (the shop and the account use the API's routes and views; these are sign-in, the key
// and the admin desk, which the API has no place for).

export const sessionBody = z.object({
  init_data: z.string().min(1, "init_data is required").max(4096, "init_data must be at most 4096 characters"),
});

export const sessionResponse = z.object({
  success: z.literal(true),
  token: z.string().describe("Send as Authorization: Bearer <token> to the Mini App's and the API's routes; it ends at expires_at"),
  expires_at: z.string(),
  user: z.object({ telegram_id: z.string(), username: z.string().nullable(), language: z.string().nullable() }),
});

const starsOfferView = z.object({
  usdt_per_star: z.number().describe("USDT one Star credits (STARS_TOPUP_USDT_PER_STAR)"),
  min_stars: z.number().int(),
  max_stars: z.number().int(),
  packs: z.array(z.object({ stars: z.number().int(), amount_usdt: z.number() })).describe("The packs offered, with the USDT each credits"),
});

/** The Stars offer as the page shows it (core.topups.starsOffer()). */
export const toStarsOfferView = (offer: StarsOffer | null): z.infer<typeof starsOfferView> | null =>
  offer && {
    usdt_per_star: toUsdt(offer.rateMicro),
    min_stars: offer.minStars,
    max_stars: offer.maxStars,
    packs: offer.packs.map((p) => ({ stars: p.stars, amount_usdt: toUsdt(p.amountMicro) })),
  };

export const starsTopupBody = z.object({
  stars: z
    .number({ error: "stars must be a whole number of Stars" })
    .int("stars must be a whole number of Stars")
    .positive("stars must be more than 0")
    .max(1_000_000, "stars must be at most 1000000")
    .describe("How many Stars to pay: within the offer's min_stars..max_stars"),
});

export const starsTopupResponse = z.object({
  success: z.literal(true),
  link: z.string().describe("The invoice's link (createInvoiceLink): open it with Telegram.WebApp.openInvoice"),
  topup: topupView,
});

export const meResponse = z.object({
  success: z.literal(true),
  telegram_id: z.string(),
  username: z.string().nullable(),
  language: z.enum(["en", "ru"]).describe("The language chosen in the bot (/language), else Telegram's"),
  admin: z.boolean().describe("Whether the admin desk is open to this user (ADMIN_TELEGRAM_IDS)"),
  key_prefix: z.string().nullable().describe("The live API key's display prefix, or null when none was issued"),
  balance_usdt: z.number(),
  balance_uzs: z.number().int().describe("The balance in UZS at the configured rate (as the bot shows it)"),
  balance_ton: z.number().nullable().describe("The balance in TON at the live rate, or null when the rate cannot be read"),
  topup_limits: z
    .object({ min_usdt: z.number(), max_usdt: z.number(), invoice_minutes: z.number().int() })
    .describe("A top-up's smallest and largest amount (TOPUP_MIN_USDT, TOPUP_MAX_USDT) and how long an invoice may be paid"),
  stars_topup: starsOfferView.nullable().describe("Top-ups paid in Telegram Stars, or null where they are not offered"),
});

export const checkResponse = z.object({
  success: z.literal(true),
  product_type: z.string(),
  recipient: z.string().describe("Whom or what it is for, as the purchase would name it"),
  charge_usdt: z.number().describe("What the purchase would charge now (a binding quote holds it)"),
  balance_usdt: z.number(),
  balance_after_usdt: z.number(),
});

export const formsResponse = z.object({
  success: z.literal(true),
  recipient: z
    .object({
      pattern: z.string().describe("A regular expression (JavaScript) a typed recipient must match; its group 1 is the username without the @"),
      min_length: z.number().int(),
      max_length: z.number().int(),
    })
    .describe("A Telegram username as the purchases take it (stars, Premium, gifts)"),
  gift: z.object({
    message_max: z
      .number()
      .int()
      .describe("The longest text this user may send with a gift here: the backend's bound, less the buyer's label where the shop's bot sends"),
    names_buyer: z.boolean().describe("Whether hide_name matters: false where the shop's bot is always the sender shown"),
  }),
});

/** What the Mini App's forms take, as the core decides it for this caller. */
export const toFormsView = (rules: { messageMax: number; namesBuyer: boolean }): z.infer<typeof formsResponse> => ({
  success: true,
  recipient: { pattern: USERNAME_PATTERN.source, min_length: USERNAME_MIN, max_length: USERNAME_MAX },
  gift: { message_max: rules.messageMax, names_buyer: rules.namesBuyer },
});

export const keyBody = z.object({
  init_data: sessionBody.shape.init_data.describe("Telegram's init data as the Mini App holds it now: at most 5 minutes old, for the session's user"),
  grace_hours: z
    .number({ error: "grace_hours must be a number" })
    .int("grace_hours must be a whole number of hours")
    .min(0, "grace_hours must be at least 0")
    .max(KEY_GRACE_MAX_HOURS, `grace_hours must be at most ${KEY_GRACE_MAX_HOURS} (7 days)`)
    .default(0)
    .describe("How long the previous key keeps answering beside the new one, in hours: 0 (the default) stops it at once"),
});

export const keyResponse = z.object({
  success: z.literal(true),
  key: z.string().describe("The new key: shown this once, never stored"),
  key_prefix: z.string(),
  previous_key_expires_at: dateTime
    .nullable()
    .describe("Until when the previous key keeps answering (the grace chosen); null: it stopped now (DELETE /v1/keys/previous ends a grace early)"),
  session: z
    .object({ token: z.string(), expires_at: z.string() })
    .describe("The rotation ended every session of the account: this one replaces the caller's"),
});

const volumeRow = z.object({
  product: z.string(),
  status: z.string(),
  orders: z.number().int(),
  volume_usdt: z.number(),
});

const pendingTransfer = z.object({
  topup: topupView,
  telegram_id: z.string().nullable(),
  username: z.string().nullable(),
  reference_used_by: z
    .array(z.object({ topup_id: z.number().int(), status: z.string(), telegram_id: z.string().nullable(), amount_usdt: z.number() }))
    .describe("Other transfers (any account), pending or credited, whose reference is the same once reduced to letters and digits"),
  confirm: z
    .array(z.enum(["above_threshold", "reference_reused"]))
    .describe("Why approving needs confirmed: true (above confirm_above_usdt, or a reference used before); empty: it does not"),
});

export const overviewResponse = z.object({
  success: z.literal(true),
  today: z.array(volumeRow).describe("Today's (UTC) orders and volume by product and status"),
  days: z.array(volumeRow.extend({ day: z.string() })).describe("The last 30 days, by UTC day, product and status"),
  upstreams: z.record(z.string(), z.boolean()).describe("Each product's backend (and the rates' source), ready or not in the last health round"),
  pending_transfers: z.array(pendingTransfer).describe("Transfers waiting for a decision, oldest first"),
  confirm_above_usdt: z.number().describe("Credits and debits above this need confirmed: true (as the bot asks Confirm)"),
});

export const userQuery = z.object({
  target: z.string().min(1, "target is required").max(64, "target must be at most 64 characters"),
});

export const userResponse = z.object({
  success: z.literal(true),
  telegram_id: z.string(),
  username: z.string().nullable(),
  kind: z.string(),
  blocked: z.boolean(),
  balance_usdt: z.number(),
  key_prefix: z.string().nullable(),
  orders: z.array(orderSummary),
});

export const telegramIdParams = z.object({ telegram_id: z.string().regex(/^\d{1,20}$/, "telegram_id must be a Telegram user id") });

export const moveBody = z.object({
  direction: z.enum(["credit", "debit"], { error: 'direction must be "credit" or "debit"' }),
  amount_usdt: topupBody.shape.amount_usdt,
  note: z.string().max(200, "note must be at most 200 characters").optional(),
  confirmed: z.boolean().default(false).describe("Required above confirm_above_usdt"),
});

export const moveResponse = z.object({ success: z.literal(true), balance_usdt: z.number() });

export const blockBody = z.object({ blocked: z.boolean({ error: "blocked must be true or false" }) });
export const blockResponse = z.object({ success: z.literal(true), blocked: z.boolean() });

export const decisionBody = z
  .object({
    approve: z.boolean({ error: "approve must be true or false" }),
    confirmed: z.boolean().default(false).describe("Required to approve a transfer whose confirm list is not empty"),
    reason: z.string().trim().max(REFERENCE_MAX, `reason must be at most ${REFERENCE_MAX} characters`).optional(),
  })
  .refine((body) => body.approve || Boolean(body.reason), { message: "A rejection needs a reason the user is told", path: ["reason"] });

export const decisionResponse = z.object({
  success: z.literal(true),
  decided: z.boolean().describe("False when another decision came first (topup says which)"),
  topup: topupView,
});

export const starsRefundBody = z.object({
  confirmed: z.literal(true, { error: "confirmed must be true: a refund is asked for, then confirmed" }),
});

export const deskTopupResponse = z.object({
  success: z.literal(true),
  topup: topupView,
  telegram_id: z.string().nullable().describe("Whose top-up it is"),
  username: z.string().nullable(),
  charge_id: z.string().nullable().describe("Telegram's telegram_payment_charge_id, once paid"),
  reversed_usdt: z.number().nullable().describe("What a refund took back from the balance"),
});

export const deskStarsTopupsResponse = z.object({
  success: z.literal(true),
  topups: z.array(deskTopupResponse.omit({ success: true })).describe("The user's latest Stars top-ups, newest first"),
});

export const deskTopupView = (topup: Topup, owner: { telegramId: string | null; username: string | null }) => ({
  topup: toTopupView(topup),
  telegram_id: owner.telegramId,
  username: owner.username,
  charge_id: topup.chargeId,
  reversed_usdt: topup.reversedMicro === null ? null : toUsdt(topup.reversedMicro),
});

export const volumeView = (row: { product: string; status: string; orders: number; volumeMicro: number }) => ({
  product: row.product,
  status: row.status,
  orders: row.orders,
  volume_usdt: toUsdt(row.volumeMicro),
});

export const pendingTransferView = ({
  topup,
  telegramId,
  username,
  review,
}: {
  topup: Topup;
  telegramId: string | null;
  username: string | null;
  review: TransferReview;
}) => ({
  topup: toTopupView(topup),
  telegram_id: telegramId,
  username,
  reference_used_by: review.reused.map((used) => ({
    topup_id: used.topup.id,
    status: used.topup.status,
    telegram_id: used.telegramId,
    amount_usdt: toUsdt(used.topup.amountMicro),
  })),
  confirm: review.confirm,
});

export const userView = (account: Account & { telegramId: string }, balanceMicro: number, keyPrefix: string | null, orders: ListedOrder[]) => ({
  success: true as const,
  telegram_id: account.telegramId,
  username: account.username,
  kind: account.kind,
  blocked: account.blocked,
  balance_usdt: toUsdt(balanceMicro),
  key_prefix: keyPrefix,
  orders: orders.map(summaryView),
});
