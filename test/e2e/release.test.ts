import { type ChildProcess, execFile, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../support/harness.js";
import { freePort, http } from "../support/processes.js";
import { START_ARGS } from "../../bench/processes.js";

// The operator's two ways to run the service (docs/operations.md, "Deploying on SQLite"): `npm start` in a checkout,
// which builds only when a source is newer than dist/, and the release, installed with production dependencies only.

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), "partner-release-"));
const started: ChildProcess[] = [];
afterAll(async () => {
  for (const proc of started) await stop(proc);
  rmSync(dir, { recursive: true, force: true });
});

/** Started in a process group of its own: `npm start` is npm, a shell and node, and the stop must reach node. */
function startIn(cwd: string, command: string, args: string[], env: Record<string, string>) {
  const proc = spawn(command, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  started.push(proc);
  const output: string[] = [];
  proc.stdout!.on("data", (chunk) => output.push(String(chunk)));
  proc.stderr!.on("data", (chunk) => output.push(String(chunk)));
  return { proc, output };
}

async function stop(proc: ChildProcess) {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once("exit", resolve));
  process.kill(-proc.pid!, "SIGKILL");
  await exited;
}

/** Waits for `GET /livez` 200, failing at once with the output when the process exits first. */
async function live(base: string, { proc, output }: { proc: ChildProcess; output: string[] }, timeoutMs: number) {
  await eventually(async () => {
    if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode}: ${output.join("")}`);
    return (await http("GET", `${base}/livez`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined;
  }, timeoutMs);
}

const mtime = (path: string) => statSync(path).mtimeMs;

describe("npm start on a built tree", () => {
  it("starts the compiled service without building again", async () => {
    // The global setup made dist/ current; a start that builds would write dist/ again (vite empties dist/web).
    const before = { page: mtime("dist/web/index.html"), main: mtime("dist/src/main.js") };
    const port = await freePort();
    const npm = startIn(process.cwd(), "npm", ["start"], {
      DATABASE_URL: join(dir, "start.db"),
      PORT: String(port),
      SIMULATOR_PORT: "0",
      METRICS_PORT: "0",
      LOG_LEVEL: "warn",
    });
    // Generous: a start that builds (the old prestart) takes 40 s and must fail below, not here.
    await live(`http://127.0.0.1:${port}`, npm, 120_000);
    expect(npm.output.join("")).not.toContain("building");
    expect({ page: mtime("dist/web/index.html"), main: mtime("dist/src/main.js") }).toEqual(before);
    await stop(npm.proc);
  }, 150_000);
});

describe("two starts at once on a stale tree", () => {
  it("build once: the second waits for the first's build, then finds dist/ current", async () => {
    // A tree of its own whose build is a stand-in that holds until told to finish.
    const tree = join(dir, "stale-tree");
    mkdirSync(join(tree, "scripts"), { recursive: true });
    mkdirSync(join(tree, "src"));
    copyFileSync("scripts/build-if-stale.mjs", join(tree, "scripts/build-if-stale.mjs"));
    writeFileSync(join(tree, "src/main.ts"), "export {};\n");
    writeFileSync(join(tree, "package.json"), JSON.stringify({ name: "stale-tree", private: true, scripts: { build: "node build.mjs" } }));
    writeFileSync(
      join(tree, "build.mjs"),
      `import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
appendFileSync("builds.log", "built\\n");
while (!existsSync("go")) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
mkdirSync("dist", { recursive: true });
writeFileSync("dist/.built", new Date().toISOString());
`,
    );
    const first = startIn(tree, process.execPath, ["scripts/build-if-stale.mjs"], {});
    await eventually(async () => (existsSync(join(tree, "builds.log")) ? true : undefined), 30_000);
    const second = startIn(tree, process.execPath, ["scripts/build-if-stale.mjs"], {});
    await eventually(async () => (second.output.join("").includes("being built by another process") ? true : undefined), 30_000);
    writeFileSync(join(tree, "go"), "");
    const codes = await Promise.all(
      [first, second].map(({ proc }) => new Promise((resolve) => (proc.exitCode !== null ? resolve(proc.exitCode) : proc.once("exit", resolve)))),
    );
    expect(codes).toEqual([0, 0]);
    expect(readFileSync(join(tree, "builds.log"), "utf8")).toBe("built\n");
  }, 90_000);
});

describe("npm run release", () => {
  it("packs the compiled service, which installs with production dependencies only and runs: API, purchase, admin CLI", async () => {
    const { stdout } = await exec(process.execPath, ["scripts/release.mjs", "--out", join(dir, "out")]);
    const tarball = stdout.trim().split(" ")[0];
    expect(tarball).toMatch(/partner-purchase-service-[\d.]+\.tar\.gz$/);

    // On the server: unpack, `npm ci --omit=dev`. Here: this checkout's node_modules pruned to the production
    // dependencies (offline, and no native build: what `npm ci --omit=dev` leaves, in seconds).
    await exec("tar", ["-xzf", tarball, "-C", dir]);
    const app = join(
      dir,
      readdirSync(dir).find((name) => name.startsWith("partner-purchase-service-"))!,
    );
    // What runtime reads from the tree (dist/: JavaScript, migrations, locales, the Mini App), the package files, the
    // build check the scripts run first, ops/; no sources.
    for (const path of [
      "dist/src/main.js",
      "dist/src/cli/admin.js",
      "dist/migrations/index.js",
      "dist/src/bot/locales/en.ftl",
      "dist/web/index.html",
    ]) {
      expect(existsSync(join(app, path)), path).toBe(true);
    }
    for (const path of ["package-lock.json", "scripts/build-if-stale.mjs", "ops/partner.service", "ops/node24.env"]) {
      expect(existsSync(join(app, path)), path).toBe(true);
    }
    expect(existsSync(join(app, "src"))).toBe(false);
    await exec("cp", ["-a", "node_modules", app]);
    await exec("npm", ["prune", "--omit=dev", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: app });
    for (const dev of ["vite", "tsx", "vitest", "knip"]) expect(existsSync(join(app, "node_modules", dev)), dev).toBe(false);
    // `npm ci` runs the prepare script: without sources it builds nothing and does not fail.
    const before = mtime(join(app, "dist/src/main.js"));
    await exec("npm", ["run", "-s", "prepare"], { cwd: app });
    expect(mtime(join(app, "dist/src/main.js"))).toBe(before);

    // `npm start` there: the defaults (SQLite in ./data/, the simulator in-process), as the quick start runs them.
    const port = await freePort();
    const env = { PORT: String(port), SIMULATOR_PORT: "0", METRICS_PORT: "0", LOG_LEVEL: "warn" };
    const service = startIn(app, process.execPath, START_ARGS, env);
    const base = `http://127.0.0.1:${port}`;
    await live(base, service, 60_000);

    const admin = (...args: string[]) => exec("npm", ["run", "-s", "admin", "--", ...args], { cwd: app, env: { ...process.env, ...env } });
    const key = (await admin("key", "123456789")).stdout.trim();
    expect(key).toMatch(/^sj_/);
    expect((await admin("credit", "123456789", "25")).stdout).toContain("25.00 USDT");
    const order = await http("POST", `${base}/v1/stars`, key, { username: "@alice", stars: 500, idempotency_key: "release-1" });
    expect(order.body).toMatchObject({ success: true, status: "completed", usdt_charged: 7.5 });
    expect((await http("GET", `${base}/v1/balance`, key)).body).toMatchObject({ balance_usdt: 17.5 });
    await stop(service.proc);
  }, 120_000);
});
