import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { variables } from "../../src/config/variables.js";
import { EMULATOR_DEFAULT_PORT, startEmulator } from "../../src/emulator/server.js";
import { onServer, runPrefix } from "../support/databases.js";
import { type CodeBlock, codeBlocks, shellSteps, shownPattern } from "../support/doc-examples.js";
import { Terminal } from "../support/doc-terminal.js";
import { eventually } from "../support/harness.js";
import { freePort } from "../support/processes.js";

// Every shell recipe of docs/operations.md and docs/go-live.md, run as written (decisions/0039-recipes-run.md): in a
// fresh folder holding the built checkout as "the install", with a clean environment, real processes, PostgreSQL
// at 127.0.0.1:5432, one command at a time as an operator types them. Each answer shown under a command is matched
// (`…` stands for anything), every command must exit 0, and while it runs: no secret (.env's keys, tokens and
// passwords, an API key, the codes key) on any process's command line (checked in `ps` after each command and in
// bash's trace of every command run), every file holding one owner-only, every pid file naming the node process
// itself, at most one build per recipe.
//
// A recipe says how it runs in the line above its fence (none: run as it stands, in an empty install):
//   <!-- recipe: run on <state> -->            starts from a state made first (STATES below), in a new folder
//   <!-- recipe: run with "a" as "b", "c" as the Bot API emulator -->   the text "a" run as "b"
//   <!-- recipe: not run: <why> -->            listed, with why
//   <!-- recipe: lines of .env -->             each line a variable the service reads
//   <!-- recipe: the file .env -->             that too, and the whole file (its <…> filled in) a valid configuration
// A section's blocks run in one shell, in order; a block that names a state starts a new one. What the test
// always changes is the machine's: the ports the text shows (8080, 8081, 9090, 9464, 9465) become free ones, the
// database and role `partner` one of this run, `npm run build` / `npm ci` / `npm start`'s build the check that
// the install is built (the run's global setup built it; each is counted).

const ROOT = resolve(import.meta.dirname, "../..");
const GUIDES = ["docs/operations.md", "docs/go-live.md"];
/** What a checkout holds that the service, its CLI and the simulator run from. */
const INSTALL = [
  "package.json",
  "package-lock.json",
  "node_modules",
  "dist",
  "src",
  "migrations",
  "scripts",
  "web",
  "tsconfig.json",
  "tsconfig.build.json",
];
const DOC_PORTS = [8080, 8081, 9090, 9464, 9465];

/** The states a recipe can start from, written in the text's own ports and names (changed as the recipe's are). */
const STATES: Record<string, string> = {
  PostgreSQL: "",
  "the service's PostgreSQL database": [
    "umask 077",
    "createdb -h 127.0.0.1 -U postgres partner",
    `printf 'DATABASE_URL=postgres://postgres@127.0.0.1:5432/partner\\nCODES_KEY=%s\\n' "$(openssl rand -base64 32)" > .env`,
    "npm run -s migrate",
    "npm run -s admin -- key 123456789 | sed 's/^/X-API-Key: /' > key.header",
    "npm run -s admin -- credit 123456789 25",
  ].join("\n"),
  "a running service": [
    "umask 077",
    "printf 'PORT=8080\\nMETRICS_PORT=9464\\nSIMULATOR_PORT=9090\\n' > .env",
    "mkdir -p run",
    "node --enable-source-maps dist/src/main.js >> service.log 2>&1 & echo $! > run/partner.pid",
    "until curl -sfo /dev/null 127.0.0.1:8080/readyz; do sleep 1; done",
    "npm run -s admin -- key 123456789 | sed 's/^/X-API-Key: /' > key.header",
    "npm run -s admin -- credit 123456789 25",
  ].join("\n"),
};

type How =
  | { kind: "run"; state?: string; subs: [string, string][] }
  | { kind: "not run"; why: string }
  | { kind: "env"; whole: boolean }
  | { kind: "unknown"; marker: string };

