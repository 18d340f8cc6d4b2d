import type { Compilable, CompiledQuery } from "kysely";
import { directReader, type Executor, isPostgres } from "./database.js";

/**
 * A hot read built and compiled once per engine, then run with each call's values: on a read by an index,
 * kysely's builder and compiler cost more than the read itself. Outside a transaction it runs on the database's
 * direct reader (SQLite: the reader connection, at once; PostgreSQL: a named prepared statement on the pool). `build` is called once with stand-ins for the arguments, and each must come out as a
 * parameter of its own (a plain value in a comparison, not part of an expression); both are checked on that call.
 */
export function compiledOnce<A extends unknown[], R>(arity: A["length"], build: (exec: Executor, ...args: A) => Compilable<R>) {
  const compiled = new Map<boolean, { query: CompiledQuery<R>; slots: number[] }>();
  return async (exec: Executor, ...args: A): Promise<R[]> => {
    const engine = isPostgres(exec);
    let entry = compiled.get(engine);
    if (!entry) {
      const standIns = Array.from({ length: arity }, (_, i) => `\u0000argument ${i}\u0000`);
      const query = build(exec, ...(standIns as A)).compile();
      if (query.query.kind !== "SelectQueryNode") throw new Error(`compiledOnce takes reads only: ${query.sql}`);
      const slots = query.parameters.map((value) => standIns.indexOf(value as string));
      if (standIns.some((_, i) => slots.filter((slot) => slot === i).length !== 1)) {
        throw new Error(`compiledOnce: each argument must be one parameter of the query: ${query.sql}`);
      }
      entry = { query, slots };
      compiled.set(engine, entry);
    }
    const { query, slots } = entry;
    const parameters = slots.map((slot, i) => (slot >= 0 ? args[slot] : query.parameters[i]));
    const direct = directReader(exec);
    if (direct) return (await direct(query.sql, parameters)) as R[];
    return (await exec.executeQuery<R>({ ...query, parameters })).rows;
  };
}
