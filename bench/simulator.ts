import { startSimulator } from "../src/simulator/server.js";

// The upstream simulator in a process of its own, with no delay and no request log, so the service's own
// cost is what the benchmark measures.
const port = Number(process.argv[2] ?? 0);
await startSimulator(port, { timeScale: 0.0001, stockScale: 1_000_000 });
console.error(`simulator ready on ${port}`);
