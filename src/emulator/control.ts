import type { FastifyInstance } from "fastify";
import type { EmulatorState } from "./state.js";

/** The emulator's own controls, for tests: faults set on purpose, and what the bot did, read back. */
export function controlRoutes(app: FastifyInstance, state: EmulatorState): void {
  app.post<{ Body: { chat_id: number; blocked: boolean } }>("/emulator/blocked", async (request) => {
    if (request.body.blocked) state.blocked.add(request.body.chat_id);
    else state.blocked.delete(request.body.chat_id);
    return { ok: true };
  });

  app.post<{ Body: { method: string; refuse: boolean } }>("/emulator/refuse", async (request) => {
    if (request.body.refuse) state.refusing.add(request.body.method);
    else state.refusing.delete(request.body.method);
    return { ok: true };
  });

  app.post<{ Body: { method: string; ms: number; takes_effect?: "at-once" | "when-answered" } }>("/emulator/slow", async (request) => {
    const { method, ms, takes_effect = "when-answered" } = request.body;
    if (ms > 0) state.slow.set(method, { ms, takesEffect: takes_effect });
    else state.slow.delete(method);
    return { ok: true };
  });
  // Late calls waiting now (how long each has waited), and how many callers hung up on one.
  app.get("/emulator/late", async () => ({ waiting_ms: [...state.waiting].map((entry) => Date.now() - entry.since), hung_up: state.hungUp }));

  app.get("/emulator/calls", async () => ({ calls: state.calls }));
  app.get("/emulator/conflicts", async () => ({ conflicts: state.conflicts }));
}
