import { type ChildProcess, spawn } from "node:child_process";
import { openSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import pg from "pg";
import { request } from "undici";
import { allProvidersAt } from "../src/simulator/settings.js";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Every process started here, ended with the benchmark however it ends (a failed run leaves none behind). */
const started = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of started) child.kill("SIGKILL");
});

export interface Proc {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a node process and waits until `probe` (a path on its port) answers. Its output is discarded, or with
 * BENCH_LOG_DIR set, written to `<dir>/<port>.log` (to see what a slow part did).
 */
export async function startProcess(args: string[], port: number, env: Record<string, string>, probe = "/"): Promise<Proc> {
  const logDir = process.env.BENCH_LOG_DIR;
  const out = logDir ? openSync(join(logDir, `${port}.log`), "a") : "ignore";
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", out, "inherit"] });
  started.add(child);
  child.once("exit", () => started.delete(child));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
    try {
      const response = await request(`${url}${probe}`);
      await response.body.dump();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${args.join(" ")} did not answer on ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    child,
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * What every benchmarked service is started with: its database, the simulator in its own process for every
 * provider, a rate limit the load never reaches (the default stays 60), and info logging as `npm start` has it.
 */
export const serviceEnv = (databaseUrl: string, codesKey: string, simulatorUrl: string): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  CODES_KEY: codesKey,
  UPSTREAM: "external",
  ...allProvidersAt(simulatorUrl),
  RATE_LIMIT_PER_MINUTE: "1000000",
  LOG_LEVEL: "info",
  // Each process serves its metrics on a free port of its own.
  METRICS_PORT: "0",
});

/**
 * A PostgreSQL database of this run's own on the server at `serverUrl`, named `<prefix>_<pid>`, and its dropping.
 * Those an earlier run left when it died (its process gone) are dropped first.
 */
export async function ownPostgresDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const onServer = async (statement: string, values: unknown[] = []) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      return (await client.query<{ datname: string }>(statement, values)).rows;
    } finally {
      await client.end();
    }
  };
  const named = new RegExp(`^${prefix}_(\\d+)$`);
  for (const { datname } of await onServer("select datname from pg_database where datname like $1", [`${prefix}\\_%`])) {
    const pid = named.exec(datname)?.[1];
    if (!pid) continue;
    try {
      process.kill(Number(pid), 0);
    } catch (error) {
      if ((error as { code?: string }).code === "ESRCH") await onServer(`drop database if exists ${datname} with (force)`);
    }
  }
  const name = `${prefix}_${process.pid}`;
  await onServer(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: async () => void (await onServer(`drop database if exists ${name} with (force)`)) };
}

/** Exactly what `npm start` runs after its build: node's arguments, taken from package.json. */
export const START_ARGS = (JSON.parse(readFileSync("package.json", "utf8")) as { scripts: { start: string } }).scripts.start.split(" ").slice(1);

const TICKS_PER_SECOND = 100;

/** A process's name and the fields after it in /proc/<pid>/stat (state, ppid, …; utime at 11, stime at 12). */
function statOf(pid: number | string): { comm: string; fields: string[] } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const end = stat.lastIndexOf(") ");
  return { comm: stat.slice(stat.indexOf("(") + 1, end), fields: stat.slice(end + 2).split(" ") };
}

/** CPU time (user + system) a process has used, in ms, from /proc. */
export function cpuMs(pid: number): number {
  const { fields } = statOf(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

/** The stat fields of a PostgreSQL process, or null when the process is another's or has ended. */
function postgresStat(pid: string): string[] | null {
  try {
    const { comm, fields } = statOf(pid);
    return comm === "postgres" ? fields : null;
  } catch {
    return null; // It ended while being read.
  }
}

/**
 * CPU time (user + system) the PostgreSQL server on this machine has used, in ms, from /proc: every `postgres`
 * process's own, and the postmaster's reaped children's (a backend that exited since keeps counting there), so the
 * difference over an interval is what the database spent in it. A backend reaped while the others were being read
 * would be counted in neither place: the postmaster is read again after them, and the reading made again if its
 * reaped children changed. Null when no PostgreSQL process is readable.
 */
export function databaseCpuMs(): number | null {
  for (let attempt = 0; attempt < 10; attempt++) {
    const processes = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .flatMap((pid) => {
        const fields = postgresStat(pid);
        return fields ? [{ pid, fields }] : [];
      });
    const postmaster = processes.find((p) => !processes.some((other) => other.pid === p.fields[1]));
    if (!postmaster) return null;
    const reaped = (fields: string[]) => Number(fields[13]) + Number(fields[14]);
    const again = postgresStat(postmaster.pid);
    if (!again || reaped(again) !== reaped(postmaster.fields)) continue;
    const ticks = processes.reduce((total, p) => total + Number(p.fields[11]) + Number(p.fields[12]), reaped(postmaster.fields));
    return (ticks * 1000) / TICKS_PER_SECOND;
  }
  return null;
}

/** Resident memory of a process now, in MB. */
export function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return line ? Number(line.replace(/\D+/g, "")) / 1024 : 0;
}

/** Samples a process's RSS every 100 ms until stopped; returns the peak. */
export function peakRss(pid: number) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // The process ended.
    }
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
