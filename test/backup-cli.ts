import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** `npm run admin -- backup …` as an operator runs it, with the given settings (DATABASE_URL, CODES_KEY). */
export async function backupCli(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ["--import", "tsx", "src/cli/admin.ts", "backup", ...args], {
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
