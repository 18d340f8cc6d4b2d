import { type Db, ping } from "../db/database.js";
import { PROVIDER_NAMES, type ProviderName, type Providers } from "./ports.js";

export interface Health {
  databaseReady: boolean;
  /** Each provider's own health check; false when the deployment has none. */
  ready: Record<ProviderName, boolean>;
  configured: Record<ProviderName, boolean>;
  storeEnabled: boolean;
}

/**
 * The database and every provider's own health check, at once. Concurrent callers share one round of probes, so
 * a flood of health requests cannot flood the providers.
 */
export function createHealth({ db, providers, storeEnabled }: { db: Db; providers: Providers; storeEnabled: boolean }) {
  let probing: Promise<Health> | undefined;
  async function probe(): Promise<Health> {
    const databaseReady = ping(db);
    const ready = await Promise.all(PROVIDER_NAMES.map((name) => providers[name].ready()));
    const byName = <T>(values: T[]) => Object.fromEntries(PROVIDER_NAMES.map((name, i) => [name, values[i]])) as Record<ProviderName, T>;
    return {
      databaseReady: await databaseReady,
      ready: byName(ready),
      configured: byName(PROVIDER_NAMES.map((name) => providers[name].configured)),
      storeEnabled,
    };
  }
  return (): Promise<Health> =>
    (probing ??= probe().finally(() => {
      probing = undefined;
    }));
}
