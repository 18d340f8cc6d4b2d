import type { Compilable, CompiledQuery } from "kysely";
import { directReader, type Executor, isPostgres, runStatement } from "./database.js";

// Statements built and compiled once per engine, then run with each call's values: on a read by an index or a
// purchase's few writes, kysely's builder and compiler cost more than the statement itself. The statement is built
// once with stand-ins for the arguments, each of which must come out as a parameter (a plain value, not part of an
// expression computed in JavaScript); that is checked then.

/** The compiled statement for the executor's engine, built on the first call, and where each argument goes. */
function compiler<R>(arity: number, build: (exec: Executor, standIns: string[]) => Compilable<R>, kinds: string[]) {
  const compiled = new Map<boolean, { query: CompiledQuery<R>; slots: number[] }>();
  return (exec: Executor, values: unknown[]) => {
    const engine = isPostgres(exec);
    let entry = compiled.get(engine);
    if (!entry) {
      const standIns = Array.from({ length: arity }, (_, i) => `\u0000argument ${i}\u0000`);
      const query = build(exec, standIns).compile();
      if (!kinds.includes(query.query.kind)) throw new Error(`not a statement of the kind expected (${kinds.join(", ")}): ${query.sql}`);
      const slots = query.parameters.map((value) => standIns.indexOf(value as string));
      if (standIns.some((_, i) => !slots.includes(i))) throw new Error(`each argument must be a parameter of the statement: ${query.sql}`);
      entry = { query, slots };
      compiled.set(engine, entry);
    }
    const { query, slots } = entry;
    return { ...query, parameters: slots.map((slot, i) => (slot >= 0 ? values[slot] : query.parameters[i])) };
  };
}

/**
 * A hot read compiled once, its arguments in order. Outside a transaction it runs on the database's direct reader
 * (SQLite: the reader connection, at once; PostgreSQL: a named prepared statement on the pool).
 */
export function compiledOnce<A extends unknown[], R>(arity: A["length"], build: (exec: Executor, ...args: A) => Compilable<R>) {
  const compile = compiler(arity, (exec, standIns) => build(exec, ...(standIns as A)), ["SelectQueryNode"]);
  return async (exec: Executor, ...args: A): Promise<R[]> => {
    const query = compile(exec, args);
    const direct = directReader(exec);
    if (direct) return (await direct(query.sql, query.parameters)) as R[];
    return (await exec.executeQuery<R>(query)).rows;
  };
}

/**
 * A write (an insert, update or delete) compiled once, its arguments named in `names`, run on the executor it is
 * given (a transaction's, or the database's: a named prepared statement on PostgreSQL): the rows it returns, if any.
 * Reading an argument not named throws.
 */
export function compiledWrite<V extends Record<string, unknown>, R>(
  names: ReadonlyArray<keyof V & string>,
  build: (exec: Executor, values: V) => Compilable<R>,
) {
  const named = (standIns: string[]) =>
    new Proxy(Object.fromEntries(names.map((name, i) => [name, standIns[i]])), {
      get(target, name) {
        if (typeof name === "string" && !(name in target)) throw new Error(`compiledWrite: ${name} is not among its arguments`);
        return target[name as string];
      },
    }) as V;
  const compile = compiler(names.length, (exec, standIns) => build(exec, named(standIns)), ["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode"]);
  return async (exec: Executor, values: V): Promise<R[]> =>
    runStatement(
      exec,
      compile(
        exec,
        names.map((name) => values[name]),
      ),
    );
}
