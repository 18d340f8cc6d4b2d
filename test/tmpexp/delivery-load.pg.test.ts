import pg from "pg";
import { afterAll, beforeAll, it } from "vitest";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { startReceiver } from "../support/receiver.js";

let h: Harness;
const query = pg.Client.prototype.query;
const counts = new Map<string, { n: number; ms: number }>();
let counting = false;
beforeAll(async () => {
  h = await startHarness({ WEBHOOK_ALLOW_LOOPBACK: "true", RATE_LIMIT_PER_MINUTE: "1000000" });
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0] as string | { text: string };
    const text = (typeof first === "string" ? first : first.text).replace(/\s+/g, " ").slice(0, 150);
    const started = performance.now();
    const result = (query as (...a: unknown[]) => unknown).apply(this, args);
    if (counting && result && typeof (result as Promise<unknown>).then === "function") {
      (result as Promise<unknown>).then(
        () => {
          const c = counts.get(text) ?? { n: 0, ms: 0 };
          c.n++;
          c.ms += performance.now() - started;
          counts.set(text, c);
        },
        () => {},
      );
    }
    return result;
  } as typeof query;
});
afterAll(async () => {
  pg.Client.prototype.query = query;
  await h.close();
});
it("counts under load", async () => {
  const receiver = await startReceiver();
  const keys: string[] = [];
  for (let i = 0; i < 16; i++) {
    const { key } = await h.newKey(1000);
    await h.call("POST", "/v1/webhook", { key, body: { url: receiver.url } });
    keys.push(key);
  }
  await new Promise((r) => setTimeout(r, 500));
  counting = true;
  let purchases = 0;
  const until = Date.now() + 5000;
  await Promise.all(
    keys.map(async (key) => {
      while (Date.now() < until) {
        await h.call("POST", "/v1/stars", { key, body: { username: "alice", stars: 50 } });
        purchases++;
      }
    }),
  );
  await eventually(async () => (receiver.received.length >= purchases ? true : undefined), 30_000);
  counting = false;
  let total = 0;
  for (const [t, c] of [...counts].sort((a, b) => b[1].n - a[1].n)) {
    total += c.n;
    console.log(String(c.n).padStart(6), (c.n / purchases).toFixed(2).padStart(6), (c.ms / c.n).toFixed(2).padStart(7), "ms", t);
  }
  console.log("purchases", purchases, "statements", total, "per purchase", (total / purchases).toFixed(1));
  await receiver.close();
}, 90_000);
