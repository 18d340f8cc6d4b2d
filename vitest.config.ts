import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Each file boots its own service, SQLite file and simulator; files run in parallel processes.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
