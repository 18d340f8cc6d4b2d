import { z } from "zod";
import { UpstreamError, type UpstreamOutcome, type UpstreamStatus } from "../core/ports.js";
import type { HttpClient, UpstreamResponse } from "./http.js";
import { judgeStatus, noAnswer, notTaken, unreadable } from "./outcome.js";

/**
 * An order request to a protocol provider, judged by the one outcome policy (./outcome.ts): 503 and 429 are "not
 * taken", another 4xx a refusal (its failure body when it reads as one, else a plain provider error); a timeout,
 * a lost answer, 408, 409 or another 5xx, or a success of the wrong shape, leave it open for the status lookup.
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
    return noAnswer(error, "The provider");
  }
  const { status } = response;
  const answered = judgeStatus(status);
  if (answered === "not_taken") return notTaken(answered, `The provider did not take the order (HTTP ${status}): it is unavailable`);
  if (answered === "unknown") return notTaken(answered, `provider answered HTTP ${status}`);
  try {
    return map(response);
  } catch (error) {
    if (answered === "refused") return notTaken(answered, `The provider refused the order (HTTP ${status})`);
    return unreadable((error as Error).message);
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