function howOf(marker: string | undefined): How {
  if (marker === undefined) return { kind: "run", subs: [] };
  const notRun = /^not run: (.+)$/.exec(marker);
  if (notRun) return { kind: "not run", why: notRun[1] };
  if (marker === "lines of .env" || marker === "the file .env") return { kind: "env", whole: marker === "the file .env" };
  const run = /^run(?: on (.+?))?(?: with (.+))?$/.exec(marker);
  if (!run || (run[1] !== undefined && !(run[1] in STATES))) return { kind: "unknown", marker };
  const subs = [...(run[2] ?? "").matchAll(/"([^"]+)" as (?:"([^"]+)"|([^,"]+?))(?=, "|$)/g)].map((m): [string, string] => [
    m[1],
    m[2] ?? `@${m[3]}`,
  ]);
  return { kind: "run", state: run[1], subs };
}

interface Located extends CodeBlock {
  guide: string;
  how: How;
}

function guideBlocks(): Located[] {
  return GUIDES.flatMap((guide) =>
    codeBlocks(readFileSync(join(ROOT, guide), "utf8"))
      .filter((block) => block.marker !== undefined || block.lang === "sh" || block.lang === "bash")
      .map((block) => ({ ...block, guide, how: howOf(block.marker) })),
  );
}

const at = (block: Located) => `${block.guide}:${block.line}`;
const sectionOf = (block: Located) => `${block.guide} › ${block.section}`;

interface Unit {
  name: string;
  state?: string;
  blocks: Located[];
}

/** The recipes to run: a section's runnable blocks in one shell, a new one at each block naming a state. */
function units(): Unit[] {
  const out: Unit[] = [];
  let current: Unit | undefined;
  for (const block of guideBlocks()) {
    if (block.how.kind !== "run") continue;
    if (!current || sectionOf(current.blocks[0]) !== sectionOf(block) || block.how.state !== undefined) {
      current = { name: `${sectionOf(block)} (line ${block.line})`, state: block.how.state, blocks: [] };
      out.push(current);
    }
    current.blocks.push(block);
  }
  return out;
}

const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
/** The scripts npm would run, run as npm runs them (without npm's own start, a second or so each on a busy machine). */
const direct = ["admin", "migrate"].map((name) => `    ${name}) ${SCRIPTS[name]} "$@" ;;`).join("\n");

/** Whether `npm start` builds every time (a prestart that builds, not only when stale): then it counts as a build. */
const startBuilds = /\bbuild\b/.test(SCRIPTS.prestart ?? "") && !/if-stale/.test(SCRIPTS.prestart ?? "");

/** Bash's stand-ins and tracing: every command run is written, its words expanded, to the trace file. */
const PRELUDE = String.raw`
set +e
npm() {
  local name
  if [ "$1" = run ]; then shift; [ "$1" = -s ] && shift; name=$1; shift; [ "$1" = -- ] && shift; else name=$1; shift; fi
  case "$name" in
    build | ci | install) echo "npm $name" >> "$RECIPE_BUILDS"; node scripts/build-if-stale.mjs ;;
    start) ${startBuilds ? 'echo "npm start" >> "$RECIPE_BUILDS"; ' : ""}node scripts/build-if-stale.mjs && ${SCRIPTS.start} "$@" ;;
${direct}
    *) command npm run "$name" -- "$@" ;;
  esac
}
exec 7>>"$RECIPE_TRACE"
BASH_XTRACEFD=7
set -x
`;

/** Words bash runs itself: no process, so nothing on a process list (a function's own commands are traced). */
const NOT_PROCESSES = new Set(
  "echo printf read cd umask kill test [ [[ local export unset exec true false set shopt source . eval wait trap return break continue let declare typeset shift case for while until if then do done npm".split(
    " ",
  ),
);

/** The commands of bash's trace that ran as processes, each with its arguments as `ps` would show them. */
function processLines(trace: string): string[] {
  return trace
    .split("\n")
    .filter((line) => /^\++ /.test(line))
    .map((line) => line.replace(/^\++ /, "").replace(/^(?:\w+=(?:'[^']*'|"[^"]*"|\S*)\s+)*/, ""))
    .filter((line) => {
      const word = line.split(/\s/)[0];
      return word !== "" && !/^\w+=/.test(word) && !NOT_PROCESSES.has(word);
    });
}

/** The secrets a recipe's folder holds by now. */
function secretsIn(dir: string): string[] {
  const secrets: string[] = [];
  const read = (file: string) => (existsSync(join(dir, file)) ? readFileSync(join(dir, file), "utf8") : "");
  for (const line of read(".env").split("\n")) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    if (/KEY|TOKEN|SECRET|PASSWORD/.test(m[1])) secrets.push(m[2]);
    const password = /:\/\/[^:/@]+:([^@]+)@/.exec(m[2])?.[1];
    if (password) secrets.push(password);
  }
  const key = /X-API-Key: (\S+)/.exec(read("key.header"))?.[1];
  if (key) secrets.push(key);
  secrets.push(read("data/codes.key").trim());
  return secrets.filter((secret) => secret.length >= 8);
}

const API_KEY = /sj_[A-Za-z0-9_-]{20,}/;

function secretOn(text: string, secrets: string[]): string | undefined {
  const found = secrets.find((secret) => text.includes(secret)) ?? API_KEY.exec(text)?.[0];
  return found === undefined ? undefined : `${found.slice(0, 6)}…`;
}

/** Files holding a secret, or of a kind that does (.env, databases, dumps, keys), that others may read. */
function looseFiles(dir: string, secrets: string[]): string[] {
  const loose: string[] = [];
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile()) {
        if ((stat.mode & 0o077) === 0) continue;
        const kind = /^\.env$|\.(db|dump|key|header)$|-(wal|shm)$/.test(name);
        const text = kind ? "" : readFileSync(path, "latin1");
        if (kind || secrets.some((s) => text.includes(s))) loose.push(`${relative(dir, path)} is ${(stat.mode & 0o777).toString(8)}`);
      }
    }
  };
  walk(dir);
  return loose;
}

