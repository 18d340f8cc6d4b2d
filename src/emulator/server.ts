import type { AddressInfo } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { botApiRoute, settingMethods } from "./bot-api.js";
import { controlRoutes } from "./control.js";
import { acceptUploads, documentMethods } from "./documents.js";
import { chatRoutes, messageMethods } from "./messages.js";
import { createPayments, paymentMethods, paymentRoutes } from "./payments.js";
import { createStarsAndGifts, fileRoutes, starsAndGiftsMethods } from "./stars-and-gifts.js";
import { createState } from "./state.js";
import { updateMethods, userRoutes } from "./updates.js";

/**
 * A local stand-in for the Telegram Bot API: the bot talks to it exactly as to Telegram (POST
 * /bot<token>/<method>, real long polling on getUpdates), and tests or `npm run chat` play the users through
 * /emulator/*. It knows the methods this bot uses and refuses any other, as Telegram would an unknown one.
 */
function buildEmulator(): FastifyInstance {
  // Long polls are held open: closing must not wait for their keep-alive to time out.
  const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024, forceCloseConnections: true });
  acceptUploads(app);
  const state = createState();
  const shop = createStarsAndGifts();
  const payments = createPayments();
  botApiRoute(app, state, {
    ...settingMethods(state),
    ...messageMethods(state),
    ...documentMethods(state),
    ...updateMethods(state),
    ...starsAndGiftsMethods(state, shop),
    ...paymentMethods(state, shop, payments),
  });
  fileRoutes(app, state, shop);
  userRoutes(app, state);
  chatRoutes(app, state);
  controlRoutes(app, state, shop);
  paymentRoutes(app, state, shop, payments);
  // A closing emulator ends the long polls and chat reads it holds.
  app.addHook("preClose", async () => state.wake());
  return app;
}

/**
 * `npm run emulator`'s port unless EMULATOR_PORT says otherwise: beside the simulator's 9090, clear of the ports
 * the operations guide gives the service's instances (8080, 8081) and their metrics (9464, 9465).
 */
export const EMULATOR_DEFAULT_PORT = 9091;

export async function startEmulator(port = 0): Promise<{ url: string; app: FastifyInstance }> {
  const app = buildEmulator();
  await app.listen({ host: "127.0.0.1", port });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, app };
}
