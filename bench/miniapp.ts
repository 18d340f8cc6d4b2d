import { existsSync, readdirSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

// The Mini App as a buyer opens it, in Chromium: from the navigation's start to the first goods tile painted, with
// every call the page makes (the page, its script and style, sign-in, /miniapp/me, the catalogue) answered by the
// running service. Beside each open, in the same moments, a baseline: a fresh context opening a bare page (the
// ceiling's 64-byte answer) to its first frame: what any navigation costs on this machine now.

/** How the network between the buyer and the service is shaped (Chromium's own throttling, over CDP). */
interface Network {
  name: string;
  /** Added to every request, ms; bytes a second each way (encoded bytes: what travels). */
  conditions: { latency: number; downloadThroughput: number; uploadThroughput: number } | null;
}

/** This machine's loopback, and Lighthouse's mobile profile (150 ms RTT, 1.6 Mbit/s down, 750 kbit/s up). */
export const NETWORKS: Network[] = [
  { name: "loopback", conditions: null },
  { name: "mobile (150 ms, 1.6 Mbit/s)", conditions: { latency: 150, downloadThroughput: (1638.4 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 } },
];

/**
 * What the page records on its root element (read by selector: the page's CSP refuses Playwright's evaluated
 * predicates): the frame that paints the first goods tile, and the first frame of the baseline page.
 */
const PROBE = `(() => {
  const record = (name) => requestAnimationFrame(() => document.documentElement.setAttribute(name, String(performance.now())));
  const observer = new MutationObserver(() => {
    if (!document.querySelector('[data-testid^="pack-"]')) return;
    observer.disconnect();
    record("data-bench-goods");
  });
  observer.observe(document, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", () => record("data-bench-frame"));
})();`;

/** The moments of one open, ms from the navigation's start (Navigation and Resource Timing). */
interface Open {
  goods: number;
  /** The page's HTML, its script and style fetched; the script run (sign-in sent); sign-in, me and the prices answered. */
  html: number;
  assets: number;
  signInSent: number;
  signedIn: number;
  me: number;
  prices: number;
  /** Bytes over the wire for the script and the style (0: from the cache), and their size decoded. */
  assetBytes: number;
  assetDecodedBytes: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const summary = (values: number[]) => ({ median: median(values), worst: Math.max(...values) });

/** The first screen's script and style as built: bytes as they are, gzip's and brotli's twins (what is sent). */
function weight() {
  const assets = join("dist", "web", "assets");
  const names = readdirSync(assets);
  const size = (name: string) => (existsSync(join(assets, name)) ? statSync(join(assets, name)).size : 0);
  const sum = (files: string[], extension = "") => files.reduce((total, name) => total + size(name + extension), 0);
  const text = names.filter((name) => /\.(js|css)$/.test(name));
  // The Lottie player is its own chunk, loaded when gifts are shown; the bound leaves it out.
  const first = text.filter((name) => !name.startsWith("lottie"));
  const player = text.filter((name) => name.startsWith("lottie"));
  return {
    bytes: sum(first),
    gzipBytes: sum(first, ".gz"),
    brotliBytes: sum(first, ".br"),
    playerBrotliBytes: sum(player, ".br"),
  };
}

export type MiniAppResult = Awaited<ReturnType<typeof miniAppBench>>;

export async function miniAppBench({
  serviceUrl,
  baselineUrl,
  botToken,
  opens,
  networks = NETWORKS,
  log,
}: {
  serviceUrl: string;
  baselineUrl: string;
  botToken: string;
  opens: number;
  networks?: Network[];
  log: (message: string) => void;
}) {
  const built = weight();
  const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!existsSync(chromiumPath)) {
    log(`mini app: ${(built.brotliBytes / 1024).toFixed(1)} KiB of JS and CSS sent (brotli); no Chromium at ${chromiumPath}, not timed`);
    return { ...built, networks: null };
  }
  const { chromium } = await import("playwright-core");
  const { sign } = await import("@telegram-apps/init-data-node");
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });

  /** A page in `context` with the probe, on `network`. */
  async function pageIn(context: import("playwright-core").BrowserContext, network: Network) {
    const page = await context.newPage();
    if (network.conditions) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      await cdp.send("Network.emulateNetworkConditions", { offline: false, ...network.conditions });
    }
    return page;
  }

  async function recorded(page: import("playwright-core").Page, name: string): Promise<number> {
    await page.locator(`html[${name}]`).waitFor({ state: "attached", timeout: 30_000 });
    return Number(await page.locator("html").getAttribute(name));
  }

  async function baseline(network: Network): Promise<number> {
    const context = await browser.newContext({ viewport: { width: 360, height: 640 } });
    await context.addInitScript({ content: PROBE });
    const page = await pageIn(context, network);
    await page.goto(`${baselineUrl}/64`);
    const at = await recorded(page, "data-bench-frame");
    await context.close();
    return at;
  }

  /** Opens the shop in `context` as Telegram does (its bridge present), and reads the moments of the open. */
  async function open(context: import("playwright-core").BrowserContext, network: Network, initData: string): Promise<Open> {
    const page = await pageIn(context, network);
    await page.goto(`${serviceUrl}/app/#${new URLSearchParams({ tgWebAppData: initData })}`);
    const goods = await recorded(page, "data-bench-goods");
    // Painted and on the first screen: what the buyer sees.
    if (!(await page.locator('[data-testid^="pack-"]').first().isVisible())) throw new Error("the first goods tile is not visible");
    const timing = (await page.evaluate(`(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const all = performance.getEntriesByType("resource");
      const one = (test) => all.find((e) => test(new URL(e.name).pathname)) ?? { startTime: NaN, responseEnd: NaN };
      const assets = all.filter((e) => /\\/app\\/assets\\/.*\\.(js|css)$/.test(new URL(e.name).pathname));
      return {
        html: nav.responseEnd,
        assets: Math.max(...assets.map((e) => e.responseEnd)),
        signInSent: one((p) => p === "/miniapp/session").startTime,
        signedIn: one((p) => p === "/miniapp/session").responseEnd,
        me: one((p) => p === "/miniapp/me").responseEnd,
        prices: one((p) => p === "/v1/pricing").responseEnd,
        assetBytes: assets.reduce((s, e) => s + e.transferSize, 0),
        assetDecodedBytes: assets.reduce((s, e) => s + e.decodedBodySize, 0),
      };
    })()`)) as Omit<Open, "goods">;
    await page.close();
    return { goods, ...timing };
  }

  const loadBefore = loadavg()[0];
  const results: Array<{
    network: string;
    baseline: number[];
    first: Open[];
    again: Open[];
  }> = [];
  try {
    for (const network of networks) {
      const result = { network: network.name, baseline: [] as number[], first: [] as Open[], again: [] as Open[] };
      for (let i = 0; i < opens; i += 1) {
        // The baseline and the shop in turn, so both see the machine's same moments.
        result.baseline.push(await baseline(network));
        const user = 9_700_000 + results.length * 1000 + i;
        const initData = sign({ user: { id: user, first_name: "Bench", language_code: "en" } } as never, botToken, new Date());
        // A fresh context: nothing cached, as a first open is; then opened again in it, as a returning buyer does.
        const context = await browser.newContext({ viewport: { width: 360, height: 640 } });
        // Inside Telegram (a client's bridge present: window.TelegramWebviewProxy.postEvent, as Telegram's mobile apps
        // expose it, core.telegram.org/api/web-events): outside, the page first asks whose account it is. A string,
        // not a function: tsx's transform would add helpers the page does not have.
        await context.addInitScript({ content: `window.TelegramWebviewProxy = { postEvent() {} };${PROBE}` });
        result.first.push(await open(context, network, initData));
        result.again.push(await open(context, network, initData));
        await context.close();
      }
      results.push(result);
    }
  } finally {
    await browser.close();
  }

  const report = results.map(({ network, baseline, first, again }) => {
    const base = summary(baseline);
    const cold = summary(first.map((o) => o.goods));
    const warm = summary(again.map((o) => o.goods));
    const parts = (list: Open[]) => ({
      html: median(list.map((o) => o.html)),
      assets: median(list.map((o) => o.assets)),
      signInSent: median(list.map((o) => o.signInSent)),
      signedIn: median(list.map((o) => o.signedIn)),
      me: median(list.map((o) => o.me)),
      prices: median(list.map((o) => o.prices)),
      goods: median(list.map((o) => o.goods)),
      /** From the last of the two answers the goods need to their frame: the page's own rendering. */
      drawn: median(list.map((o) => o.goods - Math.max(o.me, o.prices))),
      assetBytes: median(list.map((o) => o.assetBytes)),
      assetDecodedBytes: median(list.map((o) => o.assetDecodedBytes)),
    });
    log(
      `mini app, ${network}: first goods ${cold.median.toFixed(0)} ms median, ${cold.worst.toFixed(0)} worst of ${first.length} first opens (${(cold.median / base.median).toFixed(1)} × the baseline's ${base.median.toFixed(0)} ms); opened again ${warm.median.toFixed(0)} ms`,
    );
    return {
      network,
      opens: first.length,
      baseline: base,
      first: cold,
      again: warm,
      ratio: cold.median / base.median,
      firstParts: parts(first),
      againParts: parts(again),
    };
  });
  // How busy the machine was: these figures move with it.
  return { ...built, load: [loadBefore, loadavg()[0]], networks: report };
}

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)}` : "–");
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The benchmark's Markdown for the Mini App. */
export function miniAppMarkdown(result: MiniAppResult): string[] {
  const lines = [
    "",
    `Mini App: the first screen's JS and CSS ${kib(result.bytes)}, sent as ${kib(result.brotliBytes)} brotli or ${kib(result.gzipBytes)} gzip (the bound is 150 KiB; the Lottie player, loaded with the gifts, adds ${kib(result.playerBrotliBytes)} brotli).`,
  ];
  if (!result.networks) return [...lines.slice(0, 1), `${lines[1].slice(0, -1)}; no Chromium, not timed.`];
  return [
    ...lines,
    "",
    `First goods tile painted, ms from the navigation's start (Chromium, 360×640, inside Telegram's bridge; a fresh context each first open, then the same buyer opening it again with the cache), beside a bare page's first frame opened in turn with it (the baseline); the machine's load average ${result.load.map((l) => l.toFixed(1)).join(" → ")}. The bound: 1 s on loopback.`,
    "",
    "| network | opens | first open, median | worst | × baseline | opened again, median | worst | baseline, median |",
    "|---|---|---|---|---|---|---|---|",
    ...result.networks.map(
      (n) =>
        `| ${n.network} | ${n.opens} | ${ms(n.first.median)} | ${ms(n.first.worst)} | ${n.ratio.toFixed(1)} | ${ms(n.again.median)} | ${ms(n.again.worst)} | ${ms(n.baseline.median)} |`,
    ),
    "",
    "Where a first open's time goes (medians, ms from the navigation's start; the JS and CSS as sent over the wire and decoded):",
    "",
    "| network | open | page | JS and CSS | sign-in sent | signed in | /miniapp/me | /v1/pricing | first goods | drawn after the answers | JS and CSS bytes |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...result.networks.flatMap((n) =>
      (
        [
          ["first", n.firstParts],
          ["again", n.againParts],
        ] as const
      ).map(
        ([which, p]) =>
          `| ${n.network} | ${which} | ${ms(p.html)} | ${ms(p.assets)} | ${ms(p.signInSent)} | ${ms(p.signedIn)} | ${ms(p.me)} | ${ms(p.prices)} | ${ms(p.goods)} | ${ms(p.drawn)} | ${p.assetBytes ? `${kib(p.assetBytes)} of ${kib(p.assetDecodedBytes)}` : "cached"} |`,
      ),
    ),
  ];
}
