import { describe, expect, it } from "vitest";
import { hashKey } from "../../src/core/keys.js";
import { eventually, type Harness } from "../support/harness.js";
import { useHarness } from "../support/use-harness.js";

let h: Harness;
useHarness({ env: { LOG_LEVEL: "trace" } }, (started) => (h = started));

describe("logs", () => {
  it("never contain a key or a key hash, on any path", async () => {
    const { key, telegramId } = await h.newKey(10);
    const revoked = key;
    const { key: live } = await h.service.core.admin.issueKey(telegramId);
    await h.call("GET", "/v1/balance", { key: live });
    await h.call("GET", "/v1/balance", { headers: { authorization: `Bearer ${live}` } });
    await h.call("GET", "/v1/balance", { key: revoked });
    await h.call("POST", "/v1/stars", { key: live, body: { username: "alice", stars: 100, idempotency_key: live } });
    await h.call("POST", "/v1/stars", { key: live, body: { username: "fail_bob", stars: 100 } });
    await h.call("POST", "/v1/stars", { key: live, body: { username: live, stars: 5 } });
    await h.api.inject({
      method: "POST",
      url: "/v1/stars",
      headers: { "x-api-key": live, "content-type": "application/json" },
      payload: `{"k":"${live}"`,
    });
    await h.call("GET", `/v1/orders?limit=${live}`, { key: live });
    // A key pasted into a URL, plain and percent-encoded (sj%5F…), with and without a valid key header.
    await h.call("GET", `/v1/balance?api_key=${live}`);
    await h.call("GET", `/v1/balance?api_key=${live.replace("_", "%5F")}`, { key: live });
    await h.call("GET", `/v1/balance?api_key=${encodeURIComponent(live).replace(/[A-Za-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`);

    const text = h.logs.join("");
    expect(h.logs.length).toBeGreaterThan(10);
    for (const secret of [live, revoked, hashKey(live), hashKey(revoked)]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(3, 30));
    }
  });
});

describe("a failed Bot API call in the log", () => {
  it("names the method and the error, never the message it tried to send (a notice can hold gift card codes)", async () => {
    const { GrammyError } = await import("grammy");
    const code = "5405-BE9A-AF0C-D4C9";
    const failed = new GrammyError(
      "Call to 'sendMessage' failed!",
      { ok: false, error_code: 400, description: "Bad Request: chat not found" },
      "sendMessage",
      {
        chat_id: 1,
        text: `Your codes:\n${code}`,
      },
    );
    const before = h.logs.length;
    h.service.api.log.error({ err: failed }, "notification failed");
    // The line is written through the logger's stream: waited for, not slept for.
    const lines = await eventually(async () => {
      const written = h.logs.slice(before).join("");
      return written.includes("notification failed") ? written : undefined;
    });
    expect(lines).toContain("chat not found");
    expect(lines).toContain("sendMessage");
    expect(lines).not.toContain(code);
  });
});
