import type { Update } from "grammy/types";
import type { Executor } from "../../src/db/database.js";
import { TEST_BOT_TOKEN } from "./harness.js";
import { http } from "./processes.js";

// What the tests of Stars top-ups read back: Telegram's side (the bot's Star transactions, its refunds), the ledger
// of one top-up, and Telegram's webhook played by the test (the emulator keeps updates; something must post them).

/** The bot's Star transactions as Telegram reports them (getStarTransactions, oldest first). */
async function starTransactions(emulatorUrl: string): Promise<Array<{ id: string; amount: number; source?: unknown; receiver?: unknown }>> {
  const all = [];
  for (;;) {
    const answer = await http("POST", `${emulatorUrl}/bot${TEST_BOT_TOKEN}/getStarTransactions`, undefined, { offset: all.length, limit: 100 });
    if (answer.status !== 200) throw new Error(`getStarTransactions: ${JSON.stringify(answer.body)}`);
    all.push(...answer.body.result.transactions);
    if (answer.body.result.transactions.length < 100) return all;
  }
}

/** How many refunds Telegram made of this charge: its outgoing transactions (a refund keeps the payment's id). */
export async function refundsAtTelegram(emulatorUrl: string, chargeId: string): Promise<number> {
  return (await starTransactions(emulatorUrl)).filter((t) => t.id === chargeId && t.receiver !== undefined).length;
}

/** The bot's Star balance at Telegram (getMyStarBalance). */
export async function botStars(emulatorUrl: string): Promise<number> {
  const answer = await http("POST", `${emulatorUrl}/bot${TEST_BOT_TOKEN}/getMyStarBalance`, undefined, {});
  return answer.body.result.amount;
}

/** A top-up's ledger entries, oldest first, as [kind, amount in micro-USDT]. */
export async function topupLedger(db: Executor, topupId: number): Promise<Array<[string, number]>> {
  const rows = await db.selectFrom("ledger_entries").select(["kind", "amount_micro"]).where("topup_id", "=", topupId).orderBy("id").execute();
  return rows.map((row) => [row.kind, Number(row.amount_micro)]);
}

/**
 * Telegram's webhook delivery, played by the test: the emulator's pending updates taken (getUpdates, as the bot's
 * token) and posted one by one to the service's webhook with the secret, each confirmed once answered 200.
 */
export function relayWebhook(emulatorUrl: string, post: (update: Update) => Promise<number>) {
  let running = true;
  const loop = (async () => {
    let offset = 0;
    while (running) {
      const answer = await http("POST", `${emulatorUrl}/bot${TEST_BOT_TOKEN}/getUpdates`, undefined, { offset, timeout: 1 });
      for (const update of answer.body.result as Update[]) {
        // Telegram posts again until it is answered 200.
        while (running && (await post(update)) !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
        offset = update.update_id + 1;
      }
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}
