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
    /**
     * Hands every claim back and forgets it: `makeDue` updates the rows of one lease time (guarded by it) and
     * returns the ids it made due; all of them come back, sorted.
     */
    async release(makeDue: (ids: number[], until: string) => Promise<number[]>): Promise<number[]> {
      const byLease = new Map<string, number[]>();
      for (const [id, until] of held) byLease.set(until, [...(byLease.get(until) ?? []), id]);
      held.clear();
      const released: number[] = [];
      for (const [until, ids] of byLease) released.push(...(await makeDue(ids, until)));
      return released.sort((a, b) => a - b);
    },
  };
}

export type Claims = ReturnType<typeof createClaims>;

/**
 * Makes this instance's claimed `processing` orders due now. Guarded by the lease this instance wrote: an
 * order another instance settled or claimed since is left as it is. Returns the ids made due.
 */
export function releaseOrders(db: Db, claims: Claims, now: string): Promise<number[]> {
  return claims.release(async (ids, until) => {
    const rows = await db
      .updateTable("orders")
      .set({ check_after: now })
      .where("id", "in", ids)
      .where("status", "=", "processing")
      .where("check_after", "=", until)
      .returning("id")
      .execute();
    return rows.map((row) => Number(row.id));
  });
}
