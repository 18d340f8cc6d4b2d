import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import type { WebhookEndpoint } from "../../core/model/webhook.js";
import { callerOf } from "../caller.js";
import { errorBody, keyedErrors } from "../../wire/common.js";
import {
  webhookAttemptsQuery,
  webhookAttemptsResponse,
  webhookAttemptsView,
  webhookBody,
  webhookEndpointView,
  webhookPingResponse,
  webhookPingView,
  webhookRemovedResponse,
  webhookResponse,
  webhookSecretResponse,
  webhookSetResponse,
} from "../../wire/webhooks.js";

const tags = ["Webhooks"];

/** An endpoint as the routes show it, with the events waiting for it. */
const endpointView = async (webhooks: Core["webhooks"], accountId: number, endpoint: WebhookEndpoint) =>
  webhookEndpointView(endpoint, { count: await webhooks.pending(accountId), limit: webhooks.pendingLimit });

/** The key's webhook endpoint: show it, set it, remove it. */
export const webhookRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const { webhooks } = core;
  const view = (accountId: number, endpoint: WebhookEndpoint) => endpointView(webhooks, accountId, endpoint);

  app.get(
    "/v1/webhook",
    {
      schema: { summary: "The key's webhook endpoint, or null", operationId: "getWebhook", tags, response: { 200: webhookResponse, ...keyedErrors } },
    },
    async (request) => {
      const { account } = callerOf(request);
      const endpoint = await webhooks.get(account.id);
      return { success: true as const, webhook: endpoint && (await view(account.id, endpoint)) };
    },
  );

  app.post(
    "/v1/webhook",
    {
      schema: {
        summary: "Set the webhook endpoint (the first time, the signing secret is returned once)",
        operationId: "setWebhook",
        tags,
        body: webhookBody,
        response: { 200: webhookSetResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = callerOf(request);
      const { endpoint, secret } = await webhooks.set(account.id, request.body.url);
      return { success: true as const, webhook: await view(account.id, endpoint), ...(secret ? { secret } : {}) };
    },
  );

  app.delete(
    "/v1/webhook",
    {
      schema: {
        summary: "Remove the webhook endpoint (events not yet delivered are given up)",
        operationId: "removeWebhook",
        tags,
        response: { 200: webhookRemovedResponse, ...keyedErrors },
      },
    },
    async (request) => ({ success: true as const, removed: await webhooks.remove(callerOf(request).account.id) }),
  );
};

/** The endpoint's signing secret: rotate it (the previous one signs on during the overlap), or end the previous one now. */
export const webhookSecretRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const { webhooks } = core;

  app.post(
    "/v1/webhook/secret",
    {
      schema: {
        summary: "Rotate the signing secret; the previous one keeps signing during the overlap",
        operationId: "rotateWebhookSecret",
        tags,
        response: { 200: webhookSecretResponse, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateSecret(callerOf(request).account.id);
      return { success: true as const, secret: rotated.secret, previous_secret_until: rotated.previousSecretUntil };
    },
  );

  app.delete(
    "/v1/webhook/secret/previous",
    {
      schema: {
        summary: "Stop the previous signing secret now, before its overlap ends (a leaked secret revoked at once)",
        operationId: "revokePreviousWebhookSecret",
        tags,
        response: { 200: webhookResponse, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = callerOf(request);
      return { success: true as const, webhook: await endpointView(webhooks, account.id, await webhooks.revokePreviousSecret(account.id)) };
    },
  );
};

/** Deliveries to the endpoint: a ping sent now, and the attempts made, newest first. */
export const webhookDeliveryRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const { webhooks } = core;

  app.post(
    "/v1/webhook/ping",
    {
      schema: {
        summary: "Send a signed ping event to the endpoint now and report its answer",
        operationId: "pingWebhook",
        tags,
        response: { 200: webhookPingResponse, 404: errorBody, ...keyedErrors },
      },
    },
    async (request) => webhookPingView(await webhooks.ping(callerOf(request).account.id)),
  );

  app.get(
    "/v1/webhook/attempts",
    {
      schema: {
        summary: "Delivery attempts and their results, newest first",
        operationId: "listWebhookAttempts",
        tags,
        querystring: webhookAttemptsQuery,
        response: { 200: webhookAttemptsResponse, 400: errorBody, ...keyedErrors },
      },
    },
    async (request) => {
      const { limit, before } = request.query;
      return webhookAttemptsView(await webhooks.attempts(callerOf(request).account.id, { limit, before }), limit);
    },
  );
};
