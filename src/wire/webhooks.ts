import { z } from "zod";
import { WEBHOOK_URL_MAX } from "../core/webhooks/endpoints.js";
import type { WebhookEndpoint, WebhookAttempt } from "../core/model/webhook.js";
import { dateTime, limitField } from "./common.js";

// The key's webhook endpoint (an addition to the contract): one endpoint per key, its secret shown once, its
// delivery attempts. The events themselves are wire/events.ts.

export const webhookBody = z.object({
  url: z
    .string({ error: (issue) => (issue.input === undefined ? "url is required" : "url must be a string") })
    .trim()
    .min(1, "url must not be empty")
    .max(WEBHOOK_URL_MAX, `url must be at most ${WEBHOOK_URL_MAX} characters`)
    .describe("Where events are POSTed: https:// (http:// only to this machine, in development)"),
});

export const webhookView = z
  .object({
    url: z.string(),
    enabled: z.boolean().describe("False once deliveries gave up (after about a day of failures); setting the URL again enables it"),
    disabled_at: dateTime.nullable(),
    disabled_reason: z.string().nullable(),
    previous_secret_until: dateTime.nullable().describe("After a rotation: until when the previous secret also signs"),
    pending_events: z.number().int().describe("Events not yet delivered"),
    pending_limit: z
      .number()
      .int()
      .describe("The most events that may wait: past it, new events are not queued but counted in dropped_events (catch up from GET /v1/orders)"),
    dropped_events: z.number().int().describe("Events never queued because pending_limit events were waiting"),
    last_dropped_at: dateTime.nullable(),
    failing_since: dateTime.nullable().describe("Since when every attempt has failed (the endpoint is backed off as a whole), or null"),
    retry_at: dateTime.nullable().describe("While failing: when the endpoint is tried next, with one event"),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: "Webhook" });

export const webhookResponse = z.object({ success: z.literal(true), webhook: webhookView.nullable() });

export const webhookSetResponse = z.object({
  success: z.literal(true),
  webhook: webhookView,
  secret: z.string().optional().describe("Only when the endpoint is first set: the signing secret, shown this once"),
});

export const webhookRemovedResponse = z.object({ success: z.literal(true), removed: z.boolean() });

export const webhookSecretResponse = z.object({
  success: z.literal(true),
  secret: z.string().describe("The new signing secret, shown this once"),
  previous_secret_until: dateTime.describe("Until then the previous secret signs too (two v1 signatures)"),
});

export const webhookPingResponse = z.object({
  success: z.literal(true),
  event_id: z.string(),
  delivered: z.boolean().describe("True when the endpoint answered 2xx"),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
});

export const webhookAttemptsQuery = z.object({
  limit: limitField,
  before: z
    .string()
    .regex(/^[1-9]\d{0,14}$/, "before must be an attempt id (a whole number of at least 1)")
    .transform(Number)
    .optional(),
});

export const webhookAttemptsResponse = z.object({
  success: z.literal(true),
  count: z.number().int(),
  attempts: z.array(
    z
      .object({
        attempt_id: z.number().int(),
        event_id: z.string(),
        event_type: z.string(),
        order_id: z.number().int().nullable(),
        test: z.boolean(),
        url: z.string(),
        attempted_at: dateTime,
        status_code: z.number().int().nullable(),
        succeeded: z.boolean(),
        error: z.string().nullable(),
        duration_ms: z.number().int(),
      })
      .meta({ id: "WebhookAttempt" }),
  ),
  next_before: z.number().int().nullable().describe("Pass as `before` for the next (older) page; null on the last page"),
});

export const webhookEndpointView = (endpoint: WebhookEndpoint, pending: { count: number; limit: number }): z.infer<typeof webhookView> => ({
  url: endpoint.url,
  enabled: endpoint.enabled,
  disabled_at: endpoint.disabledAt,
  disabled_reason: endpoint.disabledReason,
  previous_secret_until: endpoint.previousSecretUntil,
  pending_events: pending.count,
  pending_limit: pending.limit,
  dropped_events: endpoint.droppedEvents,
  last_dropped_at: endpoint.lastDroppedAt,
  failing_since: endpoint.failingSince,
  retry_at: endpoint.retryAt,
  created_at: endpoint.createdAt,
  updated_at: endpoint.updatedAt,
});

export const webhookPingView = (ping: {
  eventId: string;
  delivered: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}): z.infer<typeof webhookPingResponse> => ({
  success: true as const,
  event_id: ping.eventId,
  delivered: ping.delivered,
  status_code: ping.statusCode,
  error: ping.error,
  duration_ms: Math.round(ping.durationMs),
});

/** A page of attempts; a full page may have an older one after it. */
export const webhookAttemptsView = (attempts: WebhookAttempt[], limit: number): z.infer<typeof webhookAttemptsResponse> => ({
  success: true as const,
  count: attempts.length,
  attempts: attempts.map((a) => ({
    attempt_id: a.id,
    event_id: a.eventId,
    event_type: a.eventType,
    order_id: a.orderId,
    test: a.test,
    url: a.url,
    attempted_at: a.attemptedAt,
    status_code: a.statusCode,
    succeeded: a.succeeded,
    error: a.error,
    duration_ms: a.durationMs,
  })),
  next_before: attempts.length === limit ? attempts[attempts.length - 1].id : null,
});
