import htm from "htm";
import { h } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { type Api, ApiError, type Me } from "./api.js";
import { telegram } from "./telegram.js";
import type { Texts } from "./texts.js";

export const html = htm.bind(h);

/** What a buy screen can be opened with from the goods on the first screen: a pack, a plan, a gift, a brand, a recipient. */
export interface Preset {
  stars?: number;
  months?: number;
  giftId?: string;
  brand?: string;
  to?: string;
}

/** A screen the app can show; `back` leaves it. */
export type Screen =
  | { name: "home" }
  | { name: "buy"; product: "stars" | "premium" | "store" | "game" | "giftcard" | "gift"; preset?: Preset }
  | { name: "orders" }
  /** `bought`: the purchase just made, ending in Done (the order's detail otherwise); `balanceRead`: the balance read after it. */
  | { name: "order"; id: number; product: string; bought?: boolean; balanceRead?: boolean }
  | { name: "statement" }
  | { name: "topup" }
  | { name: "partner" }
  | { name: "admin" };

/** What every screen is given: the API with the session, the words, the user, and the way around. */
export interface Ctx {
  api: Api;
  t: Texts;
  me: Me;
  /** Reads the user and the balance again (after a purchase, a top-up, an admin move); false when it could not. */
  refresh(): Promise<boolean>;
  go(screen: Screen): void;
  /** Opens a purchase's result straight over the shop: the spent form leaves the stack, so Back returns to the shop. */
  finish(screen: Screen): void;
  back(): void;
  /** Back to the shop, the first screen. */
  home(): void;
  language: "en" | "ru";
  /** Telegram's init data as the page was opened with: a new API key asks for it again, fresh. */
  initData: string;
}

export { usdt } from "./money.js";

/** An amount that never wraps inside ("0.23 USDT" stays on one line). */
export const Amount = ({ text, testId }: { text: string; testId?: string }) => html`<span class="amount" data-testid=${testId}>${text}</span>`;

/** A grouped list in Telegram's style (as its settings): a header above, the cells, a hint below. */
export function Section({ title, hint, children, testId }: { title?: string | null; hint?: string | null; children?: unknown; testId?: string }) {
  return html`<section class="section" data-testid=${testId}>
    ${title && html`<h2 class="section-header">${title}</h2>`}
    <div class="section-body">${children}</div>
    ${hint && html`<p class="section-hint">${hint}</p>`}
  </section>`;
}

/** One tappable row of a section: an icon, a title with a subtitle, and a value at the end (a price). */
export function Cell({
  icon,
  title,
  subtitle,
  after,
  onPress,
  testId,
  label,
}: {
  icon?: unknown;
  title: string;
  subtitle?: unknown;
  after?: unknown;
  onPress: () => void;
  testId?: string;
  label?: string;
}) {
  return html`<button type="button" class="cell" data-testid=${testId} aria-label=${label} onClick=${() => onPress()}>
    ${icon ? html`<span class="cell-icon" aria-hidden="true">${icon}</span>` : null}
    <span class="cell-text"><span class="cell-title">${title}</span>${subtitle ? html`<span class="cell-subtitle">${subtitle}</span>` : null}</span>
    ${after ? html`<span class="cell-after">${after}</span>` : null}
  </button>`;
}

/** Placeholders the size of what loads (a designed loading state, not a jump). */
export const Skeleton = ({ rows = 3, label }: { rows?: number; label: string }) =>
  html`<div class="skeleton" role="status" aria-label=${label}>
    ${Array.from({ length: rows }, (_, i) => html`<div key=${i} class="skeleton-row"></div>`)}
  </div>`;

/** The words for a failed call: the service's own (in the user's language), or "cannot be reached". */
export const failure = (t: Texts, error: unknown) => (error instanceof ApiError ? error.message : t.offline);

/** A value checked as the user types: re-run `check` a moment after `key` changes; null key means "nothing to check". */
export function useCheck<T>(key: string | null, check: () => Promise<T>, delayMs = 400) {
  const [state, setState] = useState<{ kind: "idle" } | { kind: "checking" } | { kind: "ok"; value: T } | { kind: "error"; message: string }>({
    kind: "idle",
  });
  const latest = useRef(0);
  useEffect(() => {
    if (key === null) {
      setState({ kind: "idle" });
      return;
    }
    const run = ++latest.current;
    setState({ kind: "checking" });
    const timer = setTimeout(() => {
      check().then(
        (value) => run === latest.current && setState({ kind: "ok", value }),
        (error: unknown) => run === latest.current && setState({ kind: "error", message: error instanceof Error ? error.message : String(error) }),
      );
    }, delayMs);
    return () => clearTimeout(timer);
  }, [key]);
  return state;
}

