import { type Db, ping } from "../db/database.js";
import { PROVIDER_NAMES, type ProviderName, type Providers } from "./ports.js";

export interface Health {
  databaseReady: boolean;
  /** Each provider's own health check; false when the deployment has none. */
  ready: Record<ProviderName, boolean>;
  configured: Record<ProviderName, boolean>;
  storeEnabled: boolean;
}

/** A provider's probe answers within 2 s or counts as not ready (src/upstream/http.ts): a round's bound. */
export const PROBE_ROUND_MS = 2_000;

const byName = <T>(values: T[]) => Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, values[i]])) as Record<ProviderName, T>;

/**
 * Readiness, answered from the last round of probes, never by probing per request: a background job
 * (jobs/health-probe.ts) runs a round on its own schedule, one instance for all through the database, and
 * publishes each round here. An answer is at most `staleAfterMs` old; past that (no round could be read or made)
 * nothing is reported ready. Before the first round, the first caller runs one, shared with every other caller.
 */
export function createHealth(options: { db: Db; providers: Providers; storeEnabled: boolean; staleAfterMs: number; now: () => Date }) {
  const { db, providers, storeEnabled } = options;
  const configured = byName(PROVIDER_NAMES.map((name) => providers[name].configured));
  let probing: Promise<Health> | undefined;
  let latest: { health: Health; at: number } | undefined;
  // This instance's own check of its database (jobs/health-probe.ts), more often than a round and bounded.
  let database: { ready: boolean; at: number } | undefined;

  /** The database and every provider's own health check, at once; concurrent callers share the round. */
  function probe(): Promise<Health> {
    probing ??= (async () => {
      const databaseReady = ping(db);
      const ready = await Promise.all(PROVIDER_NAMES.map((name) => providers[name].ready()));
      return { databaseReady: await databaseReady, ready: byName(ready), configured, storeEnabled };
    })().finally(() => {
      probing = undefined;
    });
    return probing;
  }

  const publish = (health: Health, at: Date) => void (latest = { health, at: at.getTime() });
  const unreachable = (): Health => ({ databaseReady: false, ready: byName(PROVIDER_NAMES.map(() => false)), configured, storeEnabled });

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
