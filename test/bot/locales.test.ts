import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Core } from "../../src/core/index.js";
import type { ErrorCode } from "../../src/core/model/errors.js";
import type { LedgerKind } from "../../src/core/model/ledger.js";
import type { OrderStatus } from "../../src/core/model/order.js";
import { PRODUCT_TYPES } from "../../src/core/model/products.js";
import { REASONS } from "../../src/core/model/reasons.js";
import type { TopupMethod, TopupStatus } from "../../src/core/model/topup.js";
import { PORT_NAMES } from "../../src/core/ports.js";
import { createI18n } from "../../src/bot/i18n.js";
import type { AlertDetails } from "../../src/wire/alerts.js";

// Every message of the bot's locale files, rendered in both languages the way the bot renders it (its own i18n), with
// every variant of every selector, plural counts 1, 2, 5 and 21, and real-looking values: nothing missing, nothing
// in one language only, no raw {…} left; and every key the code names is in both files (issue 48, point 7).

const LOCALES = join(import.meta.dirname, "../../src/bot/locales");
const LANGUAGES = ["en", "ru"] as const;
const i18n = createI18n({} as Core, new Map());

interface Message {
  id: string;
  text: string;
}

/** How many placeables are open at the end of `text`. */
const depth = (text: string) => [...text].reduce((open, c) => open + (c === "{" ? 1 : c === "}" ? -1 : 0), 0);

/**
 * The file's messages (an id at the start of a line; its continuation lines indented, or closing a placeable still
 * open), and any line that is neither (Fluent's parser skips such a line silently, with whatever it held).
 */
function parse(source: string): { messages: Message[]; stray: string[] } {
  const messages: Message[] = [];
  const stray: string[] = [];
  let current: Message | undefined;
  for (const line of source.split("\n")) {
    const head = /^([a-z][\w-]*) =(.*)$/.exec(line);
    if (head) messages.push((current = { id: head[1]!, text: head[2]! }));
    else if (current && (/^\s+\S/.test(line) || (line.startsWith("}") && depth(current.text) > 0))) current.text += `\n${line}`;
    else if (line.trim() === "" || line.startsWith("#")) current = undefined;
    else stray.push(line);
  }
  return { messages, stray };
}

const files = Object.fromEntries(LANGUAGES.map((l) => [l, parse(readFileSync(join(LOCALES, `${l}.ftl`), "utf8"))])) as Record<
  (typeof LANGUAGES)[number],
  ReturnType<typeof parse>
>;

/** Each selector's variable with its variants' keys, and every variable the message reads. */
function shape(text: string): { variables: Set<string>; selectors: Map<string, Set<string>> } {
  const selectors = new Map<string, Set<string>>();
  const open: Array<string | null> = [];
  for (const [token, selector, key] of text.matchAll(/\{\s*\$(\w+)\s*->|\{|\}|^\s*\*?\[([^\]]+)\]/gm)) {
    if (selector) open.push(selector);
    else if (token === "{") open.push(null);
    else if (token === "}") open.pop();
    else {
      const owner = open.filter((name) => name !== null).at(-1);
      if (!owner) throw new Error(`a variant outside any selector: ${token}`);
      (selectors.get(owner) ?? selectors.set(owner, new Set()).get(owner)!).add(key!.trim());
    }
  }
  return { variables: new Set([...text.matchAll(/\$(\w+)/g)].map((m) => m[1]!)), selectors };
}

const PLURALS = new Set(["zero", "one", "two", "few", "many", "other"]);
/** The counts that show every plural form: Russian one (1, 21), few (2), many (5); English one and other. */
const COUNTS = [1, 2, 5, 21];

