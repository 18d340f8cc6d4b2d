import { describe, expect, it } from "vitest";
import { createLoop } from "../../src/jobs/loop.js";

const quiet = () => {
  const warned: string[] = [];
  return { warned, log: { warn: (_obj: object, msg: string) => void warned.push(msg) } };
};
// Real time on purpose: a run lasting 20 ms gives a wake or a second runOnce a run under way to meet, and the
// windows after (80 ms, 30 ms) are how long "exactly two runs" and "none while stopped" are watched.
const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the one loop", () => {
  it("runs one run at a time: a run asked for during one joins it, each run under its own scope name", async () => {
    const names: string[] = [];
    let runs = 0;
    const { log } = quiet();
    const loop = createLoop({
      name: "job",
      intervalMs: 60_000,
      run: async () => {
        runs += 1;
        await tick(20);
        return runs;
      },
      failed: -1,
      failure: "failed",
      log,
      scope: (name, work) => (names.push(name), work()),
    });
    const [a, b] = await Promise.all([loop.runOnce(), loop.runOnce()]);
    expect([a, b, runs]).toEqual([1, 1, 1]);
    expect(await loop.runOnce()).toBe(2);
    expect(names).toEqual(["job-1", "job-2"]);
  });

  it("runs again right after the run under way when woken during it, and not at all while stopped", async () => {
    let runs = 0;
    const { log } = quiet();
    const loop = createLoop({
      name: "job",
      intervalMs: 60_000,
      run: async () => void ((runs += 1), await tick(20)),
      failed: undefined,
      failure: "failed",
      log,
    });
    loop.wake();
    expect(runs).toBe(0);
    loop.start();
    loop.wake();
    loop.wake();
    await tick(80);
    expect(runs).toBe(2);
    await loop.stop();
    loop.wake();
    await tick(30);
    expect(runs).toBe(2);
  });

  it("logs a failed run and goes on; stop waits for the run under way", async () => {
    let fail = true;
    let finished = false;
    const { log, warned } = quiet();
    const loop = createLoop({
      name: "job",
      intervalMs: 10,
      run: async () => {
        await tick(20);
        if (fail) {
          fail = false;
          throw new Error("boom");
        }
        finished = true;
        return 1;
      },
      failed: 0,
      failure: "the run failed; the next one will try again",
      log,
    });
    expect(await loop.runOnce()).toBe(0);
    expect(warned).toEqual(["the run failed; the next one will try again"]);
    loop.start();
    await loop.stop();
    expect(finished).toBe(true);
    expect(loop.started).toBe(false);
  });

  it("counts completed runs, and waits for whole runs begun after the call (not the one under way)", async () => {
    let release = () => {};
    const { log } = quiet();
    const loop = createLoop({
      name: "job",
      intervalMs: 60_000,
      run: () => new Promise<void>((resolve) => (release = resolve)),
      failed: undefined,
      failure: "failed",
      log,
    });
    const first = loop.runOnce();
    let waited = false;
    const two = loop.afterPasses(2).then(() => (waited = true));
    release();
    await first;
    expect(loop.passes()).toBe(1);
    const second = loop.runOnce();
    release();
    await second;
    await Promise.resolve();
    expect([loop.passes(), waited]).toEqual([2, false]);
    const third = loop.runOnce();
    release();
    await third;
    await two;
    expect(loop.passes()).toBe(3);
  });
});
