import type { AddressInfo } from "node:net";
import { createClient, type ClientOptions } from "../../client/src/index.js";
import { type Harness, startHarness } from "./harness.js";

export interface ListeningHarness {
  h: Harness;
  /** Where the service listens on this machine (a free port): the client goes over real HTTP. */
  baseUrl: string;
  /** A new key credited with `usdt`, and a client for it. */
  partner(
    usdt: number,
    options?: Omit<ClientOptions, "baseUrl" | "apiKey">,
  ): Promise<{ key: string; telegramId: string; client: ReturnType<typeof createClient> }>;
  close(): Promise<void>;
}

/** The real service (test/support/harness.ts) listening on 127.0.0.1 at a free port, for the partner client. */
export async function startListeningHarness(env: Record<string, string> = {}): Promise<ListeningHarness> {
  const h = await startHarness({ WEBHOOK_ALLOW_LOOPBACK: "true", ...env });
  await h.api.listen({ port: 0, host: "127.0.0.1" });
  const { port } = h.api.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    h,
    baseUrl,
    async partner(usdt, options = {}) {
      const { key, telegramId } = await h.newKey(usdt);
      return { key, telegramId, client: createClient({ baseUrl, apiKey: key, backoffMs: 20, ...options }) };
    },
    close: () => h.close(),
  };
}
