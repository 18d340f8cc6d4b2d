import { z } from "zod";
import { toUsdt } from "../core/model/money.js";
import type { StarDifference, StarReconciliation, StarSummary } from "../core/model/star-book.js";

// The bot's Star book as it leaves the process: a difference in one line (the alert, the CLI), and the summary as the
// Mini App desk's JSON.

/** A difference in a line an administrator can read (the same in every language: names and numbers). */
export function differenceLine(d: StarDifference): string {
  switch (d.what) {
    case "balance":
      return `balance: Telegram ${d.telegram}, book ${d.book}`;
    case "unbooked":
      return `${d.kind} ${d.transactionId} (${d.stars}) at Telegram, not in the book`;
    case "missing":
      return `${d.kind} ${d.transactionId} (${d.stars}) in the book, not at Telegram`;
    case "stars":
      return `${d.kind} ${d.transactionId}: Telegram ${d.telegram}, book ${d.book}`;
    case "unpaid":
      return `${d.kind} of order #${d.orderId} (${d.stars}) booked, no transaction pays it`;
  }
}

const byKind = z.record(z.string(), z.number().int());
const reconciliationView = z.object({
  at: z.string(),
  balance: z.number().int().describe("getMyStarBalance when it ran"),
  book: z.number().int().describe("The opening plus every row it counted"),
  settling: z.number().int().describe("Stars of deliveries and payments still on their way into the book"),
  opening: z.number().int(),
  transactions: z.number().int().describe("Telegram's transactions compared"),
  differences: z.array(z.string()).describe("The first differences, one line each"),
  difference_count: z.number().int(),
});

export const starBookResponse = z.object({
  success: z.literal(true),
  at: z.string(),
  balance: z.number().int().nullable().describe("The bot's Star balance now (getMyStarBalance); null when it cannot be read"),
  balance_error: z.string().nullable(),
  open_orders: z.number().int().describe("Gift and Premium orders still processing or held"),
  open_stars: z.number().int().describe("What they will spend"),
  today: z.object({ day: z.string(), in: byKind, out: byKind, net: z.number().int() }).describe("Today's (UTC) Stars in and out by kind"),
  rate_usdt: z.number().nullable().describe("USDT credited per Star paid in; null where Stars top-ups are not offered"),
  margins: z
    .array(
      z.object({
        product: z.enum(["gift", "premium"]),
        months: z.number().int().nullable(),
        price_usdt: z.number(),
        in_stars: z.number(),
        cost_stars: z.number(),
        margin_stars: z.number(),
      }),
    )
    .describe("Each product's tariff in Stars at the top-up rate, less the Stars the bot pays (a gift: per Star)"),
  last: reconciliationView.nullable().describe("The last reconciliation with Telegram, null before the first"),
});

const toReconciliationView = (r: StarReconciliation): z.infer<typeof reconciliationView> => ({
  at: r.at,
  balance: r.balance,
  book: r.book,
  settling: r.settling,
  opening: r.opening,
  transactions: r.transactions,
  differences: r.differences.map(differenceLine),
  difference_count: r.differenceCount,
});

export const toStarBookView = (s: StarSummary): z.infer<typeof starBookResponse> => ({
  success: true,
  at: s.at,
  balance: s.balance,
  balance_error: s.balanceError,
  open_orders: s.open.orders,
  open_stars: s.open.stars,
  today: { day: s.today.day, in: s.today.in, out: s.today.out, net: s.today.net },
  rate_usdt: s.rateMicro === null ? null : toUsdt(s.rateMicro),
  margins: s.margins.map((m) => ({
    product: m.product,
    months: m.months,
    price_usdt: toUsdt(m.priceMicro),
    in_stars: m.inStars,
    cost_stars: m.costStars,
    margin_stars: m.marginStars,
  })),
  last: s.last ? toReconciliationView(s.last) : null,
});
