import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Core } from "../../core/index.js";
import { callerOf } from "../caller.js";
import { keyedErrors } from "../../wire/common.js";
import { keysResponse, toKeysView } from "../../wire/keys.js";

const tags = ["Account"];

/** The account's keys: the live one's prefix and the replaced ones still in their grace period, which can be ended now. */
export const keyRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  const view = async (accountId: number) =>
    toKeysView(...(await Promise.all([core.admin.keyPrefix(accountId), core.accounts.keysInGrace(accountId)])));

  app.get(
    "/v1/keys",
    {
      schema: {
        summary: "The live key's prefix, and replaced keys still answering with when each stops",
        operationId: "getKeys",
        tags,
        response: { 200: keysResponse, ...keyedErrors },
      },
    },
    async (request) => view(callerOf(request).account.id),
  );

  app.delete(
    "/v1/keys/previous",
    {
      schema: {
        summary: "Stop every replaced key now, before its grace period ends (a leaked key, or the switch done): only the live key answers",
        operationId: "endKeyGrace",
        tags,
        response: { 200: keysResponse, ...keyedErrors },
      },
    },
    async (request) => {
      const { account } = callerOf(request);
      await core.accounts.endKeyGrace(account.id);
      // None of the replaced keys answers now.
      return toKeysView(await core.admin.keyPrefix(account.id), []);
    },
  );
};
