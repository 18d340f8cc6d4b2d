import { type ConversationData, conversations, pinVersion, type VersionedState } from "@grammyjs/conversations";
import { Bot, type MiddlewareFn, type StorageAdapter } from "grammy";
import { type Caller, languageOf } from "../core/accounts.js";
import type { Core } from "../core/index.js";
import { publishCommands } from "./commands.js";
import type { BotContext, FlowContext } from "./context.js";
import { accountFeatures } from "./features/account.js";
import { adminFeatures, isAdminUpdate } from "./features/admin.js";
import { cancelFeature } from "./features/cancel.js";
import { keyFeatures, publicApi } from "./features/keys.js";
import { languageFeature } from "./features/language.js";
import { type PaymentHelpTexts, paymentHelpFeatures } from "./features/payment-help.js";
import { answerCheckout, starPaymentFeatures } from "./features/star-payments.js";
import { starsRefundFeatures } from "./features/stars-refunds.js";
import { statementFeatures } from "./features/statement.js";
import { rejectReasonStep, topupDecisionFeatures } from "./features/topup-decisions.js";
import { type TopupDeps, topupFeatures } from "./features/topups.js";
import { unhandledFeature } from "./features/unhandled.js";
import { webhookFeatures } from "./features/webhook.js";
import { FLOWS } from "./flows/index.js";
import { createI18n } from "./i18n.js";
import { type BotInbox, type Polling, type PollingRole, runFromInbox } from "./inbox.js";
import { mainMenu } from "./keyboards.js";
import { contactPrivacy } from "./middleware/contact-privacy.js";
import { conversationApi } from "./middleware/conversation-api.js";
import { loadCaller } from "./middleware/load-caller.js";
import { logUpdates, updateRequestId } from "./middleware/log-updates.js";
import { noteContact } from "./middleware/note-contact.js";
import { noteUsername } from "./middleware/note-username.js";
import { oneUpdatePerChat } from "./middleware/one-update-per-chat.js";
import { privateChatsOnly } from "./middleware/private-chats-only.js";
import { refuseBlocked } from "./middleware/refuse-blocked.js";
import { requireAccount } from "./middleware/require-account.js";
import { setShopUrl } from "./middleware/set-shop-url.js";
import { timeUpdates } from "./middleware/time-updates.js";
import { createNotifier, type NotifyLog } from "./notify.js";
import { maskCallErrors } from "./transformers/mask-call-errors.js";
import { replyRecorder } from "./transformers/record-replies.js";
import { retryCalls } from "./transformers/retry-calls.js";

export interface BotOptions {
  core: Core;
  /** Where conversation state lives (the service's database, built at the composition root; jobs/purges.ts trims it). */
  storage: StorageAdapter<VersionedState<ConversationData>>;
  token: string;
  apiRoot?: string;
  admins: number[];
  /** Who users can write to, shown wherever a flow ends in a refusal; null for none. */
  support: string | null;
  /** What /paysupport and /terms answer (PAYMENT_SUPPORT_TEXT, PAYMENT_TERMS_TEXT), null for the locales' texts. */
  paymentHelp: PaymentHelpTexts;
  /** The Mini App's public HTTPS address (MINIAPP_URL): the menu's "Open the shop" and the chat's menu button. */
  miniAppUrl?: string | null;
  /** The address Telegram posts updates to in webhook mode (BOT_WEBHOOK_URL), else null: with the Mini App's, where the API is. */
  webhookUrl?: string | null;
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
  inbox: BotInbox;
  /** How long an instance holds an update it handles before another may take it (renewed while it runs). */
  inboxLeaseMs: number;
}

/** Bump when a conversation's steps change shape: stored flows of the old shape are dropped, not misread. */
const CONVERSATION_VERSION = 2;
/** Where a chat's conversations are stored: the key is this and the chat's id (the plugin's default key). */
const CONVERSATION_PREFIX = "convo:";

/**
 * The Telegram bot over the core: keys, purchase conversations, account views, admin commands, notifications.
 * Every update passes the middlewares below in order, then the features; updates come from the inbox (inbox.ts).
 */
