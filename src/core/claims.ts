import type { Db } from "../db/database.js";

/**
 * Rows this instance holds leased in a shared table (id → the lease time it wrote), so a stop can hand them
 * back at once instead of leaving them until the lease lapses.
 */
export function createClaims() {
  const held = new Map<number, string>();
  return {
    hold: (id: number, until: string) => void held.set(Number(id), until),
    drop: (id: number) => void held.delete(Number(id)),
    get size() {
      return held.size;
    },
    /** The claims, each lease time with its ids, and forgets them. */
    takeAll(): Map<string, number[]> {
      const byLease = new Map<string, number[]>();
      for (const [id, until] of held) byLease.set(until, [...(byLease.get(until) ?? []), id]);
      held.clear();
      return byLease;
    },
  };
}

export type Claims = ReturnType<typeof createClaims>;

/**
 * Makes this instance's claimed `processing` orders due now. Guarded by the lease this instance wrote: an
 * order another instance settled or claimed since is left as it is. Returns the ids made due.
 */
export async function releaseOrders(db: Db, claims: Claims, now: string): Promise<number[]> {
  const released: number[] = [];
  for (const [until, ids] of claims.takeAll()) {
    const rows = await db
      .updateTable("orders")
      .set({ check_after: now })
      .where("id", "in", ids)
      .where("status", "=", "processing")
      .where("check_after", "=", until)
      .returning("id")
      .execute();
    released.push(...rows.map((row) => Number(row.id)));
  }
  return released.sort((a, b) => a - b);
}
