import { type ChildProcess, spawn } from "node:child_process";
import { kill } from "./processes.js";

// One bash, fed a command at a time as a reader types them: variables carry over, and each answer is read before
// the next. test/docs/api-guide.test.ts and test/docs/recipes.pg.test.ts run the guides' shell through it.

export interface TerminalOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Shell run first (functions standing in for commands, tracing). */
  prelude: string;
  /**
   * A process group of its own: what the commands leave running in the background (`node … &`) is ended with the
   * terminal, by the group's id.
   */
  group?: boolean;
}

export class Terminal {
  private readonly bash: ChildProcess;
  private readonly group: boolean;
  private out = "";
  private err = "";
  private waiting?: () => void;

  constructor(options: TerminalOptions) {
    this.group = options.group ?? false;
    this.bash = spawn("bash", ["--noprofile", "--norc"], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: this.group,
    });
    this.bash.stdout!.on("data", (chunk) => {
      this.out += String(chunk);
      this.waiting?.();
    });
    this.bash.stderr!.on("data", (chunk) => {
      this.err += String(chunk);
      this.waiting?.();
    });
    this.bash.stdin!.write(`${options.prelude}\n`);
  }

  /** Runs one command: its output, its stderr and its exit code ("timeout" when it did not finish in time). */
  async run(command: string, timeoutMs = 30_000): Promise<{ output: string; err: string; exit: string }> {
    this.out = "";
    this.err = "";
    const mark = `@@DONE${Math.random().toString(36).slice(2)}`;
    this.bash.stdin!.write(`${command}\n__rc=$?; printf '\\n${mark} %s\\n' "$__rc"; printf '\\n${mark}\\n' >&2\n`);
    const done = new RegExp(`\\n${mark} (\\d+)\\n`);
    const deadline = Date.now() + timeoutMs;
    while (!(done.test(this.out) && this.err.includes(`\n${mark}\n`))) {
      if (Date.now() > deadline) return { output: this.out, err: this.err, exit: "timeout" };
      await new Promise<void>((wake) => {
        this.waiting = wake;
        setTimeout(wake, 200);
      });
    }
    const exit = done.exec(this.out)![1];
    return { output: this.out.replace(done, "").replace(/\r\n/g, "\n"), err: this.err.replace(`\n${mark}\n`, ""), exit };
  }

  async close() {
    this.bash.stdin!.end();
    if (this.group && this.bash.pid !== undefined) {
      // The bash and whatever it left running: one group, this terminal's own.
      try {
        process.kill(-this.bash.pid, "SIGKILL");
      } catch {
        // the group has already gone
      }
    }
    await kill(this.bash);
  }
}
