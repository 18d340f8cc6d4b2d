import { createInterface } from "node:readline/promises";
import { loadConfig, loadDotEnv } from "../config.js";
import { allProvidersAt, simulatedReloadly } from "../simulator/settings.js";
import { openService } from "../root.js";
import { sign } from "@telegram-apps/init-data-node";
import { CRYPTO_PAY_WEBHOOK_PATH } from "../api/routes/topups.js";
import { pointCryptoPayWebhook, SIMULATOR_CRYPTO_PAY_TOKEN } from "../simulator/cryptopay.js";
import { startSimulator } from "../simulator/server.js";
import { EmulatedChat } from "./client.js";
import { telegramLanguage } from "./language.js";
import type { ChatMessage } from "./state.js";
import { startEmulator } from "./server.js";

/**
 * `npm run chat`: talk to the real bot from a terminal, with no Telegram token. It starts the Bot API
 * emulator, the upstream simulator and the service (API on a free port, the bot polling the emulator), and
 * plays one user who is also an administrator. Type text to send it (a number stays text); type `#2` to tap
 * button 2, which may be on any message still on screen; type `/pay` to pay the bot's latest invoice in Stars (or
 * `/pay <link>` for an invoice link), as Telegram's payment form would. EMULATOR_PORT and SIMULATOR_PORT pick the
 * ports (a free one by default); both are printed.
 */
const USER_ID = 100_200_300;
const EMULATOR_TOKEN = "123456:emulator-token-for-local-chat";

loadDotEnv();
const port = (name: string) => Number(process.env[name] ?? "0");
const emulator = await startEmulator(port("EMULATOR_PORT"));
const simulator = await startSimulator(port("SIMULATOR_PORT"), { timeScale: Number(process.env.SIMULATOR_TIME_SCALE ?? "0.2") });
const config = loadConfig({
  ...process.env,
  PORT: process.env.CHAT_API_PORT ?? "0",
  // A terminal chat serves no metrics.
  METRICS_PORT: "off",
  LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  UPSTREAM: "external",
  ...allProvidersAt(simulator.url),
  // GIFTCARDS_BACKEND=reloadly tries the simulated Reloadly's sandbox.
  ...simulatedReloadly(simulator.url, "sandbox"),
  // The simulator's Crypto Pay: /topup makes an invoice you can pay in a browser (its pay page).
  CRYPTO_PAY_URL: `${simulator.url}/cryptopay`,
  CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN,
  // The emulator's Stars cost nothing; a cost under every default tariff lets PREMIUM_BACKEND/GIFTS_BACKEND=telegram start.
  STAR_COST_USDT: process.env.STAR_COST_USDT ?? "0.01",
  BOT_TOKEN: EMULATOR_TOKEN,
  TELEGRAM_API_ROOT: emulator.url,
  TELEGRAM_API_EMULATOR: "true",
  BOT_WEBHOOK_URL: "",
  // A development tool: /webhook may point at a receiver on this machine.
  WEBHOOK_ALLOW_LOOPBACK: process.env.WEBHOOK_ALLOW_LOOPBACK ?? "true",
  ADMIN_TELEGRAM_IDS: [process.env.ADMIN_TELEGRAM_IDS, String(USER_ID)].filter(Boolean).join(","),
});
const service = await openService(config);
await service.start();
const apiAddress = service.api.server.address();
const apiUrl = typeof apiAddress === "object" && apiAddress ? `http://${config.server.host}:${apiAddress.port}` : "";
// Paid invoices are posted here, as Crypto Pay posts to the URL an app sets in @CryptoBot.
await pointCryptoPayWebhook(simulator.url, `${apiUrl}${CRYPTO_PAY_WEBHOOK_PATH}`);

const chat = new EmulatedChat(emulator.url, {
  id: USER_ID,
  first_name: process.env.USER ?? "You",
  username: "chat_user",
  language_code: telegramLanguage(process.env),
});

