import { autoRetry } from "@grammyjs/auto-retry";
import type { Transformer } from "grammy";

/** Retries a call Telegram asked to repeat later (429, 5xx), a few times and never longer than half a minute. */
export const retryCalls = (): Transformer => autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 30 });
