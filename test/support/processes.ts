import { type ChildProcess, spawn } from "node:child_process";
import { request } from "undici";
import { eventually } from "./harness.js";

export { freePort, START_ARGS as COMPILED } from "../../bench/processes.js";

/** One HTTP call as a partner makes it; throws when the connection fails (a killed instance). */
export async function http(method: "GET" | "POST", url: string, key?: string, body?: unknown) {
  const response = await request(url, {
    method,
    headers: { ...(key ? { "x-api-key": key } : {}), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.statusCode, body: (await response.body.json()) as any };
}

export interface ServiceProcess {
  proc: ChildProcess;
  base: string;
  /** What it printed (its log lines), when started with `capture`. */
  output: string[];
}

/** The service from its TypeScript sources (what the tests run); COMPILED is the build as `npm start` runs it. */
const SOURCES = ["--import", "tsx", "src/main.ts"];

/** Runs the real service as its own process and waits until it answers health. */
export async function startServiceProcess(env: Record<string, string>, port: number, capture = false, entry = SOURCES): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, entry, {
    // Each process's metrics on a free port of their own unless the test says otherwise.
    env: { ...process.env, METRICS_PORT: "0", ...env, PORT: String(port) },
    stdio: capture ? ["ignore", "pipe", "pipe"] : "ignore",
  });
  const output: string[] = [];
  proc.stdout?.on("data", (chunk) => output.push(String(chunk)));
  proc.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const base = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (proc.exitCode !== null) throw new Error(`the service exited with ${proc.exitCode}: ${output.join("")}`);
    try {
      return (await http("GET", `${base}/v1/health`)).status === 200 ? true : undefined;
    } catch {
      return undefined;
    }
  }, 30_000);
  return { proc, base, output };
}

export async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}
