import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type pino from "pino";
import { targetLabel } from "../core/admin.js";
import type { Core } from "../core/index.js";
import type { MarkupDefaults } from "../core/markup.js";
import type { Topups } from "../core/topups.js";
import type { StarBook } from "../core/star-book.js";
import type { StarReconciliation, StarSummary } from "../core/model/star-book.js";
import { differenceLine, toStarBookView } from "../wire/star-book.js";
import type { ReadCommand } from "./admin-reads.js";
import { DomainError } from "../core/model/errors.js";
import { MARKUP_PRODUCTS, type MarkupProduct } from "../core/model/account.js";
import { secretMask } from "./secrets.js";
import { formatUsdt, MAX_USDT, type Micro, parseBasisPoints, parseUsdt } from "../core/model/money.js";

/** How many orders `orders` lists unless --limit says, and the most it lists. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 500;

const USAGE = `usage: npm run admin -- <command>
reads (each with --json: the API's field names and amounts):
  user <target>                                      the account: key, blocked, balance, markups, owner limits, created
  balance <target>                                   what the account can spend now
  order <order-id>                                   an order as stored: product, recipient, charge, provider ids, ledger
                                                     entries, webhook events
  orders [<target>] [--limit <n>]                    the latest orders (${DEFAULT_LIMIT} unless --limit, at most ${MAX_LIMIT}), newest first
  topup <topup-id>                                   a top-up, whose it is, and its ledger entries
  topups                                             top-ups by method and state, with what was credited
  held                                               orders held because the bot's Star transactions cannot tell
                                                     whether they were delivered (the \`held\` alert)
  stars                                              the bot's Star balance (live), what open orders will spend, today's
                                                     Stars in and out, each product's margin in Stars, the last
                                                     reconciliation with Telegram
changes:
  key <telegram-id>                                  register the user if new, print a new key (the old one stops working)
  credit <target> <usdt> [note]                      add to the balance (not of an owner key: see wallet)
  debit <target> <usdt> [note]                       take from the balance
  block <target> | unblock <target>                  block or unblock the user's key
  markup <target> <store|games|giftcards> <percent|default>
  owner <target> [--daily-limit <usdt|none>] [--order-limit <usdt|none>]
                                                     make the key an owner key; a limit not named stays as it is
  wallet <usdt>                                      set the service wallet that owner keys spend
  resolve <order-id> <delivered|refund>              decide a held order: delivered keeps the charge, refund returns it
  stars reconcile                                    reconcile the Star book with Telegram now; exit 1 on a difference
  stars refund <topup-id>                            give a Stars top-up's Stars back, its credit taken back first
  backup <file> [--with-codes-key]                   copy the SQLite database while the service runs, verified; never
                                                     overwrites; --with-codes-key also writes <file>.codes.key
  preflight [--json]                                 before going live: the configuration, the database, the bot's
                                                     token, every product's backend, the rates, Crypto Pay; exit 0
                                                     ready, 2 a rehearsal (something simulated), 1 a check failed
  help                                               this text
a target: a Telegram user id, an @username the bot has seen, or a key prefix (sj_xxxx); it must name exactly one
  account, and every answer names the account by its Telegram id and @username
amounts: USDT above 0 and at most ${MAX_USDT}, with at most 6 decimals`;

const ACTOR = `cli:${process.env.USER ?? "admin"}`;

class UsageError extends Error {}
/** A read that found nothing by what it was given: an answer, said in its one line. */
class NothingFound extends Error {}

function telegramId(value: string | undefined): string {
  if (!value || !/^[1-9]\d{0,19}$/.test(value)) throw new UsageError(`a Telegram user id is a positive whole number, got ${value ?? "nothing"}`);
  return value;
}

function usdt(value: string | undefined): Micro {
  const micro = value === undefined ? null : parseUsdt(value);
  if (micro === null) throw new UsageError(`an amount is a USDT number up to ${MAX_USDT} with at most 6 decimals, got ${value ?? "nothing"}`);
  return micro;
}

/** An owner limit: an amount, `none` to remove it, or (not given) keep it. */
const limit = (value: string | undefined) => (value === undefined ? undefined : value === "none" ? null : usdt(value));
const shown = (micro: Micro | null) => (micro === null ? "none" : formatUsdt(micro));

