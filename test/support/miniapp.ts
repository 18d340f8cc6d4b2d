import { sign } from "@telegram-apps/init-data-node";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { EmulatedChat } from "../../src/emulator/client.js";
import type { PaymentAttempt } from "../../src/emulator/payments.js";
import { CHROMIUM } from "./global-setup.js";
import { TEST_BOT_TOKEN } from "./harness.js";

// The Mini App in Debian's Chromium as Telegram opens it (signed init data and the theme in the URL fragment), with
// an optional fake Telegram client: the page's bridge calls recorded, and its Stars invoices paid for real through
// the Bot API emulator (as test/e2e/miniapp.test.ts opens the page, plus the payment form).

export type MiniAppUser = { id: number; first_name: string; username?: string; language_code?: string };

/** Telegram's published light and dark palettes. */
export const LIGHT = {
  bg_color: "#ffffff",
  secondary_bg_color: "#f1f1f1",
  section_bg_color: "#ffffff",
  text_color: "#000000",
  hint_color: "#999999",
  link_color: "#2481cc",
  button_color: "#2481cc",
  button_text_color: "#ffffff",
  section_header_text_color: "#6d6d71",
  subtitle_text_color: "#999999",
  destructive_text_color: "#ff3b30",
};
export const DARK = {
  bg_color: "#17212b",
  secondary_bg_color: "#232e3c",
  section_bg_color: "#17212b",
  text_color: "#f5f5f5",
  hint_color: "#708499",
  link_color: "#6ab3f3",
  button_color: "#5288c1",
  button_text_color: "#ffffff",
  section_header_text_color: "#6ab3f3",
  subtitle_text_color: "#708499",
  destructive_text_color: "#ec3942",
};

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Signed init data for `user`, as Telegram hands it to the Mini App. */
const initDataOf = (user: MiniAppUser) => sign({ user, query_id: "AAHtest" } as never, TEST_BOT_TOKEN, new Date());

/** The URL Telegram opens: the page, with tgWebAppData (signed init data) and the theme in the fragment. */
function launchUrl(base: string, user: MiniAppUser, theme: Record<string, string> = {}) {
  const fragment = new URLSearchParams({
    tgWebAppData: initDataOf(user),
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "tdesktop",
    tgWebAppThemeParams: JSON.stringify(theme),
  });
  return `${base}/app/#${fragment}`;
}

/** How the fake client's payment form ends the next invoices: paid through the emulator, or closed unpaid. */
type InvoiceMode = "pay" | "close";

export interface OpenedApp {
  page: Page;
  errors: string[];
  /** What the payment form did, every invoice the page opened, oldest first. */
  invoices: Array<{ slug: string; attempt: PaymentAttempt }>;
  /** How the next invoices end ("pay" until set). */
  invoiceMode(mode: InvoiceMode): void;
  close(): Promise<void>;
}

/**
 * Opens the app at 360×640 as `user`. `telegram: true` plays the Telegram client: the page's bridge calls are
 * recorded in `window.sent`, and `web_app_open_invoice` is Telegram's payment form: the invoice is paid (or closed)
 * as this user through the emulator's /emulator/payments/pay, so the bot answers the pre-checkout and credits the
 * successful_payment, then the page hears `invoice_closed` with the attempt's status, as openInvoice's callback does.
 * Outside Telegram the page first asks whether the account is the user's: answered yes here.
 */
export async function openMiniApp(
  browser: Browser,
  base: string,
  user: MiniAppUser,
  options: {
    theme?: Record<string, string>;
    telegram?: boolean;
    emulatorUrl?: string;
    context?: BrowserContextOptions;
    /** Runs while Telegram's payment form is open, before the user pays (what happens meanwhile). */
    whilePaying?: () => Promise<void>;
  } = {},
): Promise<OpenedApp> {
  const context = await browser.newContext({ viewport: { width: 360, height: 640 }, ...options.context });
  const invoices: OpenedApp["invoices"] = [];
  let mode: InvoiceMode = "pay";
  if (options.telegram) {
    const chat = options.emulatorUrl ? new EmulatedChat(options.emulatorUrl, { ...user }) : null;
    await context.exposeFunction("payInvoice", async (slug: string) => {
      if (!chat) throw new Error("openMiniApp: an invoice needs emulatorUrl");
      await options.whilePaying?.();
      const attempt = await chat.pay(`https://t.me/$${slug}`, { close: mode === "close" });
      invoices.push({ slug, attempt });
      return attempt.status;
    });
    await context.addInitScript(() => {
      const sent: Array<[string, unknown]> = [];
      type Client = { payInvoice(slug: string): Promise<string>; Telegram: { WebView: { receiveEvent(e: string, d: unknown): void } } };
      const w = window as unknown as Client;
      Object.assign(window, {
        sent,
        TelegramWebviewProxy: {
          postEvent(type: string, data?: string) {
            const params = data ? JSON.parse(data) : null;
            sent.push([type, params]);
            if (type === "web_app_open_invoice")
              void w.payInvoice(params.slug).then((status) => w.Telegram.WebView.receiveEvent("invoice_closed", { slug: params.slug, status }));
          },
        },
      });
    });
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => message.type() === "error" && !message.text().includes("ERR_NAME_NOT_RESOLVED") && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(launchUrl(base, user, options.theme));
  if (!options.telegram) await page.getByTestId("whose-yes").click();
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

/** A Mini App session's bearer token for `user` (signed in as the page does). */
export async function sessionOf(
  call: (method: "POST", url: string, o: { body: unknown }) => Promise<{ status: number; body: any }>,
  user: MiniAppUser,
) {
  const signed = await call("POST", "/miniapp/session", { body: { init_data: initDataOf(user) } });
  if (signed.status !== 200) throw new Error(`session: HTTP ${signed.status} ${JSON.stringify(signed.body)}`);
  return { authorization: `Bearer ${signed.body.token as string}` };
}
