import { type Db, ping } from "../db/database.js";
import { PORT_NAMES, type PortName, type Ports } from "./ports.js";

export interface Health {
  databaseReady: boolean;
  /** Each port's own health check (stars and Premium apart, whatever backs each); false when the deployment has none. */
  ready: Record<PortName, boolean>;
  configured: Record<PortName, boolean>;
  /** What backs each port (`protocol`, `telegram`, `reloadly`), so a line names the backend it is about. */
  backends: Record<PortName, string>;
  storeEnabled: boolean;
}

/** A provider's probe answers within 2 s or counts as not ready (src/upstream/http.ts): a round's bound. */
export const PROBE_ROUND_MS = 2_000;

const byName = <T>(values: T[]) => Object.fromEntries(PORT_NAMES.map((name, i) => [name, values[i]])) as Record<PortName, T>;

/**
 * Readiness, answered from the last round of probes, never by probing per request: a background job
 * (jobs/health-probe.ts) runs a round on its own schedule, one instance for all through the database, and
 * publishes each round here. An answer is at most `staleAfterMs` old; past that (no round could be read or made)
 * nothing is reported ready. Before the first round, the first caller runs one, shared with every other caller.
 */
export function createHealth(options: { db: Db; ports: Ports; storeEnabled: boolean; staleAfterMs: number; now: () => Date }) {
  const { db, ports, storeEnabled } = options;
  const configured = byName(PORT_NAMES.map((name) => ports[name].configured));
  const backends = byName(PORT_NAMES.map((name) => ports[name].backend));
  let probing: Promise<Health> | undefined;
  let latest: { health: Health; at: number } | undefined;
  // This instance's own check of its database (jobs/health-probe.ts), more often than a round and bounded.
  let database: { ready: boolean; at: number } | undefined;

  /**
   * The database and every port's own health check, at once; concurrent callers share the round. Two ports on one
   * backend (stars and Premium on one gateway) ask it once.
   */
  function probe(): Promise<Health> {
    probing ??= (async () => {
      const databaseReady = ping(db);
      const asked = new Map<Ports[PortName]["ready"], Promise<boolean>>();
      const ready = await Promise.all(
        PORT_NAMES.map((name) => {
          const check = ports[name].ready;
          if (!asked.has(check)) asked.set(check, check());
          return asked.get(check)!;
        }),
      );
      return { databaseReady: await databaseReady, ready: byName(ready), configured, backends, storeEnabled };
    })().finally(() => {
      probing = undefined;
    });
    return probing;
  }

  const publish = (health: Health, at: Date) => void (latest = { health, at: at.getTime() });
  const unreachable = (): Health => ({ databaseReady: false, ready: byName(PORT_NAMES.map(() => false)), configured, backends, storeEnabled });

  return {
    probe,
    /** A round, made here or read from the database, as of when it was probed. */
    publish,
    /** Nothing ready (the database could not be read, or no round is fresh enough to answer from). */
    unreachable,
    /** Whether this instance's database answered its last check in time. */
    databaseChecked(ready: boolean, at: Date) {
      database = { ready, at: at.getTime() };
    },

    /**
     * The answer: the last round while it is fresh, its database readiness this instance's own last check (while
     * fresh): a database that stops answering shows within one check, not only when the round goes stale.
     */
    async current(): Promise<Health> {
      if (!latest) publish(await probe(), options.now());
      const { health, at } = latest!;
      const now = options.now().getTime();
      const answer = now - at <= options.staleAfterMs ? health : unreachable();
      if (!database || now - database.at > options.staleAfterMs) return answer;
      return { ...answer, databaseReady: database.ready };
    },
  };
}

export type HealthBoard = ReturnType<typeof createHealth>;