/** A reconciliation in lines: whether the book matches, then each difference. */
function reconciliationLines(r: StarReconciliation): string[] {
  const head = `${r.at}: ${r.differenceCount ? `${r.differenceCount} difference${r.differenceCount === 1 ? "" : "s"}` : "the book matches Telegram"} (balance ${r.balance}, book ${r.book}${r.settling ? `, ${r.settling} settling` : ""}, opening ${r.opening}, ${r.transactions} transactions compared)`;
  const more = r.differenceCount > r.differences.length ? [`  … and ${r.differenceCount - r.differences.length} more (see the service log)`] : [];
  return [head, ...r.differences.map((d) => `  ${differenceLine(d)}`), ...more];
}

const signed = (stars: number) => (stars > 0 ? `+${stars}` : String(stars));
const kinds = (flows: Partial<Record<string, number>>) =>
  Object.entries(flows)
    .map(([kind, stars]) => `${kind} ${signed(stars!)}`)
    .join(", ") || "none";

/** `stars`: the summary, one fact a line. */
function summaryLines(s: StarSummary): string[] {
  const lines = [
    `bot's Star balance: ${s.balance === null ? `cannot be read (${s.balanceError})` : `${s.balance} (live)`}`,
    `open orders will spend: ${s.open.stars} Stars (${s.open.orders} gift and Premium orders processing or held)`,
    `today (${s.today.day} UTC): in ${kinds(s.today.in)}; out ${kinds(s.today.out)}; net ${signed(s.today.net)}`,
  ];
  if (s.rateMicro === null) lines.push("margins: none worked out (Stars top-ups are not offered: no top-up rate)");
  else {
    lines.push(`margins in Stars at the top-up rate (${formatUsdt(s.rateMicro)} USDT a Star), less what the bot pays:`);
    for (const m of s.margins)
      lines.push(
        `  ${m.product === "gift" ? "gift, per Star" : `premium ${m.months} months`}: ${formatUsdt(m.priceMicro)} USDT = ${m.inStars} Stars in, ${m.costStars} out, margin ${signed(m.marginStars)}`,
      );
  }
  if (!s.last) lines.push("last reconciliation: none yet (npm run admin -- stars reconcile)");
  else lines.push(...reconciliationLines(s.last).map((line, i) => (i === 0 ? `last reconciliation ${line}` : line)));
  return lines;
}

/** `stars`, `stars reconcile`, `stars refund <topup-id>`. */
async function stars(starBook: StarBook, topups: Topups, argv: string[]): Promise<Printed> {
  const [sub, id, ...extra] = argv;
  if (sub === undefined) return summaryLines(await starBook.summary()).join("\n");
  if (sub === "reconcile" && id === undefined) {
    const result = await starBook.reconcile();
    return { text: reconciliationLines(result).join("\n"), code: result.differenceCount ? 1 : 0 };
  }
  if (sub === "refund" && extra.length === 0) {
    const topup = await topups.refundStars(rowId(id, "a top-up id"), { actor: ACTOR });
    return `top-up #${topup.id} refunded: ${topup.stars} Stars given back to Telegram user ${topup.payerId}, ${formatUsdt(topup.reversedMicro ?? 0)} USDT taken back from the balance`;
  }
  throw new UsageError(`stars takes nothing, reconcile, or refund <topup-id>; got ${argv.join(" ")}`);
}

/** What a command prints on stdout, and its exit code when not 0. */
type Printed = string | { text: string; code: number };

/** An id of an order or a top-up, as the database numbers them. */
function rowId(value: string | undefined, what: string): number {
  if (!value || !/^[1-9]\d{0,9}$/.test(value) || Number(value) > 2_147_483_647)
    throw new UsageError(`${what} is a whole number from 1 to 2147483647, got ${value ?? "nothing"}`);
  return Number(value);
}

/** `--limit`: how many orders, DEFAULT_LIMIT when not given. */
function orderLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  if (!/^[1-9]\d{0,3}$/.test(value) || Number(value) > MAX_LIMIT)
    throw new UsageError(`--limit is a whole number from 1 to ${MAX_LIMIT}, got ${value}`);
  return Number(value);
}

/** The read commands (src/cli/admin-reads.ts, loaded when one runs). */
const READ_COMMANDS = Object.keys({
  user: true,
  balance: true,
  order: true,
  orders: true,
  topup: true,
  topups: true,
  held: true,
} satisfies Record<ReadCommand, true>) as ReadCommand[];
const isRead = (command: string | undefined): command is ReadCommand => READ_COMMANDS.includes(command as ReadCommand);

