import { type Bot, Context } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import { createInboxWorker, type InboxPort } from "./inbox-worker.js";
import { chatIdOf } from "./middleware/one-update-per-chat.js";
import { startPoller } from "./poller.js";
import { asHandling } from "./transformers/record-replies.js";
import { webhookIntake } from "./webhook-intake.js";

export interface PollingRole {
  take(): Promise<void>;
  resign(): Promise<void>;
  working(): boolean;
}

/** The polling role as held for this instance: settled after its first round, and given up by `stop`. */
export interface Polling {
  started: Promise<void>;
  stop(): Promise<void>;
}

/** The durable inbox as the bot uses it: what the worker claims, plus storing updates and noting replies. */
export type BotInbox = InboxPort & {
  store(updates: Array<{ updateId: number; chat: string; update: unknown }>): Promise<void>;
  replied(updateId: number): Promise<void>;
};

interface InboxRunOptions {
  inbox: BotInbox;
  inboxLeaseMs: number;
  pollOnOneInstance(role: PollingRole): Polling;
  /**
   * Updates answered as they arrive, never stored (the bot's pre-checkout questions, which Telegram gives 10 s):
   * true when it took the update.
   */
  answerAtOnce(update: Update): Promise<boolean>;
  /** Sets the command lists (and the menu button): done by whichever instance takes Telegram's updates. */
  publishCommands(): Promise<void>;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/**
 * How updates reach the bot: polled (on one instance) or posted (to any), stored in the inbox, and handled from
 * there by every instance, one at a time per chat; and how that stops.
 */
export function runFromInbox<C extends Context>(bot: Bot<C>, options: InboxRunOptions) {
  const { log } = options;
  const { worker, intake } = openInbox(bot, options);
  const polling = pollingRole(bot, options, intake);

  /** Takes no more updates from the inbox, and waits until none is under way here, so no conversation state is lost. */
  const drain = () => worker.stop();

  return {
    /**
     * Long polling into the inbox on whichever instance holds the polling role (the others stand by and take
     * over within seconds when it goes); every instance handles updates from the inbox.
     */
    async startPolling() {
      await bot.init();
      worker.start();
      await polling.start();
    },
    /**
     * The handler the API server mounts for Telegram's webhook posts: it checks the secret token, stores the
     * update and answers 200; any instance handles it from the inbox.
     */
    webhookHandler: (secretToken: string) => webhookIntake(secretToken, (update) => intake([update])),
    /** Webhook mode: Telegram posts updates to the API server (see src/api/app.ts). */
    async startWebhook(url: string, secretToken: string) {
      await bot.init();
      worker.start();
      await options.publishCommands();
      await bot.api.setWebhook(url, { secret_token: secretToken });
      log.info({ url }, "bot webhook set");
    },
    stopPolling: polling.stop,
    /** Updates being handled here now. */
    underWay: () => worker.underWay(),
    drain,
    /** Stops renewing the leases of updates still running (after a stop that cut them): they lapse to another instance. */
    close: () => worker.close(),
  };
}

/**
 * The inbox on this instance: `intake` stores updates (each under its chat) and wakes the worker, which handles
 * them from the inbox as the bot's own.
 */
function openInbox<C extends Context>(bot: Bot<C>, options: InboxRunOptions) {
  /** The inbox's chat of an update: the same key the bot sequentializes on (only its chat and sender are read). */
  const inboxChat = (update: Update) => {
    const id = chatIdOf(new Context(update, bot.api, undefined as unknown as UserFromGetMe));
    return id === undefined ? `u:${update.update_id}` : String(id);
  };
  const worker = createInboxWorker({
    inbox: options.inbox,
    handle: ({ updateId, chat, attempt, update }) =>
      asHandling({ updateId, chat, attempt, replied: false }, () => bot.handleUpdate(update as Update)),
    leaseMs: options.inboxLeaseMs,
    scanMs: Math.min(1_000, options.inboxLeaseMs),
    maxInFlight: 100,
    log: options.log,
  });
  const intake = async (updates: Update[]) => {
    // Answered first, side by side: however many updates wait in the inbox, these do not wait behind them.
    const answered = await Promise.all(updates.map((update) => options.answerAtOnce(update)));
    const rest = updates.filter((_, i) => !answered[i]);
    if (!rest.length) return;
    await options.inbox.store(rest.map((update) => ({ updateId: update.update_id, chat: inboxChat(update), update })));
    worker.wake();
  };
  return { worker, intake };
}

/** Polling as this instance's part of the polling role: Telegram's updates fetched into the inbox while it holds it. */
function pollingRole<C extends Context>(bot: Bot<C>, options: InboxRunOptions, intake: (updates: Update[]) => Promise<void>) {
  const { log } = options;
  let poller: ReturnType<typeof startPoller> | undefined;
  let polling: Polling | undefined;

  /** Stops fetching; the updates fetched are all in the inbox already, for this instance or another. */
  async function stopPoller() {
    const stopping = poller;
    poller = undefined;
    await stopping?.stop();
  }

  /** Takes the polling role's work: Telegram's updates come here, into the inbox, until resigned. */
  async function takePolling() {
    await bot.api.deleteWebhook();
    await options.publishCommands();
    poller = startPoller({ api: bot.api, store: intake, log });
    log.info({ username: bot.botInfo.username }, "bot polling");
  }

  return {
    /** Contends for the role; resolves after the first round, holding it or standing by. */
    async start() {
      polling = options.pollOnOneInstance({ take: takePolling, resign: stopPoller, working: () => poller?.working() ?? false });
      await polling.started;
    },
    /** Gives the polling role up at once (if this instance polls), so another instance takes it; updates under way go on. */
    async stop() {
      await polling?.stop();
      await stopPoller();
    },
  };
}