// Every button shown keeps its number while its message still carries it, so an older one can be tapped too.
const buttons = new Map<number, { messageId: number; data: string }>();
let nextButton = 1;
function show(message: ChatMessage) {
  for (const [number, button] of buttons) if (button.messageId === message.message_id) buttons.delete(number);
  // An invoice (sendInvoice) has no text: its title, description and amount in Stars, and how to pay it.
  if (message.invoice) {
    const { title, description, total_amount } = message.invoice;
    console.log(`\n🤖 🧾 ${title}: ${description}\n   ⭐ ${total_amount} Stars. Type /pay to pay it.`);
  } else console.log(`\n🤖 ${message.edits ? "(edited) " : ""}${message.text}`);
  // A document is shown whole when it is text (a CSV statement), so the chat shows what the user would open.
  if (message.document) console.log(`📎 ${message.document.file_name}\n${EmulatedChat.documentText(message)}`);
  for (const row of message.reply_markup?.inline_keyboard ?? []) {
    const labels = row.map((button) => {
      if (!("callback_data" in button) || !button.callback_data) {
        // A link: an invoice's opens @CryptoBot in Telegram; here the simulator's pay page stands in for it.
        const url = "url" in button ? String(button.url) : "";
        const invoice = /CryptoBot\?start=(IV\w+)/.exec(url);
        if (invoice) return `[${button.text}] ${simulator.url}/cryptopay/pay/${invoice[1]} (open it and press Pay)`;
        // A Stars invoice link (createInvoiceLink) is paid here as Telegram's payment form would.
        return /^https:\/\/t\.me\/\$/.test(url) ? `[${button.text}] ${url} (type /pay ${url} to pay it)` : `[${button.text}] ${url}`;
      }
      buttons.set(nextButton, { messageId: message.message_id, data: button.callback_data });
      return `[#${nextButton++}] ${button.text}`;
    });
    console.log(`   ${labels.join("   ")}`);
  }
}

console.log(`Chatting with the bot as user ${USER_ID} (an administrator here). API at ${apiUrl}, database ${config.database.url}.`);
console.log(`Bot API emulator at ${emulator.url}; upstream simulator at ${simulator.url} (faults: POST ${simulator.url}/control/faults).`);
// The Mini App as this chat's user opens it from the bot: init data signed with the emulator's bot token.
const initData = sign(
  { user: { id: USER_ID, first_name: chat.user.first_name, username: "chat_user", language_code: chat.user.language_code } } as never,
  EMULATOR_TOKEN,
  new Date(),
);
console.log(`Mini App (open in a browser; signed in as you for an hour): ${apiUrl}/app/#${new URLSearchParams({ tgWebAppData: initData })}`);
console.log(
  "Type a message (/start to begin), #2 to tap button 2, /pay to pay the bot's latest invoice in Stars, or /quit. Try /credit 100200300 50 to fund yourself.",
);

/** Pays an invoice as this user (the latest one the bot sent, or a link) and says how it ended, without holding the prompt. */
async function payInvoice(link: string | undefined) {
  const latest = link ? undefined : (await chat.messages()).filter((m) => m.from_bot && m.invoice).at(-1);
  if (!link && !latest) return console.log("(no invoice from the bot to pay)");
  console.log(`(paying ${latest ? `⭐ ${latest.invoice!.total_amount} Stars` : link}: the bot has 10 s to confirm)`);
  const attempt = await chat.pay(latest ? latest.message_id : link!).catch((error: Error) => ({ error: error.message }));
  if ("error" in attempt) console.log(`(not paid: ${attempt.error})`);
  else if (attempt.outcome === "paid") console.log(`✅ Paid ⭐ ${attempt.total_amount} Stars (charge ${attempt.telegram_payment_charge_id}).`);
  else if (attempt.outcome === "refused") console.log(`❌ The bot refused the payment: ${attempt.error_message}`);
  else console.log("❌ The bot did not confirm the payment in time: cancelled, nothing was charged.");
}

let running = true;
void (async () => {
  while (running) {
    const fresh = await chat.fresh(2_000).catch(() => []);
    for (const message of fresh) show(message);
  }
})();

const input = createInterface({ input: process.stdin, output: process.stdout });
for await (const line of input) {
  const text = line.trim();
  if (!text) continue;
  if (text === "/quit") break;
  const paying = /^\/pay(?:\s+(\S+))?$/.exec(text);
  if (paying) {
    void payInvoice(paying[1]);
    continue;
  }
  const tapped = /^#(\d+)$/.exec(text);
  const button = tapped ? buttons.get(Number(tapped[1])) : undefined;
  if (!tapped) await chat.say(text);
  else if (button) await chat.tapData(button.messageId, button.data);
  else console.log(`(no button ${text} on screen)`);
}
// Leaves at once: the database is closed cleanly if that is quick, and the process ends either way.
running = false;
input.close();
setTimeout(() => process.exit(0), 1_000).unref();
await Promise.allSettled([service.close(), simulator.app.close(), emulator.app.close()]);
process.exit(0);
