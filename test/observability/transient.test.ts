import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/database.js";
import { createLog } from "../../src/observability/log.js";
import { createHttpClient } from "../../src/upstream/http.js";
import { freePort } from "../support/processes.js";

// Transient faults (the network, a provider or the database away or busy now) are logged as one line naming their
// cause, without a stack; any other error keeps its stack. Each fault here is a real one, made as it happens.

/** The error as the service's log writes it: exactly one line, parsed. */
function logged(error: unknown): { text: string; err: Record<string, any> } {
  const written: string[] = [];
  createLog("info", { write: (line: string) => void written.push(line) }).warn({ err: error }, "a pass failed; the next one will try again");
  expect(written).toHaveLength(1);
  const text = written[0];
  expect(text.trimEnd()).not.toContain("\n");
  return { text, err: (JSON.parse(text) as { err: Record<string, any> }).err };
}

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

/** A TCP listener that accepts and never answers, standing for a database that hangs before its handshake. */
async function silentListener(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a transient fault in the log", () => {
  it("PostgreSQL's pool timing out on connect: one line with the cause, no stack, no password", async () => {
    const silent = await silentListener();
    const db = openDatabase(`postgres://partner:not-logged-pw@127.0.0.1:${silent.port}/shop`, { timeoutMs: 200, poolMax: 1 });
    try {
      const error = await rejection(sql`select 1`.execute(db));
      const { text, err } = logged(error);
      expect(text).not.toContain('"stack"');
      expect(text).not.toContain("not-logged-pw");
      expect(err.transient).toBe(true);
      // pg's words for it: the client's own connect bound, or the pool's wait for a connection.
      expect(JSON.stringify(err.cause)).toMatch(/Connection terminated|timeout exceeded when trying to connect/);
      expect(text.length).toBeLessThan(800);
    } finally {
      await db.destroy();
      await silent.close();
    }
  });

  it("a provider refusing the connection: the code and the address it tried", async () => {
    const port = await freePort();
    const client = createHttpClient(`http://127.0.0.1:${port}`, 1_000, { provider: "gateway" });
    try {
      const { text, err } = logged(await rejection(client.call("GET", "/gateway/health")));
      expect(text).not.toContain('"stack"');
      expect(err.transient).toBe(true);
      expect(err.cause).toMatchObject({ code: "ECONNREFUSED", address: "127.0.0.1", port });
    } finally {
      await client.close();
    }
  });

  it("a fetch that failed (Node's fetch, as the Bot API's client meets it): the cause, no stack", async () => {
    const port = await freePort();
    const { text, err } = logged(await rejection(fetch(`http://127.0.0.1:${port}/bot/getMe`)));
    expect(text).not.toContain('"stack"');
    expect(err).toMatchObject({ type: "TypeError", message: "fetch failed", transient: true, cause: { code: "ECONNREFUSED" } });
  });

  it("SQLite busy: another connection holds the write lock", () => {
    const dir = mkdtempSync(join(tmpdir(), "partner-busy-"));
    const holder = new SQLite(join(dir, "busy.db"));
    const other = new SQLite(join(dir, "busy.db"));
    try {
      holder.exec("create table t (x integer)");
      holder.exec("begin immediate");
      other.pragma("busy_timeout = 0");
      let error: unknown;
      try {
        other.exec("begin immediate");
      } catch (thrown) {
        error = thrown;
      }
      const { text, err } = logged(error);
      expect(text).not.toContain('"stack"');
      expect(err).toMatchObject({ code: "SQLITE_BUSY", transient: true });
    } finally {
      holder.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a bug keeps its stack", () => {
    let error: unknown;
    try {
      (JSON.parse("null") as { order: { id: number } }).order.id;
    } catch (thrown) {
      error = thrown;
    }
    const { err } = logged(error);
    expect(err.type).toBe("TypeError");
    expect(err.transient).toBeUndefined();
    expect(err.stack).toContain("transient.test.ts");
  });
});
