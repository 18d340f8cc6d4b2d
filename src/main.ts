import os from "node:os";
import pino from "pino";
import { type Config, loadConfig, loadDotEnv } from "./config.js";
import { CRYPTO_PAY_WEBHOOK_PATH } from "./api/routes/topups.js";
import { StartFailed } from "./lifecycle.js";
import { createLog } from "./observability/log.js";
import { openService, type Service } from "./root.js";

// Everything this process prints is a JSON line. Before the service's log exists (a bad configuration, a taken
// simulator port, a failed start) and for Node's own warnings and a crash, this one writes, on the service's own
// stdout stream: the lines stay in order, and pino writes out what is buffered when the process exits.
const stdout = pino.destination({ dest: 1, sync: false });
const processLog = createLog("info", stdout);
// Node prints its warnings as text unless its default listener goes; they are logged as lines instead.
process.removeAllListeners("warning");
process.on("warning", (warning) =>
  processLog.warn({ name: warning.name, code: (warning as { code?: string }).code, detail: warning.message }, "node warning"),
);
// A crash is a bug: its stack is kept, on one line.
for (const event of ["uncaughtException", "unhandledRejection"] as const) {
  process.on(event, (error: unknown) => {
    processLog.fatal({ err: error }, `${event}: exiting`);
    process.exit(1);
  });
}

loadDotEnv();
/** The configuration, or the process exits naming every bad variable. */
function configOf(env: Record<string, string | undefined>): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    const [first, ...problems] = (error as Error).message.split("\n");
    processLog.fatal({ problems: problems.map((line) => line.trim()) }, `not started: ${first.replace(/:$/, "")}`);
    process.exit(1);
  }
}
let config = configOf(process.env);

let simulatedCryptoPay: string | null = null;
let simulatorUrl: string | null = null;
if (config.upstream.source === "simulator") {
  // The embedded default: every upstream is the bundled simulator on a loopback port. Loaded only then: a
  // deployment against real providers never loads it.
  const { startSimulator } = await import("./simulator/server.js");
  const { simulatedEnv } = await import("./simulator/settings.js");
  const { port, timeScale } = config.upstream.simulator;
  const simulator = await startSimulator(port, { timeScale }).catch((error: { code?: string }) => {
    if (error.code !== "EADDRINUSE") throw error;
    processLog.fatal({ port }, `not started: SIMULATOR_PORT ${port} is in use: set SIMULATOR_PORT to a free port (0 picks one)`);
    process.exit(1);
  });
  // Its addresses fill what is unset (addresses set explicitly still win): read again, checked again.
  config = configOf({ ...process.env, ...simulatedEnv(simulator.url, process.env) });
  simulatedCryptoPay = config.topups.cryptoPay?.url === `${simulator.url}/cryptopay` ? simulator.url : null;
  // Its address is on the start's line (its faults: POST <simulator>/control/faults).
  simulatorUrl = simulator.url;
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
try {
  const service = await openService(config, { logDestination: stdout, ...(simulatorUrl ? { startFields: { simulator: simulatorUrl } } : {}) });
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
  if (error instanceof StartFailed) processLog.fatal({ step: error.step }, `not started: ${error.message}`);
  else processLog.fatal({ err: error }, `not started: ${(error as Error).message}`);
  process.exit(1);
}
