import { loadConfig, loadDotEnv } from "./config.js";
import { createService } from "./service.js";
import { startSimulator } from "./simulator/server.js";

loadDotEnv();
let config;
try {
  config = loadConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

if (config.UPSTREAM === "simulator") {
  // The embedded default: every upstream is the bundled simulator on a loopback port.
  const simulator = await startSimulator(config.SIMULATOR_PORT, { timeScale: config.SIMULATOR_TIME_SCALE });
  const url = simulator.url;
  config = {
    ...config,
    GATEWAY_URL: config.GATEWAY_URL ?? url,
    RATES_URL: config.RATES_URL ?? url,
    STORE_URL: config.STORE_URL ?? url,
    GAMES_URL: config.GAMES_URL ?? url,
    GIFTCARDS_URL: config.GIFTCARDS_URL ?? url,
    GIFTS_URL: config.GIFTS_URL ?? url,
  };
  console.log(`upstream simulator on ${simulator.url}`);
}

const service = await createService(config);
await service.api.listen({ host: config.HOST, port: config.PORT });
await service.startBot();

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    service.api.log.info({ signal }, "shutting down");
    void service.close().then(() => process.exit(0));
  });
}
