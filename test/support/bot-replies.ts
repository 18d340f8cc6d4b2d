import { openDatabase } from "../../src/db/database.js";
import { EmulatedChat } from "../../src/emulator/client.js";
import { eventually } from "./harness.js";
import { http } from "./processes.js";

// Users who write to the bot while Telegram answers slowly, and a count of the bot's answers to each of them.
// Each user is unregistered: every message gets exactly one answer ("/start first"), so per chat the number of
// the bot's messages must equal the number of the user's.

/** Telegram answers `method` `ms` late; the call takes effect only when answered (the emulator's `when-answered`). */
export async function slowTelegram(emulatorUrl: string, ms: number, method = "sendMessage", takesEffect = "when-answered") {
  await http("POST", `${emulatorUrl}/emulator/slow`, undefined, { method, ms, takes_effect: takesEffect });
}

export function writers(emulatorUrl: string, firstId: number, count: number) {
  return Array.from({ length: count }, (_, i) => new EmulatedChat(emulatorUrl, { id: firstId + i, first_name: `Writer${i}`, language_code: "en" }));
}

/** Each user sends `messages` texts at once (in order within the chat). */
export async function writeAll(chats: EmulatedChat[], messages: number) {
  for (let n = 1; n <= messages; n++) await Promise.all(chats.map((chat) => chat.say(`hello ${n}`)));
}

/** The bot's messages in each chat. */
async function answers(chats: EmulatedChat[]): Promise<number[]> {
  return Promise.all(chats.map(async (chat) => (await chat.messages()).filter((m) => m.from_bot).length));
}

/**
 * Waits until `count` replies are waiting at Telegram at once, none of them for more than half its delay: a stop
 * now lands while they are on their way, not in the moment one is taken and its record not yet written (the
 * residual window the decision record describes, which a test would hit by chance otherwise).
 */
export async function repliesOnTheirWay(emulatorUrl: string, count: number, lateMs: number) {
  await eventually(async () => {
    const { waiting_ms } = (await http("GET", `${emulatorUrl}/emulator/late`)).body as { waiting_ms: number[] };
    return waiting_ms.length >= count && Math.max(...waiting_ms) < lateMs / 2 ? true : undefined;
  }, 15_000);
}

/**
 * Waits until every chat has `messages` answers (or fails after `timeoutMs`: an update was lost), then until no
 * answer can still come: every update in the inbox done (a killed instance's, re-run after its lease, included)
 * and no reply waiting at Telegram. A late duplicate shows by then; returns the counts and when the last chat got
 * its last answer.
 */
export async function answeredOnce(
  chats: EmulatedChat[],
  messages: number,
  timeoutMs: number,
  { databaseUrl, emulatorUrl }: { databaseUrl: string; emulatorUrl: string },
) {
  const complete = await eventually(async () => {
    const counts = await answers(chats);
    return counts.every((n) => n >= messages) ? Date.now() : undefined;
  }, timeoutMs).catch(async () => {
    throw new Error(`not every message was answered within ${timeoutMs} ms: ${JSON.stringify(await answers(chats))} of ${messages}`);
  });
  const db = openDatabase(databaseUrl);
  try {
    await eventually(async () => {
      const open = await db.selectFrom("bot_inbox").select("update_id").where("done_at", "is", null).execute();
      if (open.length) return undefined;
      const { waiting_ms } = (await http("GET", `${emulatorUrl}/emulator/late`)).body as { waiting_ms: number[] };
      return waiting_ms.length ? undefined : true;
    }, timeoutMs);
  } finally {
    await db.destroy();
  }
  return { counts: await answers(chats), completeAt: complete };
}
