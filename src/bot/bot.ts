import { autoRetry } from "@grammyjs/auto-retry";
import { type ConversationData, conversations, type VersionedState } from "@grammyjs/conversations";
import { sequentialize } from "@grammyjs/runner";
import { Bot, Context, type MiddlewareFn, type StorageAdapter } from "grammy";
import type { Update, UserFromGetMe } from "grammy/types";
import type { Caller } from "../core/accounts.js";
import type { Core } from "../core/index.js";
import type { BotContext, FlowContext } from "./context.js";
import { ADMIN_COMMANDS, adminFeatures } from "./features/admin.js";
import { accountFeatures } from "./features/account.js";
import { keyFeatures } from "./features/keys.js";
import { webhookFeatures } from "./features/webhook.js";
import { statementFeatures } from "./features/statement.js";
import { topupFeatures } from "./features/topups.js";
import { FLOWS } from "./flows/index.js";
import { CANCEL } from "./flows/kit.js";
import { createI18n } from "./i18n.js";
import { mainMenu } from "./keyboards.js";
import { createNotifier, type NotifyLog } from "./notify.js";
import { maskErrorInPlace } from "../observability/log.js";
import { updateId, updateLog } from "./update-log.js";
import { createInboxWorker, type InboxPort } from "./inbox-worker.js";
import { startPoller } from "./poller.js";
import { asHandling, replyRecorder } from "./replies.js";
import { webhookIntake } from "./webhook-intake.js";
import type { Micro } from "../core/model/money.js";

export interface BotOptions {
  core: Core;
  /** Where conversation state lives (the service's database, built at the composition root; jobs/purges.ts trims it). */
  storage: StorageAdapter<VersionedState<ConversationData>>;
  token: string;
  apiRoot?: string;
  admins: number[];
  /** Who users can write to, shown wherever a flow ends in a refusal; null for none. */
  support: string | null;
  /** The Mini App's public HTTPS address (MINIAPP_URL): the menu's "Open the shop" and the chat's menu button. */
  miniAppUrl?: string | null;
  /** Admin credits, debits and wallet settings above this many micro-USDT ask the admin to confirm. */
  adminConfirmAboveMicro: Micro;
  log: NotifyLog & { info(obj: object, msg: string): void };
  /** Told of every update handled: its kind and how long it took (metrics). */
  observeUpdate?: (kind: string, seconds: number) => void;
  /**
   * Runs long polling on one instance at a time (Telegram allows one getUpdates consumer per token): the
   * composition root hands in a lock over the shared database. Resolves `started` after the first round.
   */
  pollOnOneInstance(role: PollingRole): Polling;
  /**
   * The durable inbox every update goes through (polled or posted), shared by the instances: stored before
   * Telegram is told it was taken, handled one at a time per chat across instances, done after its handler.
   */
  inbox: InboxPort & {
    store(updates: Array<{ updateId: number; chat: string; update: unknown }>): Promise<void>;
    replied(updateId: number): Promise<void>;
  };
  /** How long an instance holds an update it handles before another may take it (renewed while it runs). */
  inboxLeaseMs: number;
}

export interface PollingRole {
  take(): Promise<void>;
  resign(): Promise<void>;
  working(): boolean;
}

/** The polling role as held for this instance: settled after its first round, and given up by `stop`. */
interface Polling {
  started: Promise<void>;
  stop(): Promise<void>;
}

/** Bump when a conversation's steps change shape: stored flows of the old shape are dropped, not misread. */
const CONVERSATION_VERSION = 1;

const ADMIN_PATTERN = new RegExp(`^/(${Object.keys(ADMIN_COMMANDS).join("|")})(@\\w+)?(\\s|$)`);
const USER_COMMANDS = [
  "start",
  ...FLOWS.map((flow) => flow.id),
  "topup",
  "topups",
  "balance",
  "orders",
  "statement",
  "webhook",
  "language",
  "help",
  "cancel",
];

