import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { EmulatedChat } from "../../src/emulator/client.js";
import type { PaymentAttempt } from "../../src/emulator/payments.js";
import { CHROMIUM } from "./global-setup.js";
import { launchUrl, type MiniAppUser, type Signing } from "./miniapp.js";

// The Mini App in Debian's Chromium as Telegram opens it, written once for every browser test: the launch, an
// optional fake Telegram client (the page's bridge calls recorded, its Stars invoices paid for real through the
// Bot API emulator), the screenshots and the axe-core check.

/** Where the screenshots go. */
const SHOTS = join("test-output", "miniapp");

/** Debian's Chromium, headless (Playwright gives it a fresh temporary profile and removes it after). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** How the fake client's payment form ends the next invoices: paid through the emulator, or closed unpaid. */
type InvoiceMode = "pay" | "close";

export interface OpenOptions extends Signing {
  theme?: Record<string, string>;
  /** Plays the Telegram client (see openMiniApp). */
  telegram?: boolean;
  /** With `telegram`: the Bot API emulator that pays the page's invoices. */
  emulatorUrl?: string;
  context?: BrowserContextOptions;
  /** Runs while Telegram's payment form is open, before the user pays (what happens meanwhile). */
  whilePaying?: () => Promise<void>;
  /** Outside Telegram: answer the page's "is this your account?" (true unless false). */
  ask?: boolean;
  /** Runs on the page before it is opened (routes a test sets up). */
  beforeGoto?: (page: Page) => Promise<unknown>;
}

export interface OpenedApp {
  page: Page;
  /** The page's console errors and uncaught exceptions (a CSP violation or a failed script shows here). */
  errors: string[];
  /** What the payment form did, every invoice the page opened, oldest first. */
  invoices: Array<{ slug: string; attempt: PaymentAttempt }>;
  /** How the next invoices end ("pay" until set). */
  invoiceMode(mode: InvoiceMode): void;
  close(): Promise<void>;
}

/**
 * Opens the app at 360×640 as `user`. `telegram: true` plays the Telegram client: the page's bridge calls are
 * recorded in `window.sent`, and with `emulatorUrl` `web_app_open_invoice` is Telegram's payment form: the invoice
 * is paid (or closed) as this user through the emulator's /emulator/payments/pay, so the bot answers the
 * pre-checkout and credits the successful_payment, then the page hears `invoice_closed` with the attempt's status,
 * as openInvoice's callback does. Outside Telegram the page first asks whether the account is the user's: answered
 * yes here unless `ask: false`.
 */
export async function openMiniApp(browser: Browser, base: string, user: MiniAppUser, options: OpenOptions = {}): Promise<OpenedApp> {
  const context = await browser.newContext({ viewport: { width: 360, height: 640 }, ...options.context });
  const invoices: OpenedApp["invoices"] = [];
  let mode: InvoiceMode = "pay";
  if (options.telegram) {
    if (options.emulatorUrl) {
      const chat = new EmulatedChat(options.emulatorUrl, { ...user });
      await context.exposeFunction("payInvoice", async (slug: string) => {
        await options.whilePaying?.();
        const attempt = await chat.pay(`https://t.me/$${slug}`, { close: mode === "close" });
        invoices.push({ slug, attempt });
        return attempt.status;
      });
    }
    await context.addInitScript(() => {
      const sent: Array<[string, unknown]> = [];
      type Client = { payInvoice?(slug: string): Promise<string>; Telegram: { WebView: { receiveEvent(e: string, d: unknown): void } } };
      const w = window as unknown as Client;
      Object.assign(window, {
        sent,
        TelegramWebviewProxy: {
          postEvent(type: string, data?: string) {
            const params = data ? JSON.parse(data) : null;
            sent.push([type, params]);
            if (type === "web_app_open_invoice" && w.payInvoice)
              void w.payInvoice(params.slug).then((status) => w.Telegram.WebView.receiveEvent("invoice_closed", { slug: params.slug, status }));
          },
        },
      });
    });
  }
  const page = await context.newPage();
  const errors: string[] = [];
  // The simulator's avatars live on a host that does not resolve: their failed loads are not the page's errors.
  page.on("console", (message) => message.type() === "error" && !message.text().includes("ERR_NAME_NOT_RESOLVED") && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await options.beforeGoto?.(page);
  await page.goto(launchUrl(base, user, options.theme, options));
  if (!options.telegram && options.ask !== false) await page.getByTestId("whose-yes").click();
  return { page, errors, invoices, invoiceMode: (next) => void (mode = next), close: () => context.close() };
}

/** The bridge calls the page made, of one method (a page opened with `telegram: true`). */
export const sent = (page: Page, method: string) =>
  page.evaluate((m) => (window as unknown as { sent: Array<[string, unknown]> }).sent.filter(([type]) => type === m).map(([, data]) => data), method);

/** Telegram's client pressing one of its own buttons. */
export const press = (page: Page, event: "main_button_pressed" | "back_button_pressed") =>
  page.evaluate(
    (e) => (window as unknown as { Telegram: { WebView: { receiveEvent(e: string, d: unknown): void } } }).Telegram.WebView.receiveEvent(e, null),
    event,
  );

/** Telegram's MainButton as the page last set it up (web_app_setup_main_button), or undefined before any. */
export const mainButton = async (page: Page) =>
  (await sent(page, "web_app_setup_main_button")).at(-1) as
    { is_visible: boolean; is_active?: boolean; is_progress_visible?: boolean; text?: string; color?: string; text_color?: string } | undefined;

/**
 * Waits until Telegram's MainButton is enabled, with no loading indicator, reading `text`, as a person would
 * before pressing it; answers its setup.
 */
export async function mainButtonReady(page: Page, text: string | RegExp) {
  await expect
    .poll(() => mainButton(page), { timeout: 15_000 })
    .toMatchObject({
      is_visible: true,
      is_active: true,
      is_progress_visible: false,
      text: typeof text === "string" ? text : expect.stringMatching(text),
    });
  return (await mainButton(page))!;
}

/** A screenshot of the page (the viewport, or the whole page) as test-output/miniapp/<name>.png. */
export async function shot(page: Page, name: string, { fullPage = false } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

/**
 * axe-core's serious and critical violations on the page, one line each (none is the bar). axe is injected as a
 * script of its own, which the page's CSP refuses: open the page with `context: { bypassCSP: true }`.
 */
export async function axe(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: join("node_modules", "axe-core", "axe.min.js") });
  return page.evaluate(async () => {
    const result = await (
      window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }> }> }> };
      }
    ).axe.run();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}
