import { hasWebviewProxy, isIframe, on, postEvent } from "@telegram-apps/bridge";
import { mainButtonColours } from "./contrast.js";

// The Telegram client's own controls through its bridge (@telegram-apps/bridge: no hosted script, so the strict CSP
// holds). In an ordinary browser there is no client: every call does nothing and links open in a new tab.

/** How Telegram's payment form closed (Telegram.WebApp's invoiceClosed): paid, closed unpaid, failed, or not known yet. */
export type InvoiceStatus = "paid" | "cancelled" | "failed" | "pending";
const STATUSES: InvoiceStatus[] = ["paid", "cancelled", "failed", "pending"];

const inTelegram = typeof window !== "undefined" && (hasWebviewProxy(window) || isIframe());

function send(method: string, params?: object): void {
  if (!inTelegram) return;
  try {
    (postEvent as (method: string, params?: object) => void)(method, params);
  } catch {
    // An older client without this method: the page's own buttons still work.
  }
}

/** What the MainButton shows: its label, whether a press counts, and Telegram's loading indicator. */
export interface MainButton {
  text: string;
  active: boolean;
  progress: boolean;
}

// The MainButton's colours, from Telegram's theme made to read at AA (contrast.ts), sent with every setup: the
// client's own default pairs fall under 4.5:1 on several palettes. The app gives the theme (telegram.theme).
let colours = mainButtonColours({});
let shown: MainButton | null = null;

function setupMainButton() {
  // core.telegram.org/api/web-events#web-app-setup-main-button: every field said each time (is_active is true when left out).
  send(
    "web_app_setup_main_button",
    shown ? { is_visible: true, is_active: shown.active, is_progress_visible: shown.progress, text: shown.text, ...colours } : { is_visible: false },
  );
}

export const telegram = {
  inTelegram,
  ready() {
    send("web_app_ready");
    send("web_app_expand");
  },
  /** Telegram's BackButton: shown on every screen but the first. */
  backButton(visible: boolean) {
    send("web_app_setup_back_button", { is_visible: visible });
  },
  onBack(listener: () => void): () => void {
    return on("back_button_pressed", listener);
  },
  /** Telegram's MainButton: the screen's main action inside Telegram (the page then shows no button of its own). */
  mainButton(button: MainButton | null) {
    shown = button;
    setupMainButton();
  },
  onMain(listener: () => void): () => void {
    return on("main_button_pressed", listener);
  },
  /** Telegram's theme, at launch and as it changes: the MainButton's colours follow it (sent again if it shows). */
  theme(theme: Record<string, string>) {
    colours = mainButtonColours(theme);
    if (shown) setupMainButton();
  },
  /** Telegram's theme as it changes (night mode switched while the page is open). */
  onTheme(listener: (theme: Record<string, string>) => void): () => void {
    return on("theme_changed", ({ theme_params }) => listener(theme_params as Record<string, string>));
  },
  /**
   * Telegram's safe areas (the device's notch, the client's own header over a full-screen app) as CSS variables
   * `--tg-safe-top` … and `--tg-content-top` …, added to env(safe-area-inset-*) by the stylesheet.
   */
  followSafeAreas(root: HTMLElement) {
    const apply = (prefix: string, inset: { top?: number; bottom?: number; left?: number; right?: number }) => {
      for (const side of ["top", "bottom", "left", "right"] as const) root.style.setProperty(`--tg-${prefix}-${side}`, `${inset[side] ?? 0}px`);
    };
    if (!inTelegram) return;
    on("safe_area_changed", (inset) => apply("safe", inset));
    on("content_safe_area_changed", (inset) => apply("content", inset));
    send("web_app_request_safe_area");
    send("web_app_request_content_safe_area");
  },
  haptic(outcome: "success" | "error" | "warning") {
    send("web_app_trigger_haptic_feedback", { type: "notification", notification_type: outcome });
  },
  /**
   * A Stars invoice (createInvoiceLink's https://t.me/$<slug>) in Telegram's own payment form, as
   * Telegram.WebApp.openInvoice does it: web_app_open_invoice with the slug, then invoice_closed with the status.
   * Outside Telegram the link opens in a tab and the status is unknown ("pending": the top-up is watched).
   */
  openInvoice(link: string): Promise<InvoiceStatus> {
    const slug = new URL(link).pathname.replace(/^\/(?:\$|invoice\/)/, "");
    if (!inTelegram) {
      window.open(link, "_blank", "noopener");
      return Promise.resolve("pending");
    }
    return new Promise((resolve) => {
      const off = on("invoice_closed", (event) => {
        if (event.slug !== slug) return;
        off();
        resolve(STATUSES.includes(event.status as InvoiceStatus) ? (event.status as InvoiceStatus) : "pending");
      });
      try {
        (postEvent as (method: string, params?: object) => void)("web_app_open_invoice", { slug });
      } catch {
        // A client too old for invoices: nothing was opened, so nothing can have been paid.
        off();
        resolve("failed");
      }
    });
  },
  /** A t.me link (a Crypto Pay invoice) opens inside Telegram; anything else in the browser. */
  openLink(url: string) {
    const link = new URL(url);
    if (!inTelegram) window.open(url, "_blank", "noopener");
    else if (link.hostname === "t.me") send("web_app_open_tg_link", { path_full: `${link.pathname}${link.search}` });
    else send("web_app_open_link", { url });
  },
};
