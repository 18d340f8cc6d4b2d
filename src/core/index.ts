import { sql } from "kysely";
import type { Db } from "../db/database.js";
import { createAccounts } from "./accounts.js";
import { createAdmin } from "./admin.js";
import { createOrders } from "./orders.js";
import type { Clock, GatewayPort, RatesPort } from "./ports.js";
import { createPricing, type Tariffs } from "./pricing.js";
import { createPurchases } from "./purchases.js";
import { createReconciler, type ReconcilerLog } from "./reconciler.js";

export interface CoreDeps {
  db: Db;
  clock: Clock;
  gateway: GatewayPort;
  rates: RatesPort;
  tariffs: Tariffs;
  reconcileAfterMs: number;
  reconcileIntervalMs: number;
  log: ReconcilerLog;
}

/** The purchase service itself, shared by the HTTP API, the bot and the CLI. Knows nothing of either. */
export function createCore(deps: CoreDeps) {
  const { db, clock, gateway, rates } = deps;
  const accounts = createAccounts(db, clock);
  const orders = createOrders(db, clock, { reconcileAfterMs: deps.reconcileAfterMs }, {
    stars: (reference) => gateway.status(reference),
    premium: (reference) => gateway.status(reference),
  });
  const pricing = createPricing(deps.tariffs, rates, clock);
  return {
    db,
    clock,
    accounts,
    orders,
    pricing,
    purchases: createPurchases(gateway, orders, pricing),
    admin: createAdmin(db, clock, accounts),
    reconciler: createReconciler(orders, deps.reconcileIntervalMs, deps.log),
    providers: { gateway, rates },
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
