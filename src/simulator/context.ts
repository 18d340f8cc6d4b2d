import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyReply } from "fastify";
import { z } from "zod";

export const PROVIDERS = ["gateway", "rates", "store", "games", "giftcards", "gifts", "cryptopay", "reloadly"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/**
 * down: 503 on every call; timeout: no call is answered (until the simulator closes) and nothing is done;
 * fail_next: the next order fails; drop_next: the next order request is never taken nor answered;
 * hang_after_accept: the next order is taken, then no answer comes.
 */
export const FAULTS = ["ok", "down", "timeout", "fail_next", "drop_next", "hang_after_accept"] as const;
export type Fault = (typeof FAULTS)[number];

export interface SimContext {
  /** Multiplies every simulated delay. */
  scale: number;
  /** Applies a down or timeout fault; true when the reply has been sent and the handler must stop. */
  blocked(provider: ProviderName, reply: FastifyReply): Promise<boolean>;
  /**
   * Takes the provider's one-shot order fault. drop_next is handled here (the reply never comes and the
   * order is not taken: "dropped", the handler must stop); fail_next and hang_after_accept are the caller's.
   */
  orderFault(provider: ProviderName, reply: FastifyReply): Promise<"dropped" | "fail_next" | "hang_after_accept" | null>;
  /** Holds a reply until the simulator closes. */
  hang(): Promise<void>;
  invalid(reply: FastifyReply, error: z.ZodError): FastifyReply;
}

export function createContext(scale: number) {
  const faults = new Map<ProviderName, Fault>();
  // Aborted on close, so a hanging simulated call never keeps the process alive.
  const closing = new AbortController();
  const hang = () => sleep(24 * 60 * 60 * 1000, undefined, { signal: closing.signal }).catch(() => undefined);

  const context: SimContext = {
    scale,
    async blocked(provider, reply) {
      const fault = faults.get(provider);
      if (fault === "down") {
        await reply.code(503).send({ error: `${provider} unavailable (simulated)` });
        return true;
      }
      if (fault === "timeout") {
        await hang();
        await reply.code(504).send({ error: `${provider} timed out (simulated)` });
        return true;
      }
      return false;
    },
    async orderFault(provider, reply) {
      const fault = faults.get(provider);
      if (fault !== "fail_next" && fault !== "hang_after_accept" && fault !== "drop_next") return null;
      faults.delete(provider);
      if (fault !== "drop_next") return fault;
      await hang();
      await reply.code(504).send({ error: `${provider} dropped the order (simulated)` });
      return "dropped";
    },
    hang,
    invalid: (reply, error) => reply.code(400).send({ error: z.prettifyError(error) }),
  };
  return {
    context,
    faults,
    setFault(provider: ProviderName, fault: Fault) {
      if (fault === "ok") faults.delete(provider);
      else faults.set(provider, fault);
    },
    close: () => closing.abort(),
  };
}

/** A username without its test-input prefix, capitalised, as a display name. */
export const displayName = (name: string) => name.replace(/^(premium|slow|fail|missing|refuse)_/i, "").replace(/^./, (c) => c.toUpperCase());
