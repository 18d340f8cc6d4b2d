import type { ColumnType, Generated, Selectable } from "kysely";
import type { LedgerKind } from "../core/model/ledger.js";
import type { TopupMethod, TopupStatus } from "../core/model/topup.js";

/**
 * Money columns are BIGINT micro-USDT, read as exact numbers on both engines (see database.ts); flags are
 * booleans (0/1 integers in SQLite, converted at the driver); times are ISO 8601 UTC text with milliseconds
 * (`2026-11-22T21:55:09.123Z`), one fixed width, so they compare as text on both engines.
 */
type Flag = boolean;

interface AccountsTable {
  id: Generated<number>;
  /** `standard` spends its own balance; `owner` spends the service wallet; `wallet` is that one wallet. */
  kind: "standard" | "owner" | "wallet";
  telegram_id: string | null;
  username: string | null;
  balance_micro: ColumnType<number, number | undefined, number>;
  blocked: ColumnType<Flag, Flag | undefined, Flag>;
  daily_limit_micro: number | null;
  order_limit_micro: number | null;
  markup_store_bp: number | null;
  markup_games_bp: number | null;
  markup_giftcards_bp: number | null;
  /** Bot language chosen with /language; null follows the user's Telegram language. */
  language: string | null;
  /** The language Telegram last reported for the user (its language_code); what they read until they choose one. */
  telegram_language: string | null;
  /** Whether the bot tells the user when a purchase takes the balance below the low-balance line. */
  low_balance_notice: ColumnType<Flag, Flag | undefined, Flag>;
  created_at: string;
  /** Bumped when the key is rotated or the account blocked or unblocked: Mini App sessions of an older one are ended. */
  session_generation: ColumnType<number, number | undefined, number>;
}

interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  display_prefix: string;
  created_at: string;
  /** When it stopped being the account's live key (replaced); null while it is. */
  revoked_at: string | null;
  /** A replaced key keeps answering until then (its rotation's grace period); null: not past revoked_at. */
  grace_until: string | null;
}

interface LedgerEntriesTable {
  id: Generated<number>;
  account_id: number;
  order_id: number | null;
  kind: LedgerKind;
  /** Signed: credits and refunds are positive, charges and debits negative. */
  amount_micro: number;
  balance_after_micro: number;
  actor: string;
  note: string | null;
  created_at: string;
  /** The top-up a `topup` entry credits or a `reversal` takes back (one of each kind: a top-up is credited once). */
  topup_id: number | null;
}

type OrderStatus = "processing" | "completed" | "failed";

interface OrdersTable {
  id: Generated<number>;
  /** The account whose key placed the order. */
  account_id: number;
  /** The account whose balance paid: the same account, or the service wallet for an owner key. */
  funding_account_id: number;
  product_type: string;
  status: OrderStatus;
  idempotency_key: string | null;
  /** SHA-256 of the product type and the identifying fields; with the idempotency key it decides a replay. */
  request_hash: string;
  recipient: string;
  /** Product-specific fields and the prices the charge was computed from, as JSON. */
  details: string;
  charge_micro: number;
  /** Our reference for the upstream call, generated and stored before the call. */
  upstream_ref: string;
  transaction_id: string | null;
  provider_order_id: string | null;
  provider_status: string | null;
  /** Gift card codes, encrypted (see core/vault.ts); never logged, never in a list. */
  sealed_codes: string | null;
  error: string | null;
  error_code: string | null;
  refunded: ColumnType<Flag, Flag | undefined, Flag>;
  /** When the reconciler may next ask the upstream about a `processing` order. */
  check_after: string | null;
  check_attempts: ColumnType<number, number | undefined, number>;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** The backend that took the order (`protocol`, `telegram`, `reloadly`); null: placed before backends were recorded. */
  backend: ColumnType<string | null, string | null | undefined, string | null>;
  /** The recipient as that backend addresses them (Telegram: the user id), fixed before the charge. */
  recipient_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Why the order is held for an administrator; null when it is not. */
  held: ColumnType<string | null, string | null | undefined, string | null>;
}

interface AuditLogTable {
  id: Generated<number>;
  actor: string;
  action: string;
  account_id: number | null;
  details: string;
  created_at: string;
}

interface BotStateTable {
  key: string;
  value: string;
  updated_at: string;
}

interface RateLimitsTable {
  /** `account:<id>` or `ip:<address>`. */
  key: string;
  /** Start of the fixed window, in ms since the epoch. */
  window_start: number;
  hits: number;
}

export interface WebhookEndpointsTable {
  account_id: number;
  url: string;
  /** Sealed with the codes key (core/vault.ts). */
  secret_sealed: string;
  /** The secret before the last rotation: it signs beside the new one until `previous_secret_until`. */
  previous_secret_sealed: string | null;
  previous_secret_until: string | null;
  /** Set when deliveries gave up; events wait until the endpoint is set again. */
  disabled_at: string | null;
  disabled_reason: string | null;
  /** When the endpoint may be attempted next: the breaker's wait after failures, or an instance's lease on it. */
  ready_at: Generated<string>;
  /** Failed turns in a row (the breaker), and when the first of them failed. */
  failures: Generated<number>;
  failing_since: string | null;
  /** Events the pending cap turned away, and the last time it did. */
  dropped_events: Generated<number>;
  last_dropped_at: string | null;
  created_at: string;
  updated_at: string;
}

type WebhookEventStatus = "pending" | "delivered" | "failed";

