// The bot's Star book as the faces see it: a reconciliation's result and the summary (CLI `stars`, the desk).

/** What a Star transaction is to the book. */
export type StarKind = "payment" | "refund" | "gift" | "premium" | "other";

/** One way the book and Telegram differ. */
export type StarDifference =
  /** getMyStarBalance is not the book's sum (with the Stars of deliveries still under way). */
  | { what: "balance"; telegram: number; book: number }
  /** A transaction at Telegram the book has no row for. */
  | { what: "unbooked"; kind: StarKind; transactionId: string; stars: number; userId: string | null; date: number }
  /** A book row naming a transaction Telegram does not list. */
  | { what: "missing"; kind: StarKind; transactionId: string; stars: number }
  /** The same transaction, other Stars. */
  | { what: "stars"; kind: StarKind; transactionId: string; telegram: number; book: number }
  /** A delivery the book counts as spent that no transaction at Telegram pays for. */
  | { what: "unpaid"; kind: "gift" | "premium"; orderId: number; stars: number };

export interface StarReconciliation {
  at: string;
  /** getMyStarBalance. */
  balance: number;
  /** The opening plus every row the reconciliation counted. */
  book: number;
  /** Stars of transactions for deliveries still settling (not yet booked, not a difference). */
  settling: number;
  opening: number;
  /** Transactions compared (those before the opening are in it). */
  transactions: number;
  /** Rows this run added: `other` transactions, and the opening on the first run. */
  booked: number;
  /** The first differences (at most 20), and how many there were in all. */
  differences: StarDifference[];
  differenceCount: number;
}

/** What one product earns in Stars: its tariff in USDT at the top-up rate, less the Stars the bot pays for it. */
export interface StarMargin {
  product: "gift" | "premium";
  /** Premium's months; a gift is priced per Star. */
  months: number | null;
  priceMicro: number;
  /** The price in Stars at the top-up rate: what a customer pays in to buy it. */
  inStars: number;
  /** What the bot pays out for it. */
  costStars: number;
  marginStars: number;
}

export interface StarSummary {
  at: string;
  /** The bot's balance now (getMyStarBalance); null with why when it cannot be read. */
  balance: number | null;
  balanceError: string | null;
  /** Gift and Premium orders still processing or held: what they will spend. */
  open: { orders: number; stars: number };
  /** Today's (UTC) Stars in and out by kind. */
  today: { day: string; in: Partial<Record<StarKind, number>>; out: Partial<Record<StarKind, number>>; net: number };
  /** USDT credited per Star in (null: Stars top-ups are not offered, and no margin is worked out). */
  rateMicro: number | null;
  margins: StarMargin[];
  last: StarReconciliation | null;
}
