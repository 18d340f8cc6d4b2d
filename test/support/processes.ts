import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { request } from "undici";
import { eventually } from "./harness.js";

import { START_ARGS } from "../../bench/processes.js";

export { freePort } from "../../bench/processes.js";

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

/**
 * Runs the real service as its own process, exactly as `npm start` does (node on dist/, built once per run by
 * test/support/global-setup.ts), and waits until it answers health.
 */
export async function startServiceProcess(env: Record<string, string>, port: number, capture = false, startMs = 30_000): Promise<ServiceProcess> {
  const proc = spawn(process.execPath, START_ARGS, {
    // Each process's metrics on a free port of their own unless the test says otherwise.
    env: { ...process.env, METRICS_PORT: "0", ...env, PORT: String(port) },
    stdio: capture ? ["ignore", "pipe", "pipe"] : "ignore",
  });
  const output: string[] = [];
  proc.stdout?.on("data", (chunk) => output.push(String(chunk)));
  proc.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const base = `http://127.0.0.1:${port}`;
  try {
    await eventually(async () => {
      if (proc.exitCode !== null) throw new Error(`the service exited with ${proc.exitCode}: ${output.join("")}`);
      try {
        return (await http("GET", `${base}/v1/health`)).status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    }, startMs);
  } catch (error) {
    // A process that never answered is ended here: no caller holds it, so nothing else would.
    await kill(proc);
    throw error;
  }
  return { proc, base, output };
}

export async function kill(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  proc.kill("SIGKILL");
  await exited;
}

const scripts = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: Record<string, string> }).scripts;
const exec = promisify(execFile);

/** Exactly what `npm run <script> -- <args>` runs (node on dist/, built once per run by the global setup), as a process. */
export async function runScript(script: "admin" | "migrate", env: Record<string, string>, ...args: string[]) {
  const [node, ...nodeArgs] = scripts[script].split(" ");
  if (node !== "node") throw new Error(`npm run ${script} should run node on dist/, runs ${scripts[script]}`);
  try {
    const { stdout, stderr } = await exec(process.execPath, [...nodeArgs, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

export interface TcpProxy {
  proc: ChildProcess;
  port: number;
  /** SIGSTOP: every connection through it hangs, as to a stopped or partitioned server. */
  pause(): void;
  /** SIGCONT: what was sent meanwhile flows on. */
  resume(): void;
  close(): Promise<void>;
}

/** test/support/tcp-proxy.mjs as a process of its own, forwarding to host:port. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const proc = spawn(process.execPath, ["test/support/tcp-proxy.mjs", host, String(port)], { stdio: ["ignore", "pipe", "inherit"] });
  const listening = await new Promise<number>((resolve, reject) => {
    proc.once("exit", (code) => reject(new Error(`the proxy exited with ${code}`)));
    proc.stdout!.once("data", (chunk) => resolve((JSON.parse(String(chunk)) as { port: number }).port));
  });
  return {
    proc,
    port: listening,
    pause: () => void proc.kill("SIGSTOP"),
    resume: () => void proc.kill("SIGCONT"),
    async close() {
      proc.kill("SIGCONT");
      await kill(proc);
    },
  };
}
