import { defineConfig } from "vitest/config";

// The client's own unit tests: no service, no database, nothing but the client and local sockets.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 10_000 } });
