export { createClient } from "./client.js";
export type {
  Answer,
  BindingQuote,
  ClientOptions,
  GameOrder,
  GamePurchase,
  GiftOrder,
  GiftPurchase,
  GiftcardOrder,
  GiftcardPurchase,
  LedgerEntry,
  LedgerExport,
  LedgerStatement,
  Order,
  OrderSummary,
  PartnerClient,
  PremiumPurchase,
  PurchaseResponse,
  Query,
  QuoteRequest,
  RequestBody,
  StarsPurchase,
  StoreOrder,
  StorePurchase,
  Topup,
  Webhook,
  WebhookAttempt,
} from "./client.js";
export {
  IdempotencyKeyReuseError,
  PartnerApiError,
  PartnerClientError,
  PartnerConnectionError,
  PartnerTimeoutError,
  PurchaseFailedError,
  WebhookVerificationError,
} from "./errors.js";
export type { ErrorBody, ErrorCode, FailedOrder, InsufficientFundsBody, WebhookRefusal } from "./errors.js";
export { apiVersion } from "./version.js";
export { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verifyWebhook } from "./webhooks.js";
export type { VerifyOptions, WebhookEvent, WebhookEventType, WebhookHeaders } from "./webhooks.js";
export type { components, operations, paths, webhooks } from "./api-types.js";