/** Values as the bot passes them: amounts formatted as USDT, ids, names, addresses, times. */
const SAMPLES: Record<string, string | number> = {
  amount: "12.50",
  id: 42,
  max: "10000.00",
  min: "1.00",
  balance: "87.25",
  name: "Alice",
  username: "alice_b",
  user: "680000001 @alice_b",
  threshold: "5.00",
  target: "@alice_b",
  reason: "No such payment on the account",
  status: "completed",
  product: "stars",
  charged: "1.50",
  url: "https://partner.example.com/hooks/orders",
  until: "2026-12-01 14:30",
  price: "0.75",
  since: "2026-11-29 16:05",
  prefix: "sj_a1b2c3d4",
  needed: "15.00",
  method: "transfer",
  list: "stars 12.00 USDT, Premium 45.90 USDT",
  game: "Mobile Legends",
  brand: "PlayStation Store (US)",
  at: "2026-11-29 16:05",
  what: "100 stars for @alice_b",
  volume: "12.00",
  unit: "USD",
  total: "-3.00",
  to: "2026-11-30",
  from: "2026-11-01",
  source: "stars",
  short: "0.40",
  result: "HTTP 500 in 120 ms",
  recipient: "@alice_b",
  provider: "stars (protocol)",
  percent: "4%",
  perOrder: "50.00",
  order_id: 117,
  opening: "10.00",
  closing: "22.50",
  notes: "Redeemable on US accounts only",
  note: "Transfer top-up 12 approved",
  login: "gabe_n",
  line: "#42 stars → @alice_b · 1.50 USDT",
  emoji: "🧸",
  denomination: "86 Diamonds",
  contact: "@helpdesk",
  charge: "1.50",
  by: "Ann (680000901)",
  balance_usdt: "120.00",
  threshold_usdt: "200.00",
  why: "links are not allowed",
  was: "1.50",
  now: "1.55",
  uzs: "1 112 000",
  usdt: "87.25",
  ton: "16.42",
  usage: "/credit <target> <usdt> [note]",
  unpaid: 6,
  type: "order.completed",
  topup_id: 31,
  today: "500.00",
  taken: "1.20",
  credited: "2.50",
  short_usdt: "1.30",
  stock: 40,
  server: "2001",
  rates: "store top-up default, game credit 4%, gift cards default",
  rate: "0.01",
  products: "store, games, giftcards",
  pending: 3,
  others: "#12 (credited, 680000002)",
  next: "2026-11-29 16:35",
  ms: 84,
  message: "Happy birthday!",
  markup: "0.40",
  limit: 1000,
  latest: "stxAbC123",
  later: "I will message you when it is delivered or refunded.",
  label: "From a customer:",
  kind: "standard",
  invoice_id: 9001,
  first: "charge stxAbC123: 250 stars not in the book",
  fee: "0.30",
  docs: "https://shop.example.com/openapi.json",
  api: "https://shop.example.com/v1/",
  differences: 2,
  date: "2026-11-28 09:12",
  daily: "500.00",
  credit: "2.50",
  commands: "/credit <target> <usdt> [note]\n/stats",
  codes: "PSN-1111-2222-3333\nPSN-4444-5555-6666",
  cheapest: "0.75",
  cause: "connect ECONNREFUSED 127.0.0.1:5432",
  candidates: "680000001 @alice_b, 680000002 @alice_c",
  brands: "• PlayStation Store (US) (Redeemable on US accounts only)",
  book: 1200,
  backend: "protocol",
  anomaly: "amount_mismatch",
  after: "85.75",
  accounts: 1,
  account_id: 7,
  quantity: 2,
  stars: 250,
  count: 3,
  hours: 24,
  months: 6,
  minutes: 10,
  orders: 3,
};

/** Every combination of the message's selector values, each with the plain variables' samples. */
function argumentSets(message: Message): Array<Record<string, string | number>> {
  const { variables, selectors } = shape(message.text);
  const base: Record<string, string | number> = {};
  for (const name of variables) {
    if (selectors.has(name)) continue;
    if (!(name in SAMPLES)) throw new Error(`${message.id}: no sample value for $${name}: add a real-looking one`);
    base[name] = SAMPLES[name]!;
  }
  let sets = [base];
  for (const [name, keys] of selectors) {
    const values = [...keys].every((k) => PLURALS.has(k)) ? COUNTS : [...keys].every((k) => /^\d+$/.test(k)) ? [...keys].map(Number) : [...keys];
    sets = sets.flatMap((set) => values.map((value) => ({ ...set, [name]: value })));
  }
  return sets;
}