/** Runs one command and returns what to print; the key command prints the key alone. */
async function run(core: Core, markups: MarkupDefaults, argv: string[]): Promise<Printed> {
  const { admin, topups, held, starBook } = core;
  // parseArgs would take "-5" for an option: say what it is instead.
  const negative = argv.find((arg) => /^-\d/.test(arg));
  if (negative) throw new UsageError(`amounts and ids cannot be negative, got ${negative}`);
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "daily-limit": { type: "string" },
      "order-limit": { type: "string" },
      json: { type: "boolean" },
      limit: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, first, second, ...rest] = positionals;
  if (values.help || command === "help") return USAGE;
  const reading = isRead(command) || (command === "stars" && first === undefined);
  if (values.json && !reading) throw new UsageError(`--json is for the read commands (${READ_COMMANDS.join(", ")}, stars)`);
  if (values.limit !== undefined && command !== "orders") throw new UsageError("--limit is for orders");
  /** The one account `first` names (refused when none or several). */
  const account = async () => {
    if (!first) throw new UsageError("a target is needed: a Telegram user id, an @username or a key prefix");
    return admin.resolveTarget(first);
  };
  /** The one account `first` names, and how answers name it. */
  const target = async () => {
    const found = await account();
    return { id: found.telegramId, label: targetLabel(found) };
  };
  if (isRead(command)) {
    const most = command === "topups" || command === "held" ? 0 : 1;
    if (positionals.length > most + 1)
      throw new UsageError(`${command} takes ${most ? "one argument" : "nothing"}, got ${positionals.slice(1).join(" ")}`);
    const args = {
      target: account,
      targeted: first !== undefined,
      id: (what: string) => rowId(first, what),
      limit: orderLimit(values.limit),
      markups,
    };
    const { READS } = await import("./admin-reads.js");
    const shown = await READS[command](core, args).catch((error: unknown) => {
      throw error instanceof DomainError && error.code === "not_found" ? new NothingFound(error.message) : error;
    });
    return values.json ? JSON.stringify(shown.json, null, 2) : shown.text.join("\n");
  }
  switch (command) {
    case "key":
      return (await admin.issueKey(telegramId(first))).key;
    case "credit":
    case "debit": {
      const { id, label } = await target();
      const move = command === "credit" ? admin.credit : admin.debit;
      // A command typed on the server is the operator's confirmation: the CLI asks nothing (core/confirm.ts).
      const moved = await move(id, usdt(second), ACTOR, { note: rest.join(" ") || undefined, confirmed: true });
      return `balance of ${label}: ${formatUsdt(moved)} USDT`;
    }
    case "block":
    case "unblock": {
      const { id, label } = await target();
      await admin.setBlocked(id, command === "block", ACTOR);
      return `${label}: ${command === "block" ? "blocked" : "unblocked"}`;
    }
    case "markup": {
      if (!MARKUP_PRODUCTS.includes(second as MarkupProduct)) throw new UsageError(`markup applies to ${MARKUP_PRODUCTS.join(", ")}`);
      const [percent] = rest;
      const basisPoints = percent === "default" ? null : parseBasisPoints(percent ?? "");
      if (basisPoints === null && percent !== "default") {
        throw new UsageError("a percent is a number from 0 to 100 such as 4 or 2.5, or 'default'");
      }
      const { id, label } = await target();
      await admin.setMarkup(id, second as MarkupProduct, basisPoints, ACTOR);
      return `${label}: ${second} markup ${basisPoints === null ? "back to the default" : `${percent}%`}`;
    }
    case "owner": {
      const requested = { dailyLimitMicro: limit(values["daily-limit"]), orderLimitMicro: limit(values["order-limit"]) };
      const { id, label } = await target();
      const applied = await admin.makeOwner(id, requested, ACTOR);
      return `${label}: owner key spending the service wallet (daily limit ${shown(applied.dailyLimitMicro)}, per-order limit ${shown(applied.orderLimitMicro)})`;
    }
    case "wallet":
      return `service wallet: ${formatUsdt(await admin.setWallet(usdt(first), ACTOR, { confirmed: true }))} USDT`;
    case "resolve": {
      const id = rowId(first, "an order id");
      if (second !== "delivered" && second !== "refund") throw new UsageError(`decide with delivered or refund, got ${second ?? "nothing"}`);
      const order = await held.resolve(id, second, ACTOR);
      return `order #${order.id}: ${order.status === "completed" ? "completed, the charge stands" : `refunded ${formatUsdt(order.chargeMicro)} USDT`}`;
    }
    case "stars":
      if (values.json) return JSON.stringify(toStarBookView(await starBook.summary()), null, 2);
      return stars(starBook, topups, positionals.slice(1));
    default:
      throw new UsageError(command ? `unknown command ${command}` : "no command given");
  }
}

