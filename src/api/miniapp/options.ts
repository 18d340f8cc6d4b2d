import type { Refusal } from "../../core/model/errors.js";
import type { MiniAppSessions } from "./session.js";

/** What the API is given to serve the Mini App (src/root.ts makes it when a bot is configured). */
export interface MiniAppOptions {
  sessions: MiniAppSessions;
  support: string | null;
  /** ADMIN_TELEGRAM_IDS: who sees the admin desk. */
  admins: number[];
  /** A refusal in the bot's words in a language (en/ru), for the user to read. */
  refusal: (language: string | null, refusal: Refusal) => string;
}
