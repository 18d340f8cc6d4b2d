import { sign } from "@telegram-apps/init-data-node";
import { TEST_BOT_TOKEN } from "./harness.js";

// The Mini App as Telegram hands it over, without a browser: the user, the palettes, the signed init data and the
// launch URL (test/support/browser.ts opens that URL in Chromium).

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

/** How the init data is signed: by the test bot, now, unless a test forges or ages it. */
export interface Signing {
  token?: string;
  authDate?: Date;
}

/** Signed init data for `user`, as Telegram hands it to the Mini App. */
const initDataOf = (user: MiniAppUser, { token = TEST_BOT_TOKEN, authDate = new Date() }: Signing = {}) =>
  sign({ user, query_id: "AAHtest" } as never, token, authDate);

/** The URL Telegram opens: the page, with tgWebAppData (signed init data) and the theme in the fragment. */
export function launchUrl(base: string, user: MiniAppUser, theme: Record<string, string> = {}, signing: Signing = {}) {
  const fragment = new URLSearchParams({
    tgWebAppData: initDataOf(user, signing),
    tgWebAppVersion: "8.0",
    tgWebAppPlatform: "tdesktop",
    tgWebAppThemeParams: JSON.stringify(theme),
  });
  return `${base}/app/#${fragment}`;
}

/** A Mini App session's bearer token for `user` (signed in as the page does). */
export async function sessionOf(
  call: (method: "POST", url: string, o: { body: unknown }) => Promise<{ status: number; body: any }>,
  user: MiniAppUser,
) {
  const signed = await call("POST", "/miniapp/session", { body: { init_data: initDataOf(user) } });
  if (signed.status !== 200) throw new Error(`session: HTTP ${signed.status} ${JSON.stringify(signed.body)}`);
  return { authorization: `Bearer ${signed.body.token as string}` };
}
