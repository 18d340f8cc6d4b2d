// What Telegram hands a Mini App in the URL fragment: the signed init data and the theme.

import { readableTheme } from "./contrast.js";

export interface Launch {
  /** The init data as Telegram signed it (`Telegram.WebApp.initData`), or null outside Telegram. */
  initData: string | null;
  theme: Record<string, string>;
}

export function readLaunch(hash: string): Launch {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  let theme: Record<string, string> = {};
  try {
    const parsed = JSON.parse(params.get("tgWebAppThemeParams") ?? "{}") as unknown;
    if (parsed && typeof parsed === "object")
      theme = Object.fromEntries(Object.entries(parsed).filter(([, v]) => typeof v === "string")) as Record<string, string>;
  } catch {
    theme = {};
  }
  return { initData: params.get("tgWebAppData"), theme };
}

/**
 * Telegram's theme colours as CSS variables (`--tg-bg-color`, …), so light and dark follow the client; a colour the
 * new theme no longer names falls back to the page's own. A pair under WCAG AA (4.5:1) is adjusted (contrast.ts).
 */
export function applyTheme(theme: Record<string, string>, root: HTMLElement): void {
  const named = new Set<string>();
  for (const [name, value] of Object.entries(readableTheme(theme))) {
    if (typeof value !== "string" || !/^#[0-9a-fA-F]{3,8}$/.test(value)) continue;
    const property = `--tg-${name.replace(/_/g, "-")}`;
    root.style.setProperty(property, value);
    named.add(property);
  }
  for (const property of Array.from(root.style)) if (property.startsWith("--tg-") && !named.has(property)) root.style.removeProperty(property);
}