/** What `run/<name>.pid` names: the node process itself (not npm, not a subshell), or why not. */
async function pidProblem(file: string): Promise<string | undefined> {
  const pid = readFileSync(file, "utf8").trim();
  const argv = () => (existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") : []);
  // `node … & echo $! > …`: the forked shell becomes node a moment later.
  const seen = await eventually(async () => (argv()[0]?.endsWith("bash") ? undefined : argv()), 10_000).catch(() => argv());
  if (seen.length === 0) return `${file}: ${pid} had exited when read`;
  if (!/(^|\/)node$/.test(seen[0]) || !seen.some((arg) => /main\.(js|ts)$/.test(arg)))
    return `${file}: ${pid} is \`${seen.join(" ")}\`, not the node process`;
  return undefined;
}

interface Machine {
  ports: Map<number, number>;
  db: string;
  emulator?: string;
}

function onMachine(text: string, machine: Machine, subs: [string, string][]): string {
  let out = text;
  for (const [shown, real] of subs) out = out.replaceAll(shown, real === "@the Bot API emulator" ? machine.emulator! : real);
  out = out.replace(new RegExp(`\\b(${DOC_PORTS.join("|")})\\b`, "g"), (port) => String(machine.ports.get(Number(port))));
  // The database and role `partner` (not the files named partner-…, partner.db, /srv/partner/…).
  return out.replace(/(^|[\s/=:])partner(?=(?:_restored)?(?:[\s:@;'"\\]|$))/gm, `$1${machine.db}`);
}

interface Ran {
  dir: string;
  machine: Machine;
}

/** Runs one recipe in a fresh install; `after` looks at what it left before everything is ended. */
async function runUnit(unit: Unit, after?: (ran: Ran) => Promise<string[]>): Promise<string[]> {
  const base = mkdtempSync(join(tmpdir(), "recipe-"));
  const dir = join(base, "install");
  mkdirSync(dir);
  mkdirSync(join(base, "home"));
  for (const entry of INSTALL) symlinkSync(join(ROOT, entry), join(dir, entry));
  const machine: Machine = {
    ports: new Map(await Promise.all(DOC_PORTS.map(async (port): Promise<[number, number]> => [port, await freePort()]))),
    db: `${runPrefix(process.env.TEST_RUN_ID ?? "adhoc")}r${randomBytes(4).toString("hex")}`,
  };
  const needsEmulator = unit.blocks.some((block) => block.how.kind === "run" && block.how.subs.some(([, real]) => real === "@the Bot API emulator"));
  const emulator = needsEmulator ? await startEmulator(0) : undefined;
  machine.emulator = emulator?.url;
  const trace = join(base, "trace");
  const builds = join(base, "builds");
  // A fresh machine's environment: nothing of this test's (no DATABASE_URL, no TEST_*).
  const env = { PATH: process.env.PATH, HOME: join(base, "home"), LANG: "C.UTF-8", RECIPE_TRACE: trace, RECIPE_BUILDS: builds };
  const terminal = new Terminal({ cwd: dir, env, prelude: PRELUDE, group: true });
  const problems: string[] = [];
  const pidsSeen = new Set<string>();
  try {
    const parts = [
      { label: `the state “${unit.state}”`, code: STATES[unit.state ?? ""] ?? "", subs: [] as [string, string][] },
      ...unit.blocks.map((block) => ({ label: at(block), code: block.code, subs: block.how.kind === "run" ? block.how.subs : [] })),
    ];
    for (const part of parts) {
      for (const step of shellSteps(part.code)) {
        const command = onMachine(step.command, machine, part.subs);
        const { output, err, exit } = await terminal.run(command, 90_000);
        const where = `${part.label}: ${step.command.split("\n")[0].slice(0, 120)}`;
        if (exit !== "0") problems.push(`${where}\n  exited ${exit}: ${err.trim().slice(-600)}`);
        for (const shown of step.expected) {
          const expected = onMachine(shown, machine, part.subs);
          if (!shownPattern(expected).test(output)) problems.push(`${where}\n  the text shows: ${expected}\n  it answered: ${output.slice(-1000)}`);
        }
        const secret = secretOn(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }), secretsIn(dir));
        if (secret) problems.push(`${where}\n  a secret (${secret}) is on a process's command line`);
        const run = join(dir, "run");
        for (const file of existsSync(run) ? readdirSync(run).filter((name) => name.endsWith(".pid")) : []) {
          if (pidsSeen.has(file)) continue;
          pidsSeen.add(file);
          const problem = await pidProblem(join(run, file));
          if (problem) problems.push(`${where}\n  ${problem}`);
        }
      }
    }
    if (after) problems.push(...(await after({ dir, machine })));
    const secrets = secretsIn(dir);
    for (const line of processLines(existsSync(trace) ? readFileSync(trace, "utf8") : "")) {
      const secret = secretOn(line, secrets);
      if (secret) problems.push(`a secret (${secret}) on a command line: ${line.split(" ")[0]} (ps shows it while it runs)`);
    }
    problems.push(...looseFiles(dir, secrets).map((file) => `others may read ${file}`));
    const built = existsSync(builds) ? readFileSync(builds, "utf8").trim().split("\n") : [];
    if (built.length > 1) problems.push(`built ${built.length} times (${built.join(", ")}): build once, then start each instance`);
  } finally {
    await terminal.close();
    await emulator?.app.close();
    await onServer(async (client) => {
      for (const name of [machine.db, `${machine.db}_restored`]) await client.query(`drop database if exists ${name} with (force)`);
      await client.query(`drop role if exists ${machine.db}`);
    });
    rmSync(base, { recursive: true, force: true });
  }
  return problems;
}

/** What a recipe promises beyond its shown answers, by the section it is in. */
const AFTER: Record<string, (ran: Ran) => Promise<string[]>> = {
  "docs/operations.md › PostgreSQL and several instances": async ({ dir, machine }) => {
    // kill -9 of the pid file's process ended that instance, and only it (the file is named by its port).
    const file = join(dir, "run", `${machine.ports.get(8080)}.pid`);
    if (!existsSync(file)) return ["no run/8080.pid"];
    const pid = readFileSync(file, "utf8").trim();
    const gone = () => !existsSync(`/proc/${pid}`) || / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
    return (await eventually(async () => gone() || undefined, 10_000).catch(() => false))
      ? []
      : [`the instance ${pid} killed by its pid file still runs`];
  },
  "docs/operations.md › Backups and restore": async ({ dir, machine }) => {
    if (!existsSync(join(dir, ".env")) || !readFileSync(join(dir, ".env"), "utf8").includes("postgres://")) return [];
    // The dump restored holds what the database held.
    const balances = (db: string) =>
      onServer(async (client) => JSON.stringify((await client.query("select telegram_id, balance_micro from accounts order by id")).rows), db);
    const [original, restored] = await Promise.all([balances(machine.db), balances(`${machine.db}_restored`)]).catch((error: Error) => [
      error.message,
      "",
    ]);
    return original.includes("123456789") && original === restored ? [] : [`the restored database differs: ${original} / ${restored}`];
  },
};

describe("the operations and go-live guides' recipes, run", () => {
  // Side by side: each in its own folder, on its own ports and database, mostly waiting on its processes.
  it.concurrent.each(units().map((unit) => [unit.name, unit] as const))(
    "runs %s as written",
    async (_, unit) => {
      const problems = await runUnit(unit, AFTER[sectionOf(unit.blocks[0])]);
      expect(problems).toEqual([]);
    },
    180_000,
  );

  it("says how every block is run, and lists those it does not run", () => {
    const blocks = guideBlocks();
    const unknown = blocks.filter((block) => block.how.kind === "unknown").map((block) => `${at(block)}: ${block.marker}`);
    expect(unknown, "markers the test cannot read").toEqual([]);
    const notRun = blocks.flatMap((block) => (block.how.kind === "not run" ? [`${at(block)}: ${block.how.why}`] : []));
    console.info(`blocks of the guides not run:\n  ${notRun.join("\n  ")}`);
  });

  it("writes only variables the service reads in the guides' .env lines, and the production .env is a valid configuration", () => {
    const names = new Set(Object.keys(variables.shape));
    const envBlocks = guideBlocks().filter((block) => block.how.kind === "env");
    expect(envBlocks.length).toBeGreaterThanOrEqual(2);
    for (const block of envBlocks) {
      const lines = block.code.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
      const entries = lines.map((line) => /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line));
      expect(
        lines.filter((_, i) => !entries[i] || !names.has(entries[i][1])),
        `${at(block)}: lines that are not a variable the service reads`,
      ).toEqual([]);
      if (block.how.kind !== "env" || !block.how.whole) continue;
      const env = Object.fromEntries(entries.map((m) => [m![1], fill(m![1], m![2])]));
      expect(() => loadConfig(env), `${at(block)}, its <…> filled in`).not.toThrow();
    }
  });

  it("names only admin commands that exist, and jq filters that compile", () => {
    const text = GUIDES.map((guide) => readFileSync(join(ROOT, guide), "utf8")).join("\n");
    const help = execFileSync(process.execPath, [join(ROOT, "dist/src/cli/admin.js"), "help"], { encoding: "utf8" });
    const commands = new Set([...help.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]));
    const named = [...new Set([...text.matchAll(/npm run (?:-s )?admin -- ([a-z]+)/g)].map((m) => m[1]))];
    expect(named.filter((command) => !commands.has(command))).toEqual([]);
    const filters = [...text.matchAll(/`(jq -cR '[^`]+')`/g)].map((m) => m[1].replace(/\n\s*/g, " ").replace("<provider>", "gateway"));
    expect(filters.length).toBeGreaterThan(1);
    for (const filter of filters) expect(() => execFileSync("bash", ["-c", `${filter} < /dev/null`]), filter).not.toThrow();
  });

  it("keeps tokens and keys off the command lines it shows, and finds no process by its name", () => {
    const problems: string[] = [];
    for (const block of guideBlocks()) {
      for (const { command } of shellSteps(block.code)) if (/\b(pgrep|pkill|killall)\b/.test(command)) problems.push(`${at(block)}: ${command}`);
    }
    for (const guide of GUIDES) {
      for (const [, span] of readFileSync(join(ROOT, guide), "utf8").matchAll(/`([^`]+)`/g)) {
        const command = span.replace(/\n\s*/g, " ");
        if (!/^(curl|psql|sudo)\b/.test(command)) continue;
        if (/bot<BOT_TOKEN>|X-API-Key: [<$]|password '<|PGPASSWORD=/.test(command) || (/\$BOT_TOKEN/.test(command) && !/-K- <<</.test(command))) {
          problems.push(`${guide}: ${command}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("gives the Bot API emulator a port no recipe gives the service", () => {
    const text = readFileSync(join(ROOT, "docs/operations.md"), "utf8");
    const used = new Set([...text.matchAll(/\b(?:METRICS_)?PORT=(\d+)/g)].map((m) => Number(m[1])));
    expect(used.size).toBeGreaterThan(2);
    expect(used.has(EMULATOR_DEFAULT_PORT)).toBe(false);
  });
});

/** A placeholder's value: the example it gives (`e.g. 0.013`), or one of the right shape for its variable. */
function fill(name: string, value: string): string {
  const example: Record<string, string> = {
    DATABASE_URL: "password",
    CODES_KEY: randomBytes(32).toString("base64"),
    BOT_TOKEN: "7000000001:AAreal-looking-token-from-botfather",
    BOT_WEBHOOK_SECRET: randomBytes(32).toString("hex"),
    CRYPTO_PAY_TOKEN: "12345:AAreal-looking-crypto-pay-token",
    SUPPORT_CONTACT: "@shop_support",
  };
  let ids = 100_000_000;
  return value.replace(/<([^>]*)>/g, (_, inside: string) => {
    const given = /e\.g\. ([^>]+)$/.exec(inside)?.[1];
    if (given) return given;
    if (/\bid\b/.test(inside) && name === "ADMIN_TELEGRAM_IDS") return String(++ids);
    return example[name] ?? `${name.toLowerCase()}-value`;
  });
}
