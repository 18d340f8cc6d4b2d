import { describe, expect, it } from "vitest";
import { createLifecycle, type Resource, StartFailed } from "../src/lifecycle.js";

// The ordered start and stop of the service's steps (src/lifecycle.ts), in process.

const quiet = { info: () => {}, error: () => {} };

/** A step that records its start, stop and close in `calls`; `fails` makes its start throw. */
function step(name: string, calls: string[], fails = false): Resource {
  return {
    name,
    start: async () => {
      calls.push(`start ${name}`);
      if (fails) throw new Error(`${name} cannot start`);
    },
    stop: async () => void calls.push(`stop ${name}`),
    close: async () => void calls.push(`close ${name}`),
  };
}

describe("the lifecycle", () => {
  it("starts the steps in order and stops them in reverse", async () => {
    const calls: string[] = [];
    const lifecycle = createLifecycle(quiet);
    for (const name of ["jobs", "api", "bot"]) lifecycle.add(step(name, calls));
    await lifecycle.start(1_000);
    expect(calls).toEqual(["start jobs", "start api", "start bot"]);
    calls.length = 0;
    expect((await lifecycle.stop(1_000)).finished).toBe(true);
    expect(calls).toEqual(["stop bot", "stop api", "stop jobs", "close bot", "close api", "close jobs"]);
  });

  it("when a step throws: stops the steps begun in reverse, never starts the rest, and rejects naming the step", async () => {
    const calls: string[] = [];
    const lifecycle = createLifecycle(quiet);
    lifecycle.add({ name: "database", close: async () => void calls.push("close database") });
    for (const [name, fails] of [
      ["jobs", false],
      ["api", false],
      ["metrics listener", true],
      ["bot", false],
    ] as const)
      lifecycle.add(step(name, calls, fails));
    const failed = await lifecycle.start(1_000).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(StartFailed);
    expect((failed as StartFailed).message).toBe("could not start metrics listener: metrics listener cannot start");
    expect((failed as StartFailed).report.finished).toBe(true);
    expect(calls).toEqual([
      "start jobs",
      "start api",
      "start metrics listener",
      "stop metrics listener",
      "stop api",
      "stop jobs",
      "close bot",
      "close metrics listener",
      "close api",
      "close jobs",
      "close database",
    ]);
    // A later stop (a signal) answers the rollback's report.
    expect(await lifecycle.stop(1_000)).toBe((failed as StartFailed).report);
  });
});
