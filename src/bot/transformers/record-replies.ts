import { AsyncLocalStorage } from "node:async_hooks";
import type { Transformer } from "grammy";

/** The inbox update this async context handles, and whether its reply has been recorded. */
export interface Handling {
  updateId: number;
  chat: string;
  /** Above 1: an earlier attempt (on a stopped instance) may have made some calls already. */
  attempt: number;
  replied: boolean;
}

const current = new AsyncLocalStorage<Handling>();

/** Runs `work` (an update's whole handling) as `handling`, so the recorder below knows whose reply a call is. */
export function asHandling<T>(handling: Handling, work: () => Promise<T>): Promise<T> {
  return current.run(handling, work);
}

/** Calls that put a new message into a chat: what counts as an update's reply (edits and answers do not). */
const POSTS = /^(send(?!ChatAction)\w+|copyMessages?|forwardMessages?)$/;

/**
 * An API transformer that records, once the call succeeded, that the update in handling has been answered: its
 * first message into its own chat (a notice to someone else, an administrator say, is not its reply). The record
 * is committed before the handler goes on. Installed on the bot's API and again inside conversations (their
 * own Api instance does not see the bot's transformers).
 */
export function replyRecorder(record: (updateId: number) => Promise<void>, onFailure: (error: unknown) => void): Transformer {
  return async (prev, method, payload, signal) => {
    const response = await prev(method, payload, signal);
    const handling = current.getStore();
    if (!handling) return response;
    if (response.ok && !handling.replied && POSTS.test(method) && String((payload as { chat_id?: unknown }).chat_id) === handling.chat) {
      handling.replied = true;
      // Not recording it leaves a re-run free to answer again; it must not fail the update itself.
      await record(handling.updateId).catch(onFailure);
    }
    // A re-run answers a button the first attempt may have answered already: Telegram refuses a second answer.
    if (!response.ok && method === "answerCallbackQuery" && handling.attempt > 1) return { ok: true, result: true } as unknown as typeof response;
    return response;
  };
}
