import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { createAccounts } from "./accounts.js";
import { createAdmin } from "./admin.js";
import { createGames } from "./games.js";
import { createGiftcards } from "./giftcards.js";
import { createGifts } from "./gifts.js";
import type { MarkupDefaults } from "./markup.js";
import { createOrders } from "./orders.js";
import type { Clock, GamesPort, GatewayPort, GiftcardsPort, GiftsPort, RatesPort, StorePort } from "./ports.js";
import { createPricing, type Tariffs } from "./pricing.js";
import { createPurchases } from "./purchases.js";
import { createReconciler, type ReconcilerLog } from "./reconciler.js";
import { createStore } from "./store.js";
import type { Vault } from "./vault.js";

export interface Providers {
  gateway: GatewayPort;
  rates: RatesPort;
  store: StorePort;
  games: GamesPort;
  giftcards: GiftcardsPort;
  gifts: GiftsPort;
}

export interface CoreDeps {
  db: Db;
  clock: Clock;
  providers: Providers;
  tariffs: Tariffs;
  markups: MarkupDefaults;
  storeEnabled: boolean;
  vault: Vault;
  reconcileAfterMs: number;
  reconcileIntervalMs: number;
  log: ReconcilerLog;
}

/** The purchase service itself, shared by the HTTP API, the bot and the CLI. Knows nothing of either. */
export function createCore(deps: CoreDeps) {
  const { db, clock, providers } = deps;
  const accounts = createAccounts(db, clock);
  // Where each product's asynchronous outcome is asked for, by our reference.
  const orders = createOrders(
    db,
    clock,
    { reconcileAfterMs: deps.reconcileAfterMs, recheckMs: deps.reconcileIntervalMs },
    {
      stars: (reference) => providers.gateway.status(reference),
      premium: (reference) => providers.gateway.status(reference),
      store: (reference) => providers.store.status(reference),
      game: (reference) => providers.games.status(reference),
      giftcard: (reference) => providers.giftcards.status(reference),
      gift: (reference) => providers.gifts.status(reference),
    },
    deps.vault,
  );
  const pricing = createPricing(deps.tariffs, providers.rates, clock);
  return {
    db,
    clock,
    accounts,
    orders,
    pricing,
    purchases: createPurchases(providers.gateway, orders, pricing),
    store: createStore(providers.store, orders, deps.markups, deps.storeEnabled),
    games: createGames(providers.games, orders, deps.markups),
    giftcards: createGiftcards(providers.giftcards, orders, deps.markups, deps.vault),
    gifts: createGifts(providers.gifts, orders, deps.tariffs.usdtPerStarMicro),
    admin: createAdmin(db, clock, accounts),
    reconciler: createReconciler(orders, deps.reconcileIntervalMs, deps.log),
    providers,
    /** Each provider's own health check, at once. */
    async readiness(): Promise<Record<keyof Providers, boolean>> {
      const names = Object.keys(providers) as Array<keyof Providers>;
      const ready = await Promise.all(names.map((name) => providers[name].ready()));
      return Object.fromEntries(names.map((name, i) => [name, ready[i]])) as Record<keyof Providers, boolean>;
    },
    async databaseReady(): Promise<boolean> {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
  };
}

export type Core = ReturnType<typeof createCore>;
