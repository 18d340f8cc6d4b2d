import type { Micro } from "../core/model/money.js";
import type { PortName } from "../core/ports.js";
import type { FaultKind } from "../core/model/errors.js";

/**
 * What an administrator alert says, typed: the monitor job fills it, the bot words it, the log records it.
 * Amounts stay micro-USDT until a face formats them.
 */
export type AlertDetails =
  /** A product's backend (or the rates' source) fails its health check: named apart, stars from Premium. */
  | { kind: "provider"; product: PortName; backend: string }
  | { kind: "refunds"; count: number; minutes: number; threshold: number }
  | { kind: "wallet"; balanceMicro: Micro; thresholdMicro: Micro }
  | { kind: "stuck"; count: number; oldest: { orderId: number; product: string; since: string } | null }
  /** Orders held for an administrator: the backend's records cannot tell whether they were delivered. */
  | { kind: "held"; count: number; oldest: { orderId: number; product: string; since: string } | null }
  | { kind: "ledger"; accounts: number; accountId: number | null }
  | { kind: "cryptopay" }
  /** A backend's own balance (the bot's Stars, the Reloadly account's USD) under its line: deliveries will soon be refused. */
  | { kind: "funds"; source: "stars" | "reloadly"; amount: number; unit: "stars" | "USD"; threshold: number }
  | { kind: "invoices"; unpaid: number; hours: number; threshold: number }
  | { kind: "anomalies"; count: number; hours: number; latest: { invoiceId: number; kind: string } | null }
  /** The bot's Star book differs from Telegram's transactions or balance (the last reconciliation's first difference). */
  | { kind: "starbook"; differences: number; first: string | null; balance: number | null; book: number | null }
  /** Stars payments booked with no top-up to credit, in the last `hours`. */
  | { kind: "unmatched"; count: number; hours: number; latest: string | null }
  /** Stars top-ups Telegram refunded whose credit was spent: what the balances could not give back, in the last `hours`. */
  | { kind: "shortrefunds"; count: number; hours: number; shortMicro: Micro; topupId: number | null }
  /** This instance's statements met database faults since the last check (the last one's kind and the engine's words). */
  | { kind: "database"; fault: FaultKind | null; count: number; cause: string | null };

/** One change to tell administrators: a condition started firing, is still firing (a reminder), or stopped. */
export interface Alert {
  key: string;
  state: "firing" | "reminder" | "resolved";
  details: AlertDetails;
  /** Alerts held back by the hourly limit since the last one sent. */
  suppressed: number;
}
