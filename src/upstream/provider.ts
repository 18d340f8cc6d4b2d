import { z } from "zod";
import { UpstreamError, type UpstreamOutcome, type UpstreamStatus } from "../core/ports.js";
import { type HttpClient, NotSentError, type UpstreamResponse } from "./http.js";

/**
 * The transport rules every provider adapter shares for an order request. An answer that says the provider
 * did not take the order is a definite failure, refunded at once: the request never left (refused
 * connection), the provider was unavailable or throttling (503, 429), or it refused the request itself (any
 * other 4xx: its failure body, or a plain provider error). Only what leaves the outcome open stays unknown:
 * a timeout, a lost answer, another 5xx, a 408 or 409 (it may hold the order), or a body of the wrong shape
 * on a success. The order then waits for the status lookup by our reference.
 */
export async function submit(
  http: HttpClient,
  path: string,
  payload: unknown,
  map: (response: UpstreamResponse) => UpstreamOutcome,
): Promise<UpstreamOutcome> {
  let response: UpstreamResponse;
  try {
    response = await http.call("POST", path, payload);
  } catch (error) {
    if (error instanceof NotSentError) return { kind: "failed", error: "The provider is unreachable", reason: "provider_unavailable" };
    return { kind: "unknown", error: (error as Error).message };
  }
  const { status } = response;
  if (status === 503 || status === 429) {
    return { kind: "failed", error: `The provider did not take the order (HTTP ${status}): it is unavailable`, reason: "provider_unavailable" };
  }
  if (status === 408 || status === 409 || status >= 500) return { kind: "unknown", error: `provider answered HTTP ${status}` };
  try {
    return map(response);
  } catch (error) {
    if (status >= 400) return { kind: "failed", error: `The provider refused the order (HTTP ${status})`, reason: "provider_error" };
    return { kind: "unknown", error: (error as Error).message };
  }
}

/** Asks for an order by our reference; 404 means the provider never received it. */
export async function lookup(http: HttpClient, path: string, map: (response: UpstreamResponse) => UpstreamOutcome): Promise<UpstreamStatus> {
  try {
    const response = await http.call("GET", path);
    if (response.status === 404) return { kind: "not_found" };
    if (response.status !== 200) return { kind: "unknown", error: `provider answered HTTP ${response.status}` };
    return map(response);
  } catch (error) {
    return { kind: "unknown", error: (error as Error).message };
  }
}

/** Reads a resource; null on 404; UpstreamError when the provider cannot answer properly. */
export async function read<T>(http: HttpClient, path: string, schema: z.ZodType<T>, payload?: unknown): Promise<T | null> {
  try {
    const response = await http.call(payload === undefined ? "GET" : "POST", path, payload);
    if (response.status === 404) return null;
    if (response.status !== 200) throw new UpstreamError(`HTTP ${response.status}`);
    return http.parse(schema, response);
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw new UpstreamError((error as Error).message, error);
  }
}

/** Like read, for resources that always exist. */
export async function readAlways<T>(http: HttpClient, path: string, schema: z.ZodType<T>, payload?: unknown): Promise<T> {
  const value = await read(http, path, schema, payload);
  if (value === null) throw new UpstreamError(`${path}: not found`);
  return value;
}

/** An adapter for a provider the deployment has no address for: every product of it answers 503. */
export const notConfigured = {
  configured: false,
  ready: async () => false,
} as const;

export const missing = (): never => {
  throw new UpstreamError("not configured");
};

/** An amount in USD from a provider: positive and at most 1,000,000, so every price computed from it stays exact. */
export const providerUsd = z.number().positive().max(1_000_000);

/**
 * Our reference for an order, in every order request: what the provider must find the order by later (the status
 * lookup), and what makes a repeated request the same order. The request schemas below it type what each adapter
 * sends; with the answers' schemas they are the published protocol (scripts/provider-protocol.ts).
 */
export const orderReference = z
  .uuid()
  .describe(
    "Our reference for this order: a UUID, new for every order, stored before the request is sent. The provider must be able to find the order by it (the status lookup), and should answer a repeated request with the same reference with the first order, never a second one.",
  );

/** An order answer's status: what the service does with the order (the lookup by reference repeats it). */
export const orderStatus = z
  .enum(["completed", "failed", "processing"])
  .describe("processing: taken, not done yet (the service asks again by reference)");

/** What a provider's order id in an answer means for the order, whatever the field's name and type. */
export const PROVIDER_ORDER_ID_MEANING =
  "The provider's order id. Once an answer carried one, a later 404 for the reference no longer fails the order";
