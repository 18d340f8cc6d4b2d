import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/database.js";
import { migrateToLatest } from "../../src/db/migrate.js";
import { onServer, postgresDatabaseUrl, runPrefix, TEMPLATE_POSTGRES_ENV, TEMPLATE_SQLITE_ENV } from "./databases.js";

/**
 * The compiled build, made once per run (as `npm start` makes it) for the tests that start real processes
 * (test/e2e, the CLI smoke test): they run `node dist/…`, never a cold tsx. The same check `npm run admin` runs
 * first: skipped when dist/ is already current (`npm install` builds it through the prepare script).
 */
function build() {
  execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { stdio: "inherit" });
}

/** Debian's Chromium, which the Mini App's tests drive (playwright-core cannot download its own browser here). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * Installs Chromium when it is missing, as root with apt-get (these machines' way), or stops the run at once
 * saying how: `npm test` alone does all the set-up on a fresh machine.
 */
function ensureChromium() {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Chromium is needed for the Mini App's browser tests and is not at ${CHROMIUM}: install it (sudo apt-get install -y chromium), or set CHROMIUM_PATH`,
    );
  }
  // The emoji font only makes the screenshots read as the app does in Telegram.
  console.log("Installing Debian's chromium (and an emoji font) for the Mini App's browser tests (apt-get, once)…");
  const install = () =>
    execFileSync("apt-get", ["install", "-y", "-q", "chromium", "fonts-noto-color-emoji"], {
      stdio: "inherit",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  try {
    install();
  } catch {
    // Stale package lists on a fresh machine: refresh them once and try again.
    execFileSync("apt-get", ["update", "-q"], { stdio: "inherit" });
    install();
  }
}

/** Debian's libfaketime, preloaded into a service process whose wall clock a test sets ahead (test/e2e/clocks.pg.test.ts). */
export const LIBFAKETIME =
  process.env.LIBFAKETIME_PATH ?? `/usr/lib/${process.arch === "arm64" ? "aarch64" : "x86_64"}-linux-gnu/faketime/libfaketimeMT.so.1`;

/** Installs libfaketime when it is missing, as ensureChromium installs Chromium (apt-get as root), or says how. */
function ensureFaketime() {
  if (existsSync(LIBFAKETIME)) return;
  if (process.getuid?.() !== 0) {
    throw new Error(
      `libfaketime is needed by the skewed-clock tests and is not at ${LIBFAKETIME}: install it (sudo apt-get install -y libfaketime), or set LIBFAKETIME_PATH`,
    );
  }
  console.log("Installing Debian's libfaketime for the skewed-clock tests (apt-get, once)…");
  const install = () =>
    execFileSync("apt-get", ["install", "-y", "-q", "libfaketime"], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  try {
    install();
  } catch {
    execFileSync("apt-get", ["update", "-q"], { stdio: "inherit" });
    install();
  }
}

/** Migrates the database at `url` from empty, then closes it (SQLite's WAL folded into its file). */
async function migrated(url: string): Promise<void> {
  const db = openDatabase(url, { poolMax: 1 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

let templateDir: string | undefined;

/**
 * The run's migrated templates (testDatabase's `migrated`), one per engine: a harness copies one instead of
 * migrating an empty database anew (on PostgreSQL a second or more each time, a hundred times a run). Handed to the
 * test workers in the environment, as the run's id is.
 */
async function makeTemplates(): Promise<void> {
  // The setup runs once for each project (they extend the root's), in turn, in one process: the first makes them.
  if (process.env[TEMPLATE_SQLITE_ENV]) return;
  templateDir = mkdtempSync(join(tmpdir(), "partner-template-"));
  const file = join(templateDir, "partner.db");
  await migrated(file);
  process.env[TEMPLATE_SQLITE_ENV] = file;
  if (process.env.TEST_POSTGRES_REACHABLE !== "1") return;
  const name = `${runPrefix(process.env.TEST_RUN_ID!)}template`;
  await onServer((client) => client.query(`create database ${name}`));
  await migrated(postgresDatabaseUrl(name));
  process.env[TEMPLATE_POSTGRES_ENV] = name;
}

/** Names this run, so its PostgreSQL databases can be told apart from another run's on the same server. */
export async function setup() {
  process.env.TEST_RUN_ID = String(process.pid);
  ensureChromium();
  ensureFaketime();
  build();
  await makeTemplates();
}

/** Removes the run's templates, and drops whatever databases of this run a crashed or killed test file left behind. */
export async function teardown() {
  if (templateDir) rmSync(templateDir, { recursive: true, force: true });
  if (process.env.TEST_POSTGRES_REACHABLE !== "1") return;
  const prefix = runPrefix(String(process.pid));
  await onServer(async (client) => {
    const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like $1", [`${prefix}%`]);
    for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
  });
}