export interface WebhookEventsTable {
  id: Generated<number>;
  /** `evt_…`: what the receiver deduplicates on. */
  event_id: string;
  account_id: number;
  type: string;
  order_id: number | null;
  test_event: ColumnType<Flag, Flag | undefined, Flag>;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: WebhookEventStatus;
  attempts: ColumnType<number, number | undefined, number>;
  /** When a pending event is next due; a claim moves it one lease ahead. */
  next_attempt_at: string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: number;
  account_id: number;
  url: string;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  succeeded: Flag;
}

interface QuotesTable {
  /** `q_` and 24 random base64url characters: unguessable, so only the account it was given to knows it. */
  id: string;
  account_id: number;
  product_type: string;
  /** The same hash of the product type and identifying fields as orders.request_hash: what the quote is for. */
  request_hash: string;
  recipient: string;
  /** The product's details as quoted (the prices the charge was computed from), as JSON; the order keeps them. */
  details: string;
  charge_micro: number;
  created_at: string;
  expires_at: string;
  /** The order that used the quote; null while unused. */
  order_id: number | null;
}

interface AlertStatesTable {
  /** What is alerted on: `provider:<product>`, `refunds`, `wallet`, `stuck`, `ledger`. */
  key: string;
  firing: Flag;
  /** When it last started or stopped firing. */
  since: string;
  last_sent_at: string | null;
  details: string | null;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  ledger_entries: LedgerEntriesTable;
  orders: OrdersTable;
  audit_log: AuditLogTable;
  bot_state: BotStateTable;
  bot_inbox: BotInboxTable;
  rate_limits: RateLimitsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
  quotes: QuotesTable;
  alert_states: AlertStatesTable;
  health_probes: HealthProbesTable;
  topups: TopupsTable;
  star_book: StarBookTable;
  star_book_checks: StarBookChecksTable;
  topup_notices: TopupNoticesTable;
  payment_anomalies: PaymentAnomaliesTable;
  telegram_contacts: TelegramContactsTable;
}

/** A user the bot has seen in a private chat, as the last update showed them (src/db/telegram-contacts.ts). */
interface TelegramContactsTable {
  telegram_id: string;
  username: string | null;
  /** `lower(username)`, what a lookup by @name reads (indexed). */
  username_lower: string | null;
  first_name: string;
  last_name: string | null;
  is_premium: ColumnType<Flag, Flag | undefined, Flag>;
  /** When the bot last saw them; a username held by several ids names the latest. */
  seen_at: string;
}

/** One update Telegram gave the bot, from its arrival until it was handled (src/db/bot-inbox.ts). */
interface BotInboxTable {
  update_id: number;
  /** What orders it: the chat's id (or the sender's, or `u:<update_id>` for an update with neither). */
  chat: string;
  /** The update as Telegram sent it (JSON). */
  payload: string;
  received_at: string;
  /** Until when the instance handling it holds it (the database's clock); null when nobody does. */
  lease_until: string | null;
  lease_owner: string | null;
  attempts: Generated<number>;
  /** When its reply (a message into its chat) went out; a re-run skips an update that has one. */
  replied_at: string | null;
  done_at: string | null;
}

interface HealthProbesTable {
  key: string;
  result: string | null;
  probed_at: string;
  claimed_until: string | null;
}

export interface TopupsTable {
  id: Generated<number>;
  account_id: number;
  method: TopupMethod;
  status: TopupStatus;
  amount_micro: number;
  credited_micro: number | null;
  invoice_id: number | null;
  pay_url: string | null;
  web_app_url: string | null;
  expires_at: string | null;
  reference: string | null;
  /** The reference reduced to its letters and digits: how a reference used twice is found. */
  reference_key: string | null;
  decided_by: string | null;
  reason: string | null;
  check_after: string | null;
  created_at: string;
  updated_at: string;
  credited_at: string | null;
  stars: number | null;
  /** The Stars invoice's payload (unique): what a pre-checkout and a payment name. */
  payload: string | null;
  /** telegram_payment_charge_id (unique): a payment is credited once. */
  charge_id: string | null;
  payer_id: string | null;
  reversed_micro: number | null;
}

/** Every Star the bot receives (positive) or spends (negative), one row per Telegram transaction and kind. */
export interface StarBookTable {
  id: Generated<number>;
  kind: "payment" | "refund" | "gift" | "premium" | "other" | "opening";
  stars: number;
  transaction_id: string | null;
  topup_id: number | null;
  order_id: number | null;
  user_id: string | null;
  /** The transaction's date at Telegram (unix seconds); the opening's: the last date it includes. */
  telegram_date?: number | null;
  created_at: string;
}

/** The last reconciliation of the Star book (key `last`), as JSON. */
interface StarBookChecksTable {
  key: string;
  at: string;
  result: string;
}

/** A message an administrator got about a transfer, edited by whichever instance sees it decided or cancelled. */
interface TopupNoticesTable {
  topup_id: number;
  chat_id: string;
  message_id: number;
}

/** What Crypto Pay told us that matches no top-up as it should: logged, alerted, never credited. */
interface PaymentAnomaliesTable {
  invoice_id: number;
  topup_id: number | null;
  kind: string;
  details: string;
  created_at: string;
}

export type AccountRow = Selectable<AccountsTable>;
export type OrderRow = Selectable<OrdersTable>;
export type QuoteRow = Selectable<QuotesTable>;
