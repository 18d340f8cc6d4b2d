// `npm run release [-- --out <folder>]`: the artefact a server installs without dev dependencies and without
// building (docs/operations.md, "Deploying on SQLite"): release/partner-purchase-service-<version>.tar.gz holding
// one folder of the compiled service (dist/: the JavaScript, the migrations, the bot's locales, the Mini App), the
// package files `npm ci --omit=dev` reads, the build check its scripts run first (it builds nothing without src/),
// ops/ (the systemd unit, the pinned Node 24, the alert rules) and the docs. On the server: unpack,
// `npm ci --omit=dev`, `npm start` (or node dist/src/main.js).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { out: { type: "string", default: "release" } } });
const out = resolve(values.out);

// The build first, unless dist/ is current.
execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { stdio: ["ignore", 2, 2] });

const { name, version } = JSON.parse(readFileSync("package.json", "utf8"));
const folder = `${name}-${version}`;
mkdirSync(out, { recursive: true });
const staging = mkdtempSync(join(out, ".staging-"));
try {
  const root = join(staging, folder);
  for (const path of [
    "dist/src",
    "dist/migrations",
    "dist/web",
    "package.json",
    "package-lock.json",
    "scripts/build-if-stale.mjs",
    "ops",
    "docs",
    "README.md",
    "CHANGELOG.md",
  ]) {
    cpSync(path, join(root, path), { recursive: true });
  }
  // What this is, for whoever finds it unpacked on a server.
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["rev-parse", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (execFileSync("git", ["status", "--porcelain"], { encoding: "utf8" }).trim()) commit += " (with uncommitted changes)";
  } catch {
    // Not a git checkout.
  }
  writeFileSync(join(root, "RELEASE"), `${folder}\ncommit ${commit}\npacked ${new Date().toISOString()}\n`);
  const tarball = join(out, `${folder}.tar.gz`);
  rmSync(tarball, { force: true });
  execFileSync("tar", ["-czf", tarball, "-C", staging, folder]);
  console.log(`${tarball} (${(statSync(tarball).size / 1e6).toFixed(1)} MB)`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
