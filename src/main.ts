import os from "node:os";
import { allProvidersAt, type Config, loadConfig, loadDotEnv, PROVIDER_URLS, simulatedReloadly } from "./config.js";
import { CRYPTO_PAY_WEBHOOK_PATH } from "./api/routes/topups.js";
import { StartFailed } from "./lifecycle.js";
import { openService, type Service } from "./root.js";

loadDotEnv();
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

let simulatedCryptoPay: string | null = null;
if (config.UPSTREAM === "simulator") {
  // The embedded default: every upstream is the bundled simulator on a loopback port. Loaded only then: a
  // deployment against real providers never loads it.
  const { startSimulator } = await import("./simulator/server.js");
  const { SIMULATOR_CRYPTO_PAY_TOKEN } = await import("./simulator/cryptopay.js");
  const simulator = await startSimulator(config.SIMULATOR_PORT, { timeScale: config.SIMULATOR_TIME_SCALE }).catch((error: { code?: string }) => {
    if (error.code !== "EADDRINUSE") throw error;
    console.error(`SIMULATOR_PORT ${config.SIMULATOR_PORT} is in use: set SIMULATOR_PORT to a free port (0 picks one)`);
    process.exit(1);
  });
  // Addresses set explicitly still win, so one provider can be real while the others are simulated.
  const simulated = allProvidersAt(simulator.url);
  const current = config;
  config = { ...current, ...Object.fromEntries(PROVIDER_URLS.map((name) => [name, current[name] ?? simulated[name]])) };
  // The simulated Reloadly, where its hosts and credentials are unset (GIFTCARDS_BACKEND=reloadly tries it out).
  const reloadly = simulatedReloadly(simulator.url, config.RELOADLY_ENVIRONMENT);
  config = {
    ...config,
    ...Object.fromEntries(Object.entries(reloadly).map(([name, value]) => [name, config[name as keyof typeof reloadly] ?? value])),
  };
  // Its Crypto Pay too, unless a real one is configured: top-ups by invoice work out of the box.
  if (!config.CRYPTO_PAY_URL) config = { ...config, CRYPTO_PAY_URL: `${simulator.url}/cryptopay`, CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN };
  simulatedCryptoPay = config.CRYPTO_PAY_URL === `${simulator.url}/cryptopay` ? simulator.url : null;
  console.log(`upstream simulator on ${simulator.url} (faults: POST ${simulator.url}/control/faults)`);
}

/**
 * The first signal stops gracefully within SHUTDOWN_GRACE_MS (exit 0, or 1 when work had to be cut); a second one
 * exits at once (128 + the signal's number, as a shell reports a process killed by it). Handled from the moment the
 * service is built, so a signal during a slow start stops what had begun instead of killing it mid-step.
 */
function stopOnSignals(service: Service) {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) {
        service.api.log.warn({ signal }, "second signal: exiting at once, cutting what is under way");
        process.exit(128 + os.constants.signals[signal]);
      }
      stopping = true;
      service.stop({ signal }).then(
        (report) => process.exit(report.finished ? 0 : 1),
        (error: unknown) => {
          service.api.log.error({ err: error }, "the stop failed");
          process.exit(1);
        },
      );
    });
  }
}

// One ordered start (src/root.ts `start`): the jobs, the API's listener, the metrics' listener, the bot, and here
// the simulated Crypto Pay's webhook. A step that throws stops the steps begun, in reverse, and the process exits 1.
let service: Service;
try {
  service = await openService(config);
  stopOnSignals(service);
  const simulated = simulatedCryptoPay;
  if (simulated) {
    service.addStep({
      name: "simulated crypto pay webhook",
      // The simulated Crypto Pay app posts its webhooks here, as the real one posts to the URL set in @CryptoBot.
      start: async () => {
        const hook = `${service.url!.replace("0.0.0.0", "127.0.0.1").replace("[::]", "127.0.0.1")}${CRYPTO_PAY_WEBHOOK_PATH}`;
        const { pointCryptoPayWebhook } = await import("./simulator/cryptopay.js");
        await pointCryptoPayWebhook(simulated, hook);
      },
    });
  }
  await service.start();
} catch (error) {
  // A failed step was logged and what had started stopped (root.ts); a failed build closed what it had built.
  console.error(error instanceof StartFailed ? `not started: ${error.message}` : `not started: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
}
