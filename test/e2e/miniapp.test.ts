import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sign } from "@telegram-apps/init-data-node";
import { type Browser, chromium } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM } from "../support/global-setup.js";
import { type BotHarness, type Harness, startBotHarness, TEST_BOT_TOKEN } from "../support/harness.js";

// The Mini App in a real browser (Debian's Chromium through playwright-core): opened as Telegram opens it, with
// signed init data and the theme in the URL fragment, under the page's strict CSP (issue 21's first piece).

/** Screenshots of each screen, written as test output. */
const SHOTS = join("test-output", "miniapp");
let bots: BotHarness;
let h: Harness;
let base: string;
let browser: Browser;

beforeAll(async () => {
  // Open invoices are looked at every 200 ms: a payment shows on the page within a second or two.
  bots = await startBotHarness(695_000_001, {}, { TOPUP_POLL_MS: "200" });
  h = bots.h;
  base = await h.api.listen({ host: "127.0.0.1", port: 0 });
  mkdirSync(SHOTS, { recursive: true });
  // Playwright gives the browser a fresh temporary profile of its own (a new --user-data-dir) and removes it after.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});
afterAll(async () => {
  await browser?.close();
  await bots.close();
});

/** The URL Telegram opens: the page, with tgWebAppData (signed init data) and the theme in the fragment. */
function launchUrl(
  user: { id: number; first_name: string; username?: string; language_code?: string },
  theme: Record<string, string>,
  token = TEST_BOT_TOKEN,
) {
  const initData = sign({ user, query_id: "AAHtest" } as never, token, new Date());
  const fragment = new URLSearchParams({
    tgWebAppData: initData,
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "tdesktop",
    tgWebAppThemeParams: JSON.stringify(theme),
  });
  return `${base}/app/#${fragment}`;
}

describe("the Mini App in Chromium", () => {
  it("serves the page under a strict CSP with cache headers, signs in by init data and shows the balance, in the dark theme too", async () => {
    const page = await request(`${base}/app/`);
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["cache-control"]).toBe("no-cache");
    const html = await page.body.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /\/app\/assets\/[\w-]+\.js/.exec(html)![0];
    const script = await request(`${base}${asset}`);
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    await script.body.dump();

    await h.service.core.accounts.register("695100001", "nina_n");
    await h.service.core.admin.credit("695100001", 12_500_000 as never, "test");
    const tab = await browser.newPage({ viewport: { width: 360, height: 640 } });
    const errors: string[] = [];
    tab.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    await tab.goto(
      launchUrl(
        { id: 695_100_001, first_name: "Nina", username: "nina_n" },
        { bg_color: "#17212b", text_color: "#f5f5f5", secondary_bg_color: "#232e3c", button_color: "#5288c1" },
      ),
    );
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("12.50 USDT");
    expect(await tab.locator("h1").textContent()).toBe("Hello, @nina_n");
    expect(await tab.getByTestId("equivalents").textContent()).toBe("≈ 160,000 UZS · ≈ 2.31 TON");
    // Telegram's dark theme is the page's.
    expect(await tab.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(23, 33, 43)");
    await tab.screenshot({ path: join(SHOTS, "home-dark.png") });
    expect(errors, errors.join("\n")).toEqual([]);
    await tab.close();
  });

  it("buys stars at the core's quote: the exact charge and the balance after, then one order however often Confirm is tapped", async () => {
    await h.service.core.accounts.register("695100003", "sam_s");
    await h.service.core.admin.credit("695100003", 10_000_000 as never, "test");
    const tab = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await tab.goto(launchUrl({ id: 695_100_003, first_name: "Sam", username: "sam_s" }, {}));
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("10.00 USDT");
    await tab.getByLabel("Recipient").fill("@alice");
    await tab.getByLabel("Stars").fill("100");
    await tab.getByRole("button", { name: "Get the price" }).click();
    await expect.poll(() => tab.getByTestId("quote").textContent()).toContain("Charge: 1.50 USDT · balance after: 8.50 USDT");
    await tab.screenshot({ path: join(SHOTS, "stars-quote.png") });
    // A double tap on Confirm: one idempotency key, one order.
    await tab.getByRole("button", { name: "Confirm" }).dblclick();
    await expect.poll(() => tab.getByTestId("outcome").textContent()).toMatch(/Done! Order #\d+ is delivered\./);
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("8.50 USDT");
    await expect.poll(() => tab.getByTestId("orders").textContent()).toMatch(/#\d+ stars 100 → alice: completed, 1\.50 USDT/);
    await tab.screenshot({ path: join(SHOTS, "stars-done.png") });
    const account = (await h.service.core.accounts.byTelegramId("695100003"))!;
    const orders = await h.service.db
      .selectFrom("orders")
      .select(["product_type", "status", "charge_micro"])
      .where("account_id", "=", account.id)
      .execute();
    expect(orders).toEqual([{ product_type: "stars", status: "completed", charge_micro: 1_500_000 }]);
    await h.assertLedgerInvariant();
    await tab.close();
  });

  it("tops up: the invoice's pay link, then the credit shown while the page watches", async () => {
    await h.service.core.accounts.register("695100005", "tia_t");
    const tab = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await tab.goto(launchUrl({ id: 695_100_005, first_name: "Tia", username: "tia_t" }, {}));
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("0.00 USDT");
    await tab.getByRole("button", { name: "25 USDT" }).click();
    const link = tab.getByRole("link", { name: "Pay 25.00 USDT in @CryptoBot" });
    await expect.poll(() => link.getAttribute("href")).toMatch(/^https:\/\/t\.me\/CryptoBot\?start=IV/);
    await tab.screenshot({ path: join(SHOTS, "topup-invoice.png") });
    // Paid at Crypto Pay (no webhook reaches this test's service: the poll finds it).
    const account = (await h.service.core.accounts.byTelegramId("695100005"))!;
    const [topup] = await h.service.core.topups.list(account, { limit: 1 });
    const paid = await request(`${h.simulatorUrl}/cryptopay/control/invoices/${topup.invoiceId}/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deliver: false }),
    });
    expect(paid.statusCode).toBe(200);
    await paid.body.dump();
    await expect.poll(() => tab.getByTestId("topup").textContent(), { timeout: 10_000 }).toBe("✅ Credited to your balance.");
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("25.00 USDT");
    await h.assertLedgerInvariant();
    await tab.close();
  });

  it("has no serious accessibility violations (axe-core) on its screens", async () => {
    await h.service.core.accounts.register("695100004", "ada_a");
    // axe is injected as a script of its own, which the page's CSP would refuse: only this check bypasses it.
    const context = await browser.newContext({ viewport: { width: 360, height: 640 }, bypassCSP: true });
    const tab = await context.newPage();
    await tab.goto(launchUrl({ id: 695_100_004, first_name: "Ada", username: "ada_a" }, {}));
    await expect.poll(() => tab.getByTestId("balance").textContent()).toContain("0.00 USDT");
    await tab.addScriptTag({ path: join("node_modules", "axe-core", "axe.min.js") });
    const violations = await tab.evaluate(async () => {
      const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null }> }> } }).axe.run();
      const serious = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      return serious.map(
        (v) => `${v.id} (${v.impact}): ${JSON.stringify((v as unknown as { nodes: Array<{ target: unknown }> }).nodes.map((n) => n.target))}`,
      );
    });
    expect(violations).toEqual([]);
    await context.close();
  });

  it("refuses init data signed for another bot, and says so in the user's language", async () => {
    const tab = await browser.newPage({ viewport: { width: 360, height: 640 } });
    await tab.goto(launchUrl({ id: 695_100_002, first_name: "Олег", language_code: "ru" }, {}, "654321:another-bot-token"));
    await expect.poll(() => tab.getByRole("alert").textContent()).toContain("Магазин не открывается");
    expect(await tab.getByRole("alert").textContent()).toContain("откройте магазин из бота ещё раз");
    await tab.screenshot({ path: join(SHOTS, "refused-ru.png") });
    expect(await h.service.core.accounts.byTelegramId("695100002")).toBeUndefined();
    await tab.close();
  });
});
