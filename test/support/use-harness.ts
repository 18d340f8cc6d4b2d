import { afterAll, afterEach, beforeAll } from "vitest";
import { type BotHarness, type Harness, type HarnessOptions, startBotHarness, startHarness } from "./harness.js";

// The preamble of a test file on one service, written once: started before the file's tests, the books checked
// after each test where asked, closed after them all. A file's own set-up follows in hooks of its own (run after
// this start, and closed before this close).

export interface UseHarness extends Omit<HarnessOptions, "emulatorUrl"> {
  /** Settings over the harness's own (startHarness's `env`). */
  env?: Record<string, string>;
  /** Checks the books (balances, charges, refunds) after each test. */
  books?: boolean;
  /** How long the start (with the file's set-up) may take, when longer than the hook timeout. */
  startMs?: number;
}

/** One service for the file (test/support/harness.ts), handed to `started` (awaited: the file's own set-up) before the tests. */
export function useHarness({ env = {}, books = false, startMs, ...options }: UseHarness, started: (h: Harness) => unknown): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(env, options);
    await started(h);
  }, startMs);
  if (books) afterEach(async () => h!.assertLedgerInvariant());
  afterAll(async () => h?.close());
}

/** One service with its bot on the Bot API emulator for the file, users numbered from `firstUser`. */
export function useBotHarness(
  firstUser: number,
  { env = {}, books = false, startMs, ...options }: UseHarness,
  started: (bots: BotHarness) => unknown,
): void {
  let bots: BotHarness | undefined;
  beforeAll(async () => {
    bots = await startBotHarness(firstUser, options, env);
    await started(bots);
  }, startMs);
  if (books) afterEach(async () => bots!.h.assertLedgerInvariant());
  afterAll(async () => bots?.close());
}
