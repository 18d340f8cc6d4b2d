import { pino } from "pino";
import type { Core } from "../core/index.js";
import { buildApi } from "./app.js";
import type { MiniAppOptions } from "./miniapp/options.js";
import { PROTOCOL_DELIVERY } from "../wire/account.js";

/**
 * Stands in for whatever the routes are given when the service is built only to read its document: any member is
 * another stand-in, and calling one throws (no handler runs, so none is called).
 */
const standIn: object = new Proxy(() => {}, {
  // Not a promise: `then` is what `await` looks for.
  get: (_target, name) => (name === "then" ? undefined : standIn),
  apply: () => {
    throw new Error("the service was built only to read its OpenAPI document");
  },
});

/**
 * The OpenAPI document (GET /openapi.json) of a deployment with every face, the Mini App's routes included, built
 * without a database, a provider or a listener: what `npm run web:types` generates the Mini App's types from.
 */
export async function openApiDocument(): Promise<object> {
  const app = await buildApi({
    core: standIn as Core,
    rateLimitPerMinute: 60,
    bodyLimitBytes: 65_536,
    delivery: PROTOCOL_DELIVERY,
    logger: pino({ enabled: false }),
    miniApp: { sessions: standIn as MiniAppOptions["sessions"], support: null, admins: [], refusal: () => "" },
  });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}