export function createBot(options: BotOptions) {
  const { core, log } = options;
  const bot = new Bot<BotContext>(options.token, { client: options.apiRoot ? { apiRoot: options.apiRoot } : {} });
  // An update's first message into its chat is recorded, so a re-run after a stop does not answer it again.
  const recordReply = replyRecorder(options.inbox.replied, (error) => log.warn({ err: error }, "could not record a bot reply"));
  bot.api.config.use(retryCalls());
  bot.api.config.use(recordReply);
  bot.api.config.use(maskCallErrors);

  /** The caller each user's update under way read, by Telegram id (loadCaller fills it, i18n reads it). */
  const callersUnderWay = new Map<string, Caller | undefined>();
  const i18n = createI18n(core, callersUnderWay);
  const admins = new Set(options.admins);
  // Whether a flow waits for the user's answer in this chat, as the conversations plugin stored it (on any instance).
  const { unpack } = pinVersion(CONVERSATION_VERSION);
  const inFlow = async (chatId: string) => {
    const data = unpack<ConversationData>(await options.storage.read(`${CONVERSATION_PREFIX}${chatId}`));
    return Object.values(data ?? {}).some((states) => states.length > 0);
  };
  const notifier = createNotifier(core, bot.api, i18n, log, options.admins, inFlow);
  const shopUrl = setShopUrl(options.miniAppUrl ?? undefined);

  bot.use(timeUpdates(options.observeUpdate));
  // Before the per-chat wait: the whole update, waits included, runs under its id (tg-<update_id>) and is logged as one line.
  bot.use(logUpdates(log));
  bot.use(oneUpdatePerChat());
  bot.use(loadCaller(core, callersUnderWay));
  bot.use(i18n);
  // Before every refusal: Stars that moved are credited (or taken back) whoever the payer is now.
  bot.use(starPaymentFeatures(core));
  bot.use(privateChatsOnly());
  // Before anyone is noted: a block or /forget removes the contact, and is not noted again by its own update.
  bot.use(contactPrivacy(core));
  // Before the account checks: whoever writes privately can be sent a gift, customer or not.
  bot.use(noteContact(core, log));
  bot.use(refuseBlocked(options.support));
  // Before the account check: Telegram asks that anyone can read how payments go and where to get help.
  bot.use(paymentHelpFeatures(options.paymentHelp, options.support));
  bot.use(requireAccount(isAdminUpdate(admins)));
  bot.use(noteUsername(core));
  bot.use(shopUrl);
  bot.use(
    conversations<BotContext, FlowContext>({
      storage: { type: "key", version: CONVERSATION_VERSION, prefix: CONVERSATION_PREFIX, adapter: options.storage },
      // Inside conversations the context is rebuilt: what it carries is installed again there.
      plugins: [i18n.middleware() as unknown as MiddlewareFn<FlowContext>, shopUrl as MiddlewareFn<FlowContext>, conversationApi(recordReply)],
    }),
  );

  const topups: TopupDeps = {
    core,
    api: bot.api,
    admins: options.admins,
    translator: async (telegramId) => {
      const account = await core.accounts.byTelegramId(telegramId);
      const locale = account ? languageOf(account) : "en";
      return (key, vars) => i18n.t(locale, key, vars);
    },
    tell: notifier.tell,
    log,
  };
  bot.use(cancelFeature());
  const deps = { core, menu: mainMenu, support: options.support };
  for (const flow of FLOWS) bot.use(flow.install(deps));
  bot.use(rejectReasonStep(topups));
  bot.use(keyFeatures(core, publicApi(options.miniAppUrl ?? null, options.webhookUrl ?? null)));
  bot.use(accountFeatures(core, options.support, admins));
  bot.use(languageFeature(core));
  bot.use(webhookFeatures(core));
  bot.use(statementFeatures(core));
  bot.use(topupFeatures(topups));
  bot.use(topupDecisionFeatures(topups));
  bot.use(starsRefundFeatures(topups));
  bot.use(adminFeatures({ core, admins }));
  bot.use(unhandledFeature());
  bot.catch((error) =>
    log.error({ reqId: updateRequestId(error.ctx.update), err: error.error, update: error.ctx.update.update_id }, "bot update failed"),
  );

  const run = runFromInbox(bot, {
    inbox: options.inbox,
    inboxLeaseMs: options.inboxLeaseMs,
    pollOnOneInstance: options.pollOnOneInstance,
    answerAtOnce: answerCheckout(core, bot.api, i18n, log),
    publishCommands: () => publishCommands({ api: bot.api, i18n, admins, miniAppUrl: options.miniAppUrl, log }),
    log,
  });
  return { bot, i18n, notifier, ...run };
}

export type PurchaseBot = ReturnType<typeof createBot>;
