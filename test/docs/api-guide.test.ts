import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { PRODUCT_TYPES } from "../../src/core/model/products.js";
import { ledgerEntrySchema } from "../../src/wire/ledger.js";
import { CRYPTO_PAY_WEBHOOK_PATH } from "../../src/api/routes/topups.js";
import { pointCryptoPayWebhook } from "../../src/simulator/cryptopay.js";
import { startSimulator } from "../../src/simulator/server.js";
import { type CodeBlock, codeBlocks, type ShellStep, shellSteps, shownPattern } from "../support/doc-examples.js";
import { type ListeningHarness, startListeningHarness } from "../support/client-service.js";
import { Terminal } from "../support/doc-terminal.js";
import { eventually, startHarness } from "../support/harness.js";
import { freePort, kill } from "../support/processes.js";

// Every command and example of docs/api-guide.md (and the README's quick start), run against the real service as
// the text shows them, read from the files themselves: a stale example fails here. Shell blocks run in bash with
// the real curl and the real admin CLI (`npm run -s admin` is what its script runs), on a fresh service per
// section; each answer shown under a command is matched against the real one (`…` stands for anything). The
// TypeScript examples are compiled, strict, against the client's source; the JavaScript one is run.

const ROOT = resolve(import.meta.dirname, "../..");
const GUIDE = join(ROOT, "docs", "api-guide.md");
const README = join(ROOT, "README.md");
const ADMIN_SCRIPT = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.admin;
const exec = promisify(execFile);

/** Values the service makes anew each time: learnt from the real answer, then used for them in later commands. */
const VARYING = [
  "quote_id",
  "invoice_id",
  "pay_url",
  "web_app_url",
  "transaction_id",
  "provider_order_id",
  "codes",
  "secret",
  "event_id",
  "duration_ms",
  "created_at",
  "expires_at",
  "next_before",
  "retry_after",
];

// What a section needs before its first block, where the text says it in words ("a key funded from the admin CLI").
const NEW_KEY = "BASE=http://127.0.0.1:8080\nKEY=$(npm run -s admin -- key 123456789)";
const FUNDED_KEY = `${NEW_KEY}\nnpm run -s admin -- credit 123456789 25`;

interface Plan {
  /** Shell run first, on the same service: the state the section's answers are shown from. */
  before: "session" | string;
  env?: Record<string, string>;
}

/** By the start of the section's heading; any other section starts where the first walkthrough ends. */
const PLANS: [string, Plan][] = [
  ["A session with curl", { before: "" }],
  ["Binding quotes", { before: FUNDED_KEY }],
  ["Rate-limit headers", { before: NEW_KEY, env: { RATE_LIMIT_PER_MINUTE: "60" } }],
  ["Top-ups", { before: NEW_KEY }],
];
const planOf = (section: string): Plan => PLANS.find(([start]) => section.startsWith(start))?.[1] ?? { before: "session" };

const guideBlocks = () => codeBlocks(readFileSync(GUIDE, "utf8"));
const isShell = (block: CodeBlock) => block.lang === "sh" || block.lang === "bash";
/** A block that starts a server (the webhook receiver): run beside the others, for the section's length. */
const isServer = (block: CodeBlock) => /\.listen\(\d+\)/.test(block.code);

