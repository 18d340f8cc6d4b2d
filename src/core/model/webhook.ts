export interface WebhookEndpoint {
  url: string;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  /** Until when the previous secret still signs (after a rotation), or null. */
  previousSecretUntil: string | null;
  /** Since when every attempt has failed (the breaker is open), or null. */
  failingSince: string | null;
  /** While the breaker is open: when the endpoint is probed next. */
  retryAt: string | null;
  /** Events not queued because the account already had the most it may have waiting, and when the last was. */
  droppedEvents: number;
  lastDroppedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The secrets of an endpoint as stored: sealed by the vault. */
export interface SealedSecrets {
  secretSealed: string;
  previousSecretSealed: string | null;
  /** Until when the previous secret still signs (after a rotation), or null. */
  previousSecretUntil: string | null;
}

/** An endpoint as stored: what its owner sees, and its sealed secrets. */
export interface StoredEndpoint extends WebhookEndpoint, SealedSecrets {}

/** One attempt as the account's attempt list shows it. */
export interface WebhookAttempt {
  id: number;
  eventId: string;
  eventType: string;
  orderId: number | null;
  test: boolean;
  url: string;
  attemptedAt: string;
  statusCode: number | null;
  succeeded: boolean;
  error: string | null;
  durationMs: number;
}
