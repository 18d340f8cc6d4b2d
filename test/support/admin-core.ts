import { onTestFinished } from "vitest";
import type { Admin } from "../../src/core/admin.js";
import { loadConfig } from "../../src/config.js";
import { openCore } from "../../src/root.js";
import { runAdmin } from "../../src/cli/admin.js";

const configFor = (env: Record<string, string>) => loadConfig({ ...env, UPSTREAM: "external", LOG_LEVEL: "warn" });

/**
 * The administrator's core over a test database, opened through the composition root like the admin CLI
 * (no faces, no jobs), for `work`; closed after. `env` names the database (DATABASE_URL and its env).
 */
export async function withAdmin<T>(env: Record<string, string>, work: (admin: Admin) => Promise<T>): Promise<T> {
  const { service } = await openCore(configFor(env));
  try {
    return await work(service.core.admin);
  } finally {
    await service.close();
  }
}

/** The same, open until `close` (call it before the test database is dropped). */
export async function openAdmin(env: Record<string, string>): Promise<{ admin: Admin; close: () => Promise<void> }> {
  const { service } = await openCore(configFor(env));
  return { admin: service.core.admin, close: () => service.close() };
}

/** The same, open for the rest of the test that calls it (closed when the test finishes, after its afterEach hooks). */
export async function adminForTest(env: Record<string, string>): Promise<Admin> {
  const { service } = await openCore(configFor(env));
  onTestFinished(() => service.close());
  return service.core.admin;
}

/** `npm run admin -- <args>` in-process against the database `env` names: its exit code and what it printed. */
export async function adminCli(env: Record<string, string>, ...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runAdmin(args, { env, out: (line) => stdout.push(`${line}\n`), err: (line) => stderr.push(`${line}\n`) });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}