function yearMonth(date: Date): string {
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`;
}

/** The text's addresses, dates and sleeps made this run's; then what was learnt from earlier answers. */
function localise(text: string, s: { base: string; simulator: string; receiverPort: number }, learnt: Map<string, string>): string {
  const now = new Date();
  const month = yearMonth(now);
  const next = yearMonth(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));
  let out = text
    .replaceAll("http://127.0.0.1:8080", s.base)
    .replaceAll("localhost:8080", s.base.replace("http://", ""))
    .replaceAll("http://127.0.0.1:9090", s.simulator)
    .replaceAll("localhost:9090", s.simulator.replace("http://", ""))
    .replace(/\b9900\b/g, String(s.receiverPort))
    // The simulator runs at a hundredth of the providers' times (SIMULATOR_TIME_SCALE): a second covers any wait shown.
    .replace(/\bsleep \d+/g, "sleep 1")
    // The statement's example month is this month.
    .replaceAll("2026-12-01", `${next}-01`)
    .replaceAll("20261201T", `${next.replace("-", "")}01T`)
    .replaceAll("2026-11-", `${month}-`)
    .replaceAll("202611", month.replace("-", ""));
  for (const [shown, real] of learnt) out = out.replaceAll(shown, real);
  return out;
}

const BASH_PRELUDE = String.raw`
set +e
npm() {
  if [ "$1 $2 $3 $4" = "run -s admin --" ]; then shift 4; "$NODE" ${ADMIN_SCRIPT.replace(/^node /, "").replace(/(?<=^| )(scripts|dist)\//g, '"$ROOT"/$1/')} "$@"
  else echo "npm $*: not a command this test runs" >&2; return 97; fi
}
curl() {
  local args=() wrote=""
  while [ $# -gt 0 ]; do
    if [ "$1" = "-w" ]; then args+=(-w "$2%{stderr}@@STATUS %{http_code}\n"); wrote=1; shift 2; else args+=("$1"); shift; fi
  done
  [ -n "$wrote" ] || args+=(-w '%{stderr}@@STATUS %{http_code}\n')
  command curl "@ARGS@"
}
`.replace("@ARGS@", () => "${args[@]}");

interface Service {
  s: ListeningHarness;
  dir: string;
  receiverPort: number;
  learnt: Map<string, string>;
  servers: ChildProcess[];
}

async function startService(env: Record<string, string> = {}): Promise<Service> {
  const s = await startListeningHarness(env);
  // As npm start does: the simulated Crypto Pay posts paid invoices to this service.
  await pointCryptoPayWebhook(s.h.simulatorUrl, `${s.baseUrl}${CRYPTO_PAY_WEBHOOK_PATH}`);
  return { s, dir: mkdtempSync(join(tmpdir(), "guide-")), receiverPort: await freePort(), learnt: new Map(), servers: [] };
}

async function stopService(service: Service) {
  for (const server of service.servers) await kill(server);
  await service.s.close();
  rmSync(service.dir, { recursive: true, force: true });
}

function bashEnv(service: Service): NodeJS.ProcessEnv {
  return { ...process.env, ROOT, NODE: process.execPath, DATABASE_URL: service.s.h.databaseUrl, ...service.s.h.databaseEnv };
}

const where = (service: Service) => ({ base: service.s.baseUrl, simulator: service.s.h.simulatorUrl, receiverPort: service.receiverPort });

/** One command, run; what differs from the text. */
async function runStep(terminal: Terminal, service: Service, step: ShellStep & { label: string }, command: string): Promise<string[]> {
  const problems: string[] = [];
  const { output: text, err, exit } = await terminal.run(command);
  const statuses = [...err.matchAll(/@@STATUS (\d+)/g)].map((m) => Number(m[1]));
  const at = `${step.label}: ${command.slice(0, 160)}`;
  if (exit !== "0") problems.push(`${at}\n  exited ${exit}: ${err.replace(/@@STATUS \d+\n?/g, "").trim()}`);
  // A refusal is an error unless the text shows it (` HTTP 402`), or the command is about refusals (a wrong key).
  const refused = statuses.filter((status) => status >= 400 && !step.statuses.includes(status));
  if (refused.length > 0 && !command.includes("sj_wrong")) problems.push(`${at}\n  answered ${refused.join(", ")}: ${text.slice(0, 300)}`);
  let output = text;
  const file = /-o (?!\/dev\/null)(\S+)/.exec(command)?.[1];
  if (file) output += `\n${readFileSync(join(service.dir, file), "utf8").replace(/\r\n/g, "\n")}`;
  for (const shown of step.expected) {
    const expected = learn(localise(shown, where(service), service.learnt), output, service.learnt);
    if (!shownPattern(expected).test(output)) problems.push(`${at}\n  the guide shows: ${expected}\n  the service said: ${output.slice(-2000)}`);
  }
  return problems;
}

/** Runs shell blocks' commands in one terminal and says where the service answers otherwise than the text shows. */
async function runShell(service: Service, blocks: { code: string; label: string }[]): Promise<string[]> {
  const steps = blocks.flatMap(({ code, label }) => shellSteps(code).map((step) => ({ ...step, label })));
  const terminal = new Terminal({ cwd: service.dir, env: bashEnv(service), prelude: BASH_PRELUDE });
  const problems: string[] = [];
  try {
    for (const step of steps) {
      const command = localise(step.command, where(service), service.learnt);
      // A read may be a moment early for what a background job does (a webhook's delivery): asked again, as a reader would.
      const reads = /^curl /.test(command) && !/ -(?:d|X) /.test(command);
      const deadline = Date.now() + (reads ? 5000 : 0);
      for (;;) {
        const found = await runStep(terminal, service, step, command);
        if (found.length === 0 || Date.now() > deadline) {
          problems.push(...found);
          break;
        }
        await new Promise((wake) => setTimeout(wake, 250));
      }
    }
  } finally {
    await terminal.close();
  }
  return problems;
}

/** Takes each varying field's real value for the one shown (and keeps it for later commands). */
function learn(text: string, output: string, learnt: Map<string, string>): string {
  // Seconds left in the rate window depend on when the command ran.
  const header = /^(x-ratelimit-reset|ratelimit-reset|retry-after): \d+$/i.exec(text);
  if (header) return `${header[1]}: …`;
  const shown = text.replace(/retry in [^"]*"/, 'retry in …"');
  const value = String.raw`("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|\[[^\]]*\])`;
  let expected = shown;
  for (const field of VARYING) {
    for (const m of shown.matchAll(new RegExp(`"${field}":${value}`, "g"))) {
      // A value shown in part ("sim_ce98…") only says it is there.
      if (m[1].includes("…")) {
        expected = expected.replace(m[0], `"${field}":…`);
        continue;
      }
      const real = new RegExp(`"${field}":${value}`).exec(output)?.[1];
      if (real === undefined || real === m[1]) continue;
      const bare = (v: string) => v.replace(/^"|"$/g, "");
      expected = expected.replace(m[0], `"${field}":${real}`);
      // Only a value long enough to be unmistakable is put for the shown one elsewhere (an id in a later command).
      if (bare(m[1]).length >= 6) {
        learnt.set(bare(m[1]), bare(real));
        expected = expected.replaceAll(bare(m[1]), bare(real));
      }
    }
  }
  return expected;
}

async function startServer(service: Service, code: string): Promise<void> {
  const server = spawn("bash", ["-c", localise(code, where(service), service.learnt)], { cwd: service.dir, env: bashEnv(service), stdio: "ignore" });
  service.servers.push(server);
  await eventually(async () => {
    try {
      return (await fetch(`http://127.0.0.1:${service.receiverPort}/`, { method: "POST", body: "{}" })).ok || undefined;
    } catch {
      return undefined;
    }
  });
}

describe("docs/api-guide.md, run", () => {
  const sections = [
    ...new Set(
      guideBlocks()
        .filter(isShell)
        .map((block) => block.section),
    ),
  ];

  it.each(sections)(
    "runs the shell of “%s” as shown",
    async (section) => {
      const blocks = guideBlocks();
      const plan = planOf(section);
      const service = await startService(plan.env);
      try {
        const before =
          plan.before === "session" ? (blocks.find((block) => isShell(block) && block.section === PLANS[0][0])?.code ?? "") : plan.before;
        const own = blocks.filter((b) => b.section === section && isShell(b));
        for (const block of own.filter(isServer)) await startServer(service, block.code);
        const problems = await runShell(service, [
          { code: before, label: "before the section" },
          ...own.filter((block) => !isServer(block)).map((block) => ({ code: block.code, label: `docs/api-guide.md:${block.line}` })),
        ]);
        expect(problems).toEqual([]);
      } finally {
        await stopService(service);
      }
    },
    60_000,
  );

  it("compiles every TypeScript example, strict, against the client", async () => {
    const dir = mkdtempSync(join(tmpdir(), "guide-ts-"));
    try {
      const examples = guideBlocks().filter((block) => block.lang === "ts" || block.lang === "typescript");
      expect(examples.length).toBeGreaterThan(5);
      const names = ["createClient", "PartnerApiError", "verifyWebhook"];
      const files = examples.map((block) => {
        const imports = block.code.split("\n").filter((line) => line.startsWith("import "));
        const body = block.code.split("\n").filter((line) => !line.startsWith("import "));
        const missing = names.filter((name) => !imports.some((line) => new RegExp(`\\b${name}\\b`).test(line)));
        const file = `guide-line-${block.line}.mts`;
        writeFileSync(
          join(dir, file),
          [
            `import { ${missing.join(", ")} } from "@sj/partner-client";`,
            ...imports,
            // What the text around the examples names: the key, the address, the client made above, a delivery.
            "declare const KEY: string, BASE: string, rawBody: string, previousSecret: string, secret: string;",
            "declare const api: ReturnType<typeof createClient>;",
            "declare const request: { headers: Record<string, string | string[] | undefined> };",
            "export async function example(): Promise<void> {",
            ...body,
            "}",
            `void [${names.join(", ")}];`,
          ].join("\n"),
        );
        return file;
      });
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
            typeRoots: [join(ROOT, "node_modules", "@types")],
            paths: { "@sj/partner-client": [join(ROOT, "client", "src", "index.ts")] },
          },
          files,
        }),
      );
      const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
      const result = await exec(process.execPath, [tsc, "-p", dir]).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
      expect(result.replaceAll(dir, "")).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("runs the JavaScript signature check: a true signature passes, a forged or stale one does not", async () => {
    const [block] = guideBlocks().filter((b) => b.lang === "js" && /function verified\(/.test(b.code));
    expect(block, "the guide's verified(header, rawBody, secret)").toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "guide-js-"));
    try {
      writeFileSync(join(dir, "verified.mjs"), `${block.code}\nexport { verified };\n`);
      const { verified } = (await import(pathToFileURL(join(dir, "verified.mjs")).href)) as {
        verified: (header: string, rawBody: string, secret: string) => boolean;
      };
      const body = '{"id":"evt_1","type":"ping"}';
      const sign = (t: number, secret: string) => `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
      const now = Math.floor(Date.now() / 1000);
      expect(verified(sign(now, "whsec_a"), body, "whsec_a")).toBe(true);
      expect(verified(`${sign(now, "whsec_old")},v1=${sign(now, "whsec_a").split("v1=")[1]}`, body, "whsec_a")).toBe(true);
      expect(verified(sign(now, "whsec_b"), body, "whsec_a")).toBe(false);
      expect(verified(sign(now - 600, "whsec_a"), body, "whsec_a")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the simulated Crypto Pay token the simulator accepts", async () => {
    const token = /with the\s+token `([^`]+)` in `Crypto-Pay-API-Token`/.exec(readFileSync(GUIDE, "utf8"))?.[1];
    expect(token, "the guide names the simulator's Crypto Pay token").toBeDefined();
    const simulator = await startSimulator(0);
    try {
      const response = await fetch(`${simulator.url}/cryptopay/api/getMe`, { headers: { "Crypto-Pay-API-Token": token! } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true });
    } finally {
      await simulator.app.close();
    }
  });

  it("lists every kind of ledger entry", () => {
    const text = readFileSync(GUIDE, "utf8");
    const listed = /`kind` \(([^)]*)\)/.exec(text.slice(text.indexOf("## Ledger statement")))?.[1] ?? "";
    expect([...listed.matchAll(/`(\w+)`/g)].map((m) => m[1]).sort()).toEqual([...ledgerEntrySchema.shape.kind.options].sort());
  });
});

describe("the README's quick start, run", () => {
  it("answers the curl purchase as shown", async () => {
    const blocks = codeBlocks(readFileSync(README, "utf8")).filter((block) => isShell(block) && /\bcurl /.test(block.code));
    expect(blocks.length).toBeGreaterThan(0);
    const service = await startService();
    try {
      const problems = await runShell(
        service,
        blocks.map((block) => ({ code: block.code, label: `README.md:${block.line}` })),
      );
      expect(problems).toEqual([]);
    } finally {
      await stopService(service);
    }
  }, 60_000);
});

/** The table "How each product's purchase answers", row by product: its cells as written. */
function purchaseTable(): Map<string, string[]> {
  const lines = readFileSync(GUIDE, "utf8").split("\n");
  const head = lines.findIndex((line) => line.startsWith("| product | purchase | accepted |"));
  const rows = new Map<string, string[]>();
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.split(" | ").map((cell) => cell.replace(/^\| ?| ?\|$/g, "").trim());
    rows.set(cells[0].replaceAll("`", ""), cells.slice(1));
  }
  return rows;
}

const statusesIn = (cell: string) => [...cell.matchAll(/\b([1-5]\d\d)\b/g)].map((m) => Number(m[1]));

/** Per product: a purchase that completes (or is accepted), one that fails at the provider, and a fault that leaves it processing. */
const PURCHASES: Record<string, { path: string; ok: object; fails: { path?: string; body: object }; processing?: "gateway" | "gifts" }> = {
  stars: { path: "/v1/stars", ok: { username: "alice", stars: 100 }, fails: { body: { username: "fail_bob", stars: 100 } }, processing: "gateway" },
  premium: { path: "/v1/premium", ok: { username: "bob", months: 3 }, fails: { body: { username: "fail_bob", months: 3 } }, processing: "gateway" },
  store: { path: "/v1/store", ok: { login: "gabe", amount_usd: 10 }, fails: { body: { login: "fail_gabe", amount_usd: 10 } } },
  game: {
    path: "/v1/games/genshin/order",
    ok: { player_id: "700123456", server_id: "os_euro", denomination: "60 Genesis Crystals" },
    fails: { body: { player_id: "999123456", server_id: "os_euro", denomination: "60 Genesis Crystals" } },
  },
  giftcard: {
    path: "/v1/giftcards/psn-us/order",
    ok: { card_id: "psn-us-10", quantity: 1 },
    fails: { path: "/v1/giftcards/apple-us/order", body: { card_id: "apple-us-fail", quantity: 1 } },
  },
  gift: {
    path: "/v1/gifts",
    ok: { recipient: "@alice", gift_id: "5170145012310081615" },
    fails: { body: { recipient: "fail_x", gift_id: "5170145012310081615" } },
    processing: "gifts",
  },
};

describe("the guide's table of purchase answers", () => {
  it("has a row for every product, and each row is what the service answers", async () => {
    const table = purchaseTable();
    expect([...table.keys()].sort()).toEqual([...PRODUCT_TYPES].sort());
    const h = await startHarness();
    try {
      const { key } = await h.newKey(1000);
      const buy = (path: string, body: object) => h.call("POST", path, { key, body });
      const seen: Record<string, { accepted: number[]; processingSuccess?: boolean; failed: number; failedHasOrder: boolean; balance: string[] }> =
        {};
      for (const [product, p] of Object.entries(PURCHASES)) {
        const ok = await buy(p.path, p.ok);
        const accepted = [ok.status];
        let processing = ok.body.status === "processing" ? ok : undefined;
        if (p.processing) {
          // The provider takes the order and never answers: its outcome is unknown when the answer leaves.
          await h.fault(p.processing, "hang_after_accept");
          processing = await buy(p.path, p.ok);
          await h.fault(p.processing, "ok");
          accepted.push(processing.status);
        } else if (product === "store") {
          processing = await buy(p.path, { ...p.ok, login: "pending_gabe" });
          accepted.push(processing.status);
        }
        const failed = await buy(p.fails.path ?? p.path, p.fails.body);
        seen[product] = {
          accepted: [...new Set(accepted)].sort(),
          processingSuccess: processing?.body.status === "processing" ? processing.body.success : undefined,
          failed: failed.status,
          failedHasOrder: typeof failed.body.order_id === "number",
          balance: Object.keys(ok.body).filter((field) => field.includes("balance")),
        };
      }
      const written = Object.fromEntries(
        [...table].map(([product, [route, accepted, processingSuccess, failed, balance]]) => [
          product,
          {
            route: /`POST ([^`]+)`/.exec(route)?.[1],
            accepted: [...new Set(statusesIn(accepted))].sort(),
            processingSuccess: processingSuccess.includes("`true`") ? true : processingSuccess.includes("`false`") ? false : undefined,
            failed: statusesIn(failed)[0],
            failedHasOrder: /with the order|then `failed`/.test(failed),
            balance: [...balance.matchAll(/`(\w*balance\w*)`/g)].map((m) => m[1]),
          },
        ]),
      );
      const real = Object.fromEntries(
        Object.entries(seen).map(([product, answer]) => [
          product,
          { route: PURCHASES[product].path.replace("genshin", "{code}").replace("psn-us", "{category_id}"), ...answer },
        ]),
      );
      expect(written).toEqual(real);
    } finally {
      await h.close();
    }
  }, 30_000);
});