/** The string literals under src/bot shaped like a key (kebab-case), and the prefixes of keys built from a template. */
function keysInCode(): { literals: Set<string>; prefixes: Set<string> } {
  const literals = new Set<string>();
  const prefixes = new Set<string>();
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
    );
  for (const file of walk(join(import.meta.dirname, "../../src/bot"))) {
    const source = readFileSync(file, "utf8");
    for (const [, literal] of source.matchAll(/"([a-z][a-z0-9]*(?:-[a-z0-9_]+)+)"/g)) literals.add(literal!);
    for (const [, prefix] of source.matchAll(/\bt\(\s*`([a-z][\w-]*-)\$\{/g)) prefixes.add(prefix!);
  }
  return { literals, prefixes };
}

/** Kebab-case literals in the bot's code that are not message keys, each with what it is. */
const NOT_KEYS: Record<string, string> = {
  "last-month": "a statement export's range",
  "reject-transfer": "a conversation's id",
  "telegram-polling": "the polling role's name",
  "x-telegram-bot-api-secret-token": "Telegram's webhook header",
};

/** Every value a template key is built from, named by the types the code reads (a new value fails to compile here). */
const every = <T extends string>(values: Record<T, true>) => Object.keys(values);
const TEMPLATE_VALUES: Record<string, string[]> = {
  "product-": [...PRODUCT_TYPES],
  "status-": every<OrderStatus>({ processing: true, completed: true, failed: true }),
  "ledger-kind-": every<LedgerKind>({ credit: true, debit: true, charge: true, refund: true, adjustment: true, topup: true, reversal: true }),
  "topup-method-": every<TopupMethod>({ invoice: true, transfer: true, stars: true }),
  "topup-status-": every<TopupStatus>({
    creating: true,
    active: true,
    pending: true,
    credited: true,
    expired: true,
    cancelled: true,
    rejected: true,
    failed: true,
    refunding: true,
    refunded: true,
  }),
  "reason-": [...REASONS],
  "upstream-": [...PORT_NAMES],
  "refused-": every<ErrorCode>({
    invalid_input: true,
    unauthorized: true,
    key_blocked: true,
    forbidden: true,
    not_found: true,
    insufficient_funds: true,
    rate_limited: true,
    upstream_failed: true,
    unavailable: true,
  }),
  "kind-": ["standard", "owner", "wallet"],
};
const ALERT_KINDS = every<AlertDetails["kind"]>({
  provider: true,
  refunds: true,
  wallet: true,
  stuck: true,
  held: true,
  ledger: true,
  cryptopay: true,
  funds: true,
  invoices: true,
  anomalies: true,
  starbook: true,
  unmatched: true,
  shortrefunds: true,
  database: true,
});

describe("the bot's locale files", () => {
  it("parse whole: every line is a message, its continuation, a comment or blank", () => {
    for (const language of LANGUAGES) expect(files[language].stray, language).toEqual([]);
  });

  it("hold the same keys in English and Russian, each once", () => {
    const [en, ru] = LANGUAGES.map((l) => files[l].messages.map((m) => m.id));
    expect(new Set(en).size, "a key twice in en.ftl").toBe(en!.length);
    expect(new Set(ru).size, "a key twice in ru.ftl").toBe(ru!.length);
    expect(
      en!.filter((id) => !ru!.includes(id)),
      "in English only",
    ).toEqual([]);
    expect(
      ru!.filter((id) => !en!.includes(id)),
      "in Russian only",
    ).toEqual([]);
  });

  it("render every message in both languages, every variant and plural form, with nothing raw left", () => {
    let rendered = 0;
    for (const language of LANGUAGES) {
      for (const message of files[language].messages) {
        for (const args of argumentSets(message)) {
          const text = i18n.t(language, message.id, args);
          rendered++;
          const where = `${language} ${message.id} ${JSON.stringify(args)}: ${text}`;
          expect(text.trim(), where).not.toBe("");
          expect(text, where).not.toMatch(/[{}]|\$\w|undefined|NaN|\[object/);
        }
      }
    }
    expect(rendered).toBeGreaterThan(2 * 400);
  });

  it("say a count as the language says it: 1, 2, 5 and 21 orders in whole sentences", () => {
    const line = (language: string, orders: number, status: string) =>
      i18n.t(language, "adm-stats-line", { product: i18n.t(language, "product-game"), status, orders, volume: "3.00" });
    expect([1, 2, 5, 21].map((n) => line("en", n, "completed"))).toEqual([
      "game credit: 1 order completed, 3.00 USDT",
      "game credit: 2 orders completed, 3.00 USDT",
      "game credit: 5 orders completed, 3.00 USDT",
      "game credit: 21 orders completed, 3.00 USDT",
    ]);
    expect([1, 2, 5, 21].map((n) => line("ru", n, "completed"))).toEqual([
      "игровая валюта: 1 заказ выполнен, 3.00 USDT",
      "игровая валюта: 2 заказа выполнены, 3.00 USDT",
      "игровая валюта: 5 заказов выполнено, 3.00 USDT",
      "игровая валюта: 21 заказ выполнен, 3.00 USDT",
    ]);
    expect(line("ru", 2, "failed")).toBe("игровая валюта: 2 заказа возвращены, 3.00 USDT");
  });

  it("have every key the bot's code names, in both languages", () => {
    const ids = new Set(files.en.messages.map((m) => m.id));
    const { literals, prefixes } = keysInCode();
    const missing = [...literals].filter((literal) => !ids.has(literal) && !(literal in NOT_KEYS));
    expect(missing, "named in src/bot, in no locale file").toEqual([]);
    for (const prefix of prefixes) {
      if (prefix === "alert-") {
        for (const kind of ALERT_KINDS)
          for (const state of ["firing", "resolved"]) expect(ids, `alert-${kind}-${state}`).toContain(`alert-${kind}-${state}`);
        continue;
      }
      const values = TEMPLATE_VALUES[prefix];
      // A prefix not listed here still needs keys: the list of its values is then to be added above.
      expect(
        [...ids].some((id) => id.startsWith(prefix)),
        `no key starts with ${prefix}`,
      ).toBe(true);
      for (const value of values ?? []) expect(ids, `${prefix}${value}`).toContain(`${prefix}${value}`);
    }
    expect(
      Object.keys(TEMPLATE_VALUES).filter((prefix) => !prefixes.has(prefix)),
      "a listed prefix the code no longer builds",
    ).toEqual([]);
  });
});