/** The Telegram bot over the core: keys, purchase conversations, account views, admin commands, notifications. */
export function createBot(options: BotOptions) {
  const { core, log } = options;
  const bot = new Bot<BotContext>(options.token, { client: options.apiRoot ? { apiRoot: options.apiRoot } : {} });
  bot.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 30 }));
  // An update's first message into its chat is recorded, so a re-run after a stop does not answer it again.
  const recordReply = replyRecorder(options.inbox.replied, (error) => log.warn({ err: error }, "could not record a bot reply"));
  bot.api.config.use(recordReply);
  // A failed call's network error names the URL, token included: masked before anything can print it.
  bot.api.config.use(async (call, method, payload, signal) => {
    try {
      return await call(method, payload, signal);
    } catch (error) {
      throw maskErrorInPlace(error);
    }
  });
  /** The caller each user's update under way read, by Telegram id (see the lookup below). */
  const updatingCallers = new Map<string, Caller | undefined>();
  const i18n = createI18n(core, updatingCallers);
  const { storage } = options;
  const admins = new Set(options.admins);
  const notifier = createNotifier(core, bot.api, i18n, log, options.admins);

  // Each update timed for the metrics when it ends.
  bot.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      options.observeUpdate?.(Object.keys(ctx.update).find((key) => key !== "update_id") ?? "unknown", (performance.now() - started) / 1000);
    }
  });
  // One update at a time per chat, so a double tap is handled after the first tap, never beside it (the inbox
  // hands out one update of a chat at a time across instances; this keeps it so within one, whatever feeds it).
  const chatOf = (ctx: Context) => String(ctx.chat?.id ?? ctx.from?.id ?? "");
  // Before the per-chat wait: the whole update, waits included, runs under its id (tg-<update_id>) and is logged as one line.
  bot.use(updateLog(log));
  bot.use(sequentialize(chatOf));
  // One account lookup per update, shared by the language choice (in conversations too), the gate and the handlers.
  bot.use(async (ctx, next) => {
    if (!ctx.from) return next();
    const id = String(ctx.from.id);
    ctx.caller = await core.accounts.botCaller(id);
    updatingCallers.set(id, ctx.caller);
    try {
      await next();
    } finally {
      // Another update of this user under way (another chat) may have set it since: it reads afresh if so.
      updatingCallers.delete(id);
    }
  });
  bot.use(i18n);

  // Private chats only (keys and codes never go to a group); blocked accounts can do nothing else.
  const gate: MiddlewareFn<BotContext> = async (ctx, next) => {
    if (!ctx.from || ctx.from.is_bot) return;
    if (ctx.chat && ctx.chat.type !== "private") {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      if (ctx.callbackQuery || ctx.message?.text?.startsWith("/")) await ctx.reply(ctx.t("private-only"));
      return;
    }
    const caller = ctx.caller;
    const support = options.support ? `\n${ctx.t("support", { contact: options.support })}` : "";
    if (caller?.account.blocked) {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      await ctx.reply(`${ctx.t("blocked")}${support}`);
      return;
    }
    // Administrators use their commands without being customers (no key needed).
    const adminCommand = admins.has(ctx.from.id) && (ADMIN_PATTERN.test(ctx.message?.text ?? "") || /^(adm|tq):/.test(ctx.callbackQuery?.data ?? ""));
    if (!caller && !adminCommand && !ctx.message?.text?.startsWith("/start")) {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery();
      await ctx.reply(ctx.t("start-first"));
      return;
    }
    if (caller && (ctx.from.username ?? null) !== caller.account.username) {
      await core.accounts.noteProfile(caller.account.id, ctx.from.username ?? null);
    }
    return next();
  };
  bot.use(gate);
  // Where the menu's "Open the shop" points (inside conversations too: their context is rebuilt).
  const shopUrl: MiddlewareFn<BotContext> = (ctx, next) => {
    ctx.shopUrl = options.miniAppUrl ?? undefined;
    return next();
  };
  bot.use(shopUrl);

  bot.use(
    conversations<BotContext, FlowContext>({
      storage: { type: "key", version: CONVERSATION_VERSION, prefix: "convo:", adapter: storage },
      // Inside conversations the context is rebuilt: i18n and auto-retry must be installed again there.
      plugins: [
        i18n.middleware() as unknown as MiddlewareFn<FlowContext>,
        shopUrl as unknown as MiddlewareFn<FlowContext>,
        async (ctx, next) => {
          ctx.api.config.use(autoRetry({ maxRetryAttempts: 3, maxDelaySeconds: 30 }));
          ctx.api.config.use(recordReply);
          await next();
        },
      ],
    }),
  );

  // Registered before the conversations, so they run even while a flow waits.
  bot.command("cancel", async (ctx) => {
    await ctx.conversation.exitAll();
    await ctx.reply(ctx.t("cancelled"), { reply_markup: mainMenu(ctx) });
  });
  bot.callbackQuery(CANCEL, async (ctx) => {
    await ctx.answerCallbackQuery();
    await ctx.conversation.exitAll();
    await ctx.editMessageReplyMarkup({ reply_markup: undefined }).catch(() => undefined);
    await ctx.reply(ctx.t("cancelled"), { reply_markup: mainMenu(ctx) });
  });

  const deps = { core, menu: mainMenu, support: options.support };
  for (const flow of FLOWS) bot.use(flow.install(deps));
  bot.use(keyFeatures(core));
  bot.use(accountFeatures(core, options.support));
  bot.use(webhookFeatures(core));
  bot.use(statementFeatures(core));
  bot.use(
    topupFeatures({
      core,
      api: bot.api,
      admins: options.admins,
      translator: async (telegramId) => {
        const locale = (await core.accounts.byTelegramId(telegramId))?.language ?? "en";
        return (key, vars) => i18n.t(locale, key, vars);
      },
      tell: notifier.tell,
      log,
    }),
  );
  bot.use(adminFeatures({ core, admins, confirmAboveMicro: options.adminConfirmAboveMicro }));

  // A button from a finished flow (a second tap on Confirm, say) does nothing, and says so.
  bot.on("callback_query:data", (ctx) => ctx.answerCallbackQuery({ text: ctx.t("button-expired") }));
  bot.on("message", (ctx) => ctx.reply(ctx.t("unknown"), { reply_markup: mainMenu(ctx) }));
  bot.catch((error) => log.error({ reqId: updateId(error.ctx.update), err: error.error, update: error.ctx.update.update_id }, "bot update failed"));

  /** Command lists in the client; admins get their own. Telegram refusing is logged, never fatal. */
  async function publishCommands() {
    const described = (locale: string) => USER_COMMANDS.map((command) => ({ command, description: i18n.t(locale, `cmd-${command}`) }));
    try {
      await bot.api.setMyCommands(described("en"));
      await bot.api.setMyCommands(described("ru"), { language_code: "ru" });
      for (const admin of admins) {
        await bot.api.setMyCommands(
          [...described("en"), ...Object.entries(ADMIN_COMMANDS).map(([command, usage]) => ({ command, description: usage }))],
          {
            scope: { type: "chat", chat_id: admin },
          },
        );
      }
    } catch (error) {
      log.warn({ err: error }, "setMyCommands failed; the bot runs without command lists");
    }
    // The chat's menu button opens the Mini App, where there is one.
    if (!options.miniAppUrl) return;
    try {
      await bot.api.setChatMenuButton({
        menu_button: { type: "web_app", text: i18n.t("en", "menu-shop-button"), web_app: { url: options.miniAppUrl } },
      });
    } catch (error) {
      log.warn({ err: error }, "setChatMenuButton failed; the Mini App opens from the menu's button only");
    }
  }

  /** The inbox's chat of an update: the same key as `chatOf` (only its chat and sender are read). */
  const inboxChat = (update: Update) => {
    const ctx = new Context(update, bot.api, undefined as unknown as UserFromGetMe);
    const id = ctx.chat?.id ?? ctx.from?.id;
    return id === undefined ? `u:${update.update_id}` : String(id);
  };
  const store = (updates: Update[]) =>
    options.inbox.store(updates.map((update) => ({ updateId: update.update_id, chat: inboxChat(update), update })));
  const worker = createInboxWorker({
    inbox: options.inbox,
    handle: ({ updateId, chat, attempt, update }) =>
      asHandling({ updateId, chat, attempt, replied: false }, () => bot.handleUpdate(update as Update)),
    leaseMs: options.inboxLeaseMs,
    scanMs: Math.min(1_000, options.inboxLeaseMs),
    maxInFlight: 100,
    log,
  });

  let poller: ReturnType<typeof startPoller> | undefined;
  let polling: Polling | undefined;

  /** Stops fetching; the updates fetched are all in the inbox already, for this instance or another. */
  async function stopPoller() {
    const stopping = poller;
    poller = undefined;
    await stopping?.stop();
  }

  /** Gives the polling role up at once (if this instance polls), so another instance takes it; updates under way go on. */
  async function stopPolling() {
    await polling?.stop();
    await stopPoller();
  }

  /** Takes no more updates from the inbox, and waits until none is under way here, so no conversation state is lost. */
  const drain = () => worker.stop();

  return {
    bot,
    i18n,
    notifier,
    /**
     * Long polling into the inbox on whichever instance holds the polling role (the others stand by and take
     * over within seconds when it goes); every instance handles updates from the inbox.
     */
    async startPolling() {
      await bot.init();
      worker.start();
      polling = options.pollOnOneInstance({
        take: async () => {
          await bot.api.deleteWebhook();
          await publishCommands();
          poller = startPoller({
            api: bot.api,
            store: async (updates) => {
              await store(updates);
              worker.wake();
            },
            log,
          });
          log.info({ username: bot.botInfo.username }, "bot polling");
        },
        resign: stopPoller,
        working: () => poller?.working() ?? false,
      });
      await polling.started;
    },
    /**
     * The handler the API server mounts for Telegram's webhook posts: it checks the secret token, stores the
     * update and answers 200; any instance handles it from the inbox.
     */
    webhookHandler: (secretToken: string) =>
      webhookIntake(secretToken, async (update) => {
        await store([update]);
        worker.wake();
      }),
    /** Webhook mode: Telegram posts updates to the API server (see src/api/app.ts). */
    async startWebhook(url: string, secretToken: string) {
      await bot.init();
      worker.start();
      await publishCommands();
      await bot.api.setWebhook(url, { secret_token: secretToken });
      log.info({ url }, "bot webhook set");
    },
    stopPolling,
    /** Updates being handled here now. */
    underWay: () => worker.underWay(),
    drain,
    /** Stops renewing the leases of updates still running (after a stop that cut them): they lapse to another instance. */
    close: () => worker.close(),
    /** Stops polling (if this instance polls), then waits for the updates under way. */
    async stop() {
      await stopPolling();
      await drain();
    },
  };
}

export type PurchaseBot = ReturnType<typeof createBot>;
