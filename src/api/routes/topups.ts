import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { DomainError } from "../../core/model/errors.js";
import { fromUsdt } from "../../core/model/money.js";
import { callerOf } from "../caller.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import { toTopupView, topupBody, topupIdParams, topupResponse, topupsQuery, topupsResponse, topupsView } from "../../wire/topups.js";

export const CRYPTO_PAY_WEBHOOK_PATH = "/cryptopay/webhook";
/** Calls with a wrong signature one address may make a minute; past it they are answered 429 (a signed one never is). */
const FAILED_CALLS_PER_MINUTE = 10;
/** Addresses remembered at most: a flood from many addresses cannot grow the map without bound. */
const ADDRESSES_MAX = 10_000;

/**
 * Failed calls counted per address in fixed windows (this instance's memory: the bound is against a flood). Timed
 * by the monotonic clock: nothing here is shared, and a step of the wall clock must not lift or extend a bound.
 */
function createFailureBound(max: number, windowMs: number) {
  const windows = new Map<string, { count: number; endsAt: number }>();
  return {
    /** Seconds until the address may call again, or 0. */
    refused(address: string): number {
      const window = windows.get(address);
      const now = performance.now();
      if (!window || window.endsAt <= now) return 0;
      return window.count >= max ? Math.ceil((window.endsAt - now) / 1000) : 0;
    },
    count(address: string) {
      const now = performance.now();
      const window = windows.get(address);
      if (window && window.endsAt > now) {
        window.count += 1;
        return;
      }
      if (windows.size >= ADDRESSES_MAX) {
        for (const [key, old] of windows) if (old.endsAt <= now) windows.delete(key);
        if (windows.size >= ADDRESSES_MAX) windows.delete(windows.keys().next().value!);
      }
      windows.set(address, { count: 1, endsAt: now + windowMs });
    },
  };
}

/** The key's top-ups: start one (an invoice, or a transfer to approve), list them, read one, cancel one. */
export const topupRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const { topups } = core;
  const tags = ["Top-ups"];

  app.post(
    "/v1/topups",
    {
      schema: {
        summary: "Top up the balance: a Crypto Pay invoice to pay (credited when paid), or a transfer for an administrator to approve",
        operationId: "createTopup",
        tags,
        body: topupBody,
        response: { 200: topupResponse, 400: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = callerOf(request);
      const { amount_usdt, method, reference } = request.body;
      const amountMicro = fromUsdt(amount_usdt);
      const offered = topups.methods();
      const chosen = method ?? (offered.invoice ? "invoice" : "transfer");
      const topup =
        chosen === "invoice" ? await topups.startInvoice(account, amountMicro) : await topups.requestTransfer(account, amountMicro, reference ?? "");
      return { success: true as const, topup: toTopupView(topup) };
    },
  );

  app.get(
    "/v1/topups",
    {
      schema: {
        summary: "The key's top-ups, newest first",
        operationId: "listTopups",
        tags,
        querystring: topupsQuery,
        response: { 200: topupsResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { limit, before } = request.query;
      return topupsView(await topups.list(callerOf(request).account, { limit, before }), limit);
    },
  );

  app.get(
    "/v1/topups/:topup_id",
    {
      schema: {
        summary: "One top-up and its status",
        operationId: "getTopup",
        tags,
        params: topupIdParams,
        response: { 200: topupResponse, 400: errorBody, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => ({ success: true as const, topup: toTopupView(await topups.get(callerOf(request).account, request.params.topup_id)) }),
  );

  app.post(
    "/v1/topups/:topup_id/cancel",
    {
      schema: {
        summary: "Cancel an unpaid invoice (Crypto Pay or Telegram Stars) or a transfer still waiting for a decision",
        operationId: "cancelTopup",
        tags,
        params: topupIdParams,
        response: { 200: topupResponse, 400: errorBody, 404: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (request) => ({ success: true as const, topup: toTopupView(await topups.cancel(callerOf(request).account, request.params.topup_id)) }),
  );
};

/**
 * Crypto Pay's webhook: the fast path of a paid invoice (the poll is the path that never misses one). Its body is
 * read raw, since the signature covers the bytes; a wrong signature is 401 and credits nothing.
 */
export const cryptoPayWebhookRoute: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const failures = createFailureBound(FAILED_CALLS_PER_MINUTE, 60_000);
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => done(null, body));
  app.post(
    CRYPTO_PAY_WEBHOOK_PATH,
    {
      config: { public: true, rateLimit: false },
      schema: {
        summary: "Crypto Pay's webhook: called by Crypto Pay (set this URL in @CryptoBot), not by partners",
        description:
          'The body is Crypto Pay\'s update, `{"update_id","update_type":"invoice_paid","request_date","payload":<invoice>}`, signed in the `crypto-pay-api-signature` header (hex HMAC-SHA256 of the raw body keyed with SHA-256 of the app token). A wrong signature is 401 and credits nothing (ten a minute from one address, then 429; a correctly signed update is never held back by them); the update only says which invoice to look at: the record Crypto Pay keeps (getInvoices) decides what is credited, once however often it is delivered (503 while that record cannot be read, so Crypto Pay delivers again); an invoice that ties to no top-up is ignored (200) and alerted.',
        operationId: "cryptoPayWebhook",
        tags: ["Top-ups"],
        security: [],
        response: { 200: z.object({ ok: z.literal(true) }), 401: errorBody, 404: errorBody, 429: errorBody, 503: errorBody },
      },
    },
    async (request) => {
      const signature = request.headers["crypto-pay-api-signature"];
      // The signature is checked first (one HMAC), so only forgeries are counted and refused: behind a proxy not
      // named in TRUST_PROXY every delivery shares the proxy's address, and a forger must not hold them back.
      await core.topups.webhook(String(request.body ?? ""), typeof signature === "string" ? signature : undefined, () => {
        const retryAfterSeconds = failures.refused(request.ip);
        if (retryAfterSeconds) {
          throw new DomainError("rate_limited", "Too many webhook calls with a wrong signature from this address", { retryAfterSeconds });
        }
        failures.count(request.ip);
      });
      return { ok: true as const };
    },
  );
};
