import { z } from "zod";
import { startSimulator } from "./server.js";

const env = z
  .object({
    SIMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(9090),
    SIMULATOR_TIME_SCALE: z.coerce.number().positive().default(1),
  })
  .parse(process.env);

const { url } = await startSimulator(env.SIMULATOR_PORT, { timeScale: env.SIMULATOR_TIME_SCALE, logger: true });
console.log(`upstream simulator listening on ${url} (point GATEWAY_URL and RATES_URL at it with UPSTREAM=external)`);