/** Calls `read` until `done` says so, slower and slower (1 s to 5 s): an order or a top-up watched until it ends. */
export function useWatch<T>(initial: T, read: () => Promise<T>, done: (value: T) => boolean, onChange?: (value: T) => void) {
  const [value, setValue] = useState(initial);
  useEffect(() => {
    if (done(value)) return;
    let stopped = false;
    let delay = 1000;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      const now = await read().catch(() => null);
      if (stopped) return;
      if (now !== null && JSON.stringify(now) !== JSON.stringify(value)) {
        setValue(now);
        onChange?.(now);
        return;
      }
      delay = Math.min(delay * 1.5, 5000);
      timer = setTimeout(tick, delay);
    };
    timer = setTimeout(tick, delay);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [value]);
  return [value, setValue] as const;
}

/**
 * How long a main action's label (and the price in it) is on screen, unchanged, before a press counts: a tap
 * already on its way when the label changed, or begun on the old one, lands inside it and does nothing
 * (docs/decisions/0040-pay-button.md).
 */
const READ_MS = 700;

/**
 * The screen's main action: Telegram's MainButton inside Telegram (the page shows no button of its own there), the
 * page's own button elsewhere. It is enabled only once `text` has been shown, unchanged, for READ_MS; a press
 * before that, or while the label changes, does nothing. `progress`: Telegram's loading indicator (a price on its
 * way, a purchase under way), never a press. `about`: what a press acts on (a quote): another one, under the same
 * label, is read again too.
 */
export function MainAction({
  text,
  active = true,
  progress = false,
  about,
  onPress,
  testId,
}: {
  text: string;
  active?: boolean;
  progress?: boolean;
  about?: string;
  onPress: () => void;
  testId?: string;
}) {
  const label = JSON.stringify([text, active, progress, about]);
  // The label that has been on screen for READ_MS; any other label is not ready, from the render that shows it.
  const [read, setRead] = useState<string | null>(null);
  const ready = active && !progress && read === label;
  const live = useRef({ ready, onPress });
  live.current = { ready, onPress };
  const pressed = () => {
    if (live.current.ready) live.current.onPress();
  };
  useEffect(() => {
    telegram.mainButton({ text, active: ready, progress });
  }, [text, ready, progress]);
  useEffect(() => {
    // Any change starts the moment again, even back to a label read before (after a loading indicator).
    setRead(null);
    if (!active || progress) return;
    const timer = setTimeout(() => setRead(label), READ_MS);
    return () => clearTimeout(timer);
  }, [label]);
  useEffect(() => {
    const off = telegram.onMain(pressed);
    return () => {
      off();
      telegram.mainButton(null);
    };
  }, []);
  if (telegram.inTelegram) return null;
  return html`<button type="button" class="primary" disabled=${!ready} aria-busy=${progress} data-testid=${testId} onClick=${pressed}>
    ${text}
  </button>`;
}

export function CopyButton({ text, t }: { text: string; t: Texts }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard?.writeText(text).catch(() => undefined);
    setCopied(true);
    telegram.haptic("success");
  };
  return html`<button type="button" class="small" onClick=${copy}>${copied ? t.copied : t.copy}</button>`;
}

export function Outcome({ kind, text, testId }: { kind: "ok" | "error" | "info"; text: string; testId?: string }) {
  return html`<p class=${`outcome ${kind}`} role=${kind === "error" ? "alert" : "status"} data-testid=${testId}>${text}</p>`;
}

/** An input with its label. */
export function Field({
  label,
  value,
  onInput,
  type = "text",
  name,
  hint,
  ...rest
}: {
  label: string;
  value: string | number;
  onInput: (value: string) => void;
  type?: string;
  name: string;
  hint?: string | null;
  [attribute: string]: unknown;
}) {
  return html`<label
    >${label}<input name=${name} type=${type} value=${value} onInput=${(e: Event) => onInput((e.target as HTMLInputElement).value)} ...${rest} />${
      hint ? html`<small class="hint">${hint}</small>` : null
    }</label
  >`;
}

/** A select with its label; options as [value, text]. */
export function Choice({
  label,
  value,
  options,
  onChange,
  name,
}: {
  label: string;
  value: string;
  options: Array<[string, string] | [string, string, boolean]>;
  onChange: (value: string) => void;
  name: string;
}) {
  return html`<label
    >${label}<select name=${name} value=${value} onChange=${(e: Event) => onChange((e.target as HTMLSelectElement).value)}>
      ${options.map(([v, text, disabled]) => html`<option key=${v} value=${v} selected=${v === value} disabled=${disabled ?? false}>${text}</option>`)}
    </select></label
  >`;
}

/** Reads once when shown: the catalogue of a product, the statement's first page. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ kind: "loading" } | { kind: "ok"; value: T } | { kind: "error"; error: unknown }>({ kind: "loading" });
  // Started as the screen is laid out, not a frame later after its paint: an answer already at hand (the catalogue
  // cache) is drawn in that same first frame.
  useLayoutEffect(() => {
    let live = true;
    setState({ kind: "loading" });
    load().then(
      (value) => live && setState({ kind: "ok", value }),
      (error: unknown) => live && setState({ kind: "error", error }),
    );
    return () => {
      live = false;
    };
  }, deps);
  return state;
}
