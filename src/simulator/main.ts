import { z } from "zod";
import { PROVIDERS } from "./context.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN } from "./cryptopay.js";
import { startSimulator } from "./server.js";

// A program of its own, as the real providers are: it shares nothing with the service but the wire.

const env = z
  .object({
    SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
    SIMULATOR_TIME_SCALE: z.coerce.number().positive().default(1),
  })
  .parse(process.env);

const { url } = await startSimulator(env.SIMULATOR_PORT, { timeScale: env.SIMULATOR_TIME_SCALE, logger: true });
console.log(`upstream simulator listening on ${url}; to use it from the service:
  UPSTREAM=external ${PROVIDERS.filter((name) => name !== "cryptopay" && name !== "reloadly")
    .map((name) => `${name.toUpperCase()}_URL=${url}`)
    .join(" ")} CRYPTO_PAY_URL=${url}/cryptopay CRYPTO_PAY_TOKEN=${SIMULATOR_CRYPTO_PAY_TOKEN} npm start
Reloadly (docs/providers/reloadly-simulator.md): token at ${url}/reloadly/auth/oauth/token, gift cards at
  ${url}/reloadly/giftcards-sandbox (sandbox) and ${url}/reloadly/giftcards (production)
faults: curl -s ${url}/control/faults -H 'content-type: application/json' -d '{"provider":"gateway","mode":"down"}'`);