const isHelp = (argv: string[]) => argv.length === 1 && ["help", "--help", "-h"].includes(argv[0]);

/** What runAdmin reads and where it writes: a line to stdout (`out`) or stderr (`err`), the process's own streams by default. */
export interface AdminOptions {
  /** The settings (DATABASE_URL, CODES_KEY, …) as the environment gives them; process.env by default. */
  env?: Record<string, string | undefined>;
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Where the service's own log lines go (warnings only); stderr by default. */
  logDestination?: pino.DestinationStream;
}

/** `backup <file>`: what was copied and verified on stdout, or one line on stderr saying why not; the exit code. */
async function backup(
  argv: string[],
  env: Record<string, string | undefined>,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const withKey = argv.includes("--with-codes-key");
  const [file, ...extra] = argv.filter((arg) => arg !== "--with-codes-key");
  if (!file || extra.length || file.startsWith("-")) {
    err(`backup takes one file name, got ${argv.length ? argv.join(" ") : "none"}\n\n${USAGE}`);
    return 1;
  }
  const { BackupRefused, backupDatabase, refusePostgres } = await import("./backup.js");
  const { loadConfig } = await import("../config.js");
  try {
    refusePostgres(env.DATABASE_URL); // before the config, which on PostgreSQL would first ask for CODES_KEY
    for (const line of await backupDatabase(loadConfig(env), file, { withKey })) out(line);
    return 0;
  } catch (error) {
    if (!(error instanceof BackupRefused) && !(error as Error).message?.startsWith("invalid configuration")) throw error;
    err(`backup refused: ${(error as Error).message}`);
    return 1;
  }
}

/**
 * `npm run admin -- <argv>` in-process: runs one command and returns the exit code (0 done, 1 refused, with
 * why and the usage on `err`). The tests call this; the process entry below only passes its arguments.
 */
export async function runAdmin(argv: string[], options: AdminOptions = {}): Promise<number> {
  const { env = process.env } = options;
  // Every line any command prints passes the mask: no secret of the configuration reaches the terminal.
  const mask = secretMask(env);
  const print = options.out ?? ((line: string) => console.log(line));
  const printErr = options.err ?? ((line: string) => console.error(line));
  const out = (line: string) => print(mask(line));
  const err = (line: string) => printErr(mask(line));
  // The backup opens no core: it must not create, migrate or write to the database it copies.
  if (argv[0] === "backup") return backup(argv.slice(1), env, out, err);
  if (argv[0] === "preflight") return (await import("./preflight.js")).preflight(env, out, argv.slice(1));
  // Help needs no database: answered before anything is opened or loaded.
  if (isHelp(argv)) {
    out(USAGE);
    return 0;
  }
  // The same root as the service (logging only warnings, to stderr), so the CLI sees exactly what it sees.
  // Loaded here, not at the top, so help starts in a fraction of a second and the backup opens no core.
  const { loadConfig } = await import("../config.js");
  const { openCore } = await import("../root.js");
  const config = loadConfig(env);
  const { service } = await openCore({ ...config, logLevel: "warn" }, { logDestination: options.logDestination ?? process.stderr });
  const { core, close } = service;
  try {
    const printed = await run(core, config.sales.markups, argv);
    out(typeof printed === "string" ? printed : printed.text);
    return typeof printed === "string" ? 0 : printed.code;
  } catch (error) {
    if (error instanceof NothingFound) {
      err(error.message);
      return 1;
    }
    const refused = error instanceof UsageError || error instanceof DomainError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
    if (!refused) throw error;
    // Every refusal says why, then how the commands are written; nothing was changed.
    err(`${(error as Error).message}\n\n${USAGE}`);
    return 1;
  } finally {
    await close();
  }
}

// Run as a program (node dist/src/cli/admin.js, or tsx), not when imported by the tests.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  if (!isHelp(argv)) (await import("../config.js")).loadDotEnv();
  try {
    process.exitCode = await runAdmin(argv);
  } catch (error) {
    // An unexpected failure (the database unreachable, …): its message and stack, masked like every other line.
    console.error(secretMask(process.env)(String((error as Error).stack ?? error)));
    process.exitCode = 1;
  }
}
