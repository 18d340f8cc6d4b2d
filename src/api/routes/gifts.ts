import { gzipSync } from "node:zlib";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Core } from "../../core/index.js";
import { notFound } from "../../core/model/errors.js";
import { callerOf } from "../caller.js";
import { markReplay, purchaseOptions, REPLAYS } from "../requests.js";
import { errorBody, insufficientFundsBody, keyedErrors } from "../../wire/common.js";
import {
  giftBody,
  giftIdParams,
  giftOrderResponse,
  giftRequestOf,
  giftsResponse,
  giftsView,
  giftView,
  recipientRefusesBody,
} from "../../wire/gifts.js";

/** Messaging-platform gifts: the live catalogue, synchronous sends (201), and Lottie stickers. */
export const giftRoutes: FastifyPluginAsyncZod<{ core: Core }> = async (app, { core }) => {
  app.get(
    "/v1/gifts",
    {
      schema: {
        summary: "Gifts on sale now (read it each time)",
        operationId: "listGifts",
        tags: ["Gifts"],
        response: { 200: giftsResponse, 503: errorBody, ...keyedErrors },
      },
    },
    async (req) => {
      callerOf(req);
      return giftsView(await core.gifts.catalogue());
    },
  );

  app.post(
    "/v1/gifts",
    {
      schema: {
        summary: "Send a gift: 201 sent, 200 replay, 400 recipient_refuses (nothing charged), 502 refunded",
        operationId: "sendGift",
        ...REPLAYS,
        tags: ["Gifts"],
        body: giftBody,
        response: {
          200: giftOrderResponse,
          201: giftOrderResponse,
          502: giftOrderResponse,
          400: errorBody,
          402: insufficientFundsBody,
          503: errorBody,
          ...keyedErrors,
        },
      },
    },
    async (req, reply) => {
      const { order, replay } = await core.gifts.buy({ caller: callerOf(req), item: giftRequestOf(req.body), ...purchaseOptions(req.body) });
      if (replay) return markReplay(reply, true).code(200).send(giftView(order));
      if (order.status === "failed" && order.reason === "recipient_refuses") {
        // The refusal came with the send itself: refunded, and reported as the recipient's choice.
        return reply.code(400).send(recipientRefusesBody(order));
      }
      return markReplay(reply, false)
        .code(order.status === "failed" ? 502 : 201)
        .send(giftView(order));
    },
  );

  app.get(
    "/v1/gifts/:gift_id/sticker",
    {
      schema: {
        summary: "The gift's Lottie animation, gzip-compressed (Content-Encoding: gzip)",
        operationId: "getGiftSticker",
        tags: ["Gifts"],
        params: giftIdParams,
        response: { 200: z.unknown().describe("Lottie JSON"), 400: errorBody, 404: errorBody, 503: errorBody, ...keyedErrors },
      },
    },
    async (req, reply) => {
      const sticker = await core.gifts.sticker(req.params.gift_id);
      if (sticker === null) throw notFound(`No sticker for gift ${req.params.gift_id}`);
      return reply
        .header("content-type", "application/json; charset=utf-8")
        .header("content-encoding", "gzip")
        .send(gzipSync(JSON.stringify(sticker)));
    },
  );
};
