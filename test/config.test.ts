import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";

describe("configuration", () => {
  it("runs on embedded defaults with no variables at all", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      server: { port: 8080, host: "127.0.0.1", rateLimitPerMinute: 60 },
      database: { url: "./data/partner.db" },
      upstream: { source: "simulator" },
      bot: null,
    });
    expect(config.sales.tariffs.usdtPerStarMicro).toBe(15_000);
    expect(config.sales.markups.store).toBe(300);
    // Every product on the protocol, each with no address until the simulator (src/main.ts) fills them in.
    expect(config.products).toEqual({
      stars: { kind: "protocol", url: null },
      premium: { kind: "protocol", url: null },
      store: { kind: "protocol", url: null },
      games: { kind: "protocol", url: null },
      giftcards: { kind: "protocol", url: null },
      gifts: { kind: "protocol", url: null },
    });
    // Every duration in milliseconds, whatever unit its variable is written in.
    expect(config.topups.limits.invoiceTtlMs).toBe(60 * 60_000);
    expect(config.webhooks.retentionMs).toBe(30 * 86_400_000);
    expect(config.sales.quotes.ttlMs).toBe(60_000);
  });

  it("names every bad variable in one error", () => {
    const message = (() => {
      try {
        loadConfig({ PORT: "eighty", STARS_USDT_PER_STAR: "-1", UPSTREAM: "magic", DATABASE_POOL_MAX: "0" });
        return "no error";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/^invalid configuration:/);
    for (const name of ["PORT", "STARS_USDT_PER_STAR", "UPSTREAM", "DATABASE_POOL_MAX"]) expect(message).toContain(`${name}:`);
  });

  it("says a bad value once, as itself: the checks of several variables wait until each is valid", () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return ["no error"];
      } catch (error) {
        return (error as Error).message.split("\n").slice(1);
      }
    };
    expect(problems({ TOPUP_MIN_USDT: "abc" })).toEqual([
      "  TOPUP_MIN_USDT: must be a USDT amount above 0, at most 1000000000, with at most 6 decimals",
    ]);
    expect(problems({ RECONCILE_AFTER_MS: "soon" })).toEqual(["  RECONCILE_AFTER_MS: must be a whole number 100..86400000"]);
    // A URL that is no URL was a bare "Invalid URL" thrown from the cross checks, naming no variable.
    expect(problems({ UPSTREAM: "external", GATEWAY_URL: "gateway" })).toEqual(["  GATEWAY_URL: must be an http:// or https:// URL"]);
    expect(problems({ TELEGRAM_API_EMULATOR: "true", TELEGRAM_API_ROOT: "emulator" })).toEqual([
      "  TELEGRAM_API_ROOT: must be an http:// or https:// URL",
    ]);
    // Two checks of several variables, each with valid values, are both reported.
    expect(problems({ TOPUP_MIN_USDT: "9", TOPUP_MAX_USDT: "5", RECONCILE_AFTER_MS: "1000", UPSTREAM_TIMEOUT_MS: "2000" })).toEqual([
      "  TOPUP_MIN_USDT: must be at most TOPUP_MAX_USDT",
      "  RECONCILE_AFTER_MS: must be longer than UPSTREAM_TIMEOUT_MS, or a call still in flight could be settled under it",
    ]);
  });

  it("takes a PostgreSQL URL, with the codes key every instance must share", () => {
    expect(() => loadConfig({ DATABASE_URL: "postgres://app@db.internal:5432/partner" })).toThrow(/CODES_KEY: is required with PostgreSQL/);
    const key = Buffer.alloc(32, 7).toString("base64");
    const config = loadConfig({ DATABASE_URL: "postgresql://app@db.internal:5432/partner", CODES_KEY: key, DATABASE_POOL_MAX: "20" });
    expect(config).toMatchObject({ database: { url: "postgresql://app@db.internal:5432/partner", poolMax: 20 } });
  });

  it("never runs the simulated providers or Crypto Pay (its token is public) beside a real bot token or a real provider", () => {
    const realBot = { BOT_TOKEN: "7000000001:AAreal-looking-token-from-botfather" };
    expect(() => loadConfig(realBot)).toThrow(/BOT_TOKEN: is a real bot's .*anyone could forge a payment/);
    expect(() => loadConfig({ ...realBot, TELEGRAM_API_ROOT: "https://bot-api.example.com" })).toThrow(/BOT_TOKEN/);
    expect(() => loadConfig({ GATEWAY_URL: "https://gateway.example.com" })).toThrow(/GATEWAY_URL: names a real provider/);
    expect(() => loadConfig({ CRYPTO_PAY_URL: "https://pay.crypt.bot", CRYPTO_PAY_TOKEN: "1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" })).toThrow(
      /CRYPTO_PAY_URL/,
    );
    // The simulator's public Crypto Pay token with real providers and a real bot.
    const external = {
      UPSTREAM: "external",
      ...realBot,
      CRYPTO_PAY_URL: "http://127.0.0.1:9090/cryptopay",
      CRYPTO_PAY_TOKEN: "12345:AAsimulatedCryptoPayAppToken0000001",
    };
    expect(() => loadConfig(external)).toThrow(/CRYPTO_PAY_TOKEN: is the simulator's public token/);
    // A local Bot API emulator, marked as one, with the simulator is development, and starts.
    expect(loadConfig({ ...realBot, TELEGRAM_API_ROOT: "http://127.0.0.1:8081", TELEGRAM_API_EMULATOR: "true" })).toMatchObject({
      upstream: { source: "simulator" },
      bot: { api: { apiRoot: "http://127.0.0.1:8081", emulator: true }, updates: { kind: "polling" } },
    });
    expect(loadConfig({ GATEWAY_URL: "http://localhost:9191" }).products).toMatchObject({
      stars: { kind: "protocol", url: "http://localhost:9191" },
      premium: { kind: "protocol", url: "http://localhost:9191" },
    });
  });

  it("counts only an explicitly marked emulator as simulated: a self-hosted Bot API server on loopback is a real bot", () => {
    const selfHosted = { BOT_TOKEN: "7000000001:AAreal-looking-token-from-botfather", TELEGRAM_API_ROOT: "http://127.0.0.1:8081" };
    // Beside the in-process simulator (its Crypto Pay token is public).
    expect(() => loadConfig(selfHosted)).toThrow(/BOT_TOKEN: is a real bot's/);
    // Beside the simulated Crypto Pay and Reloadly, with the bot spending its Stars.
    const external = {
      ...selfHosted,
      UPSTREAM: "external",
      GIFTS_BACKEND: "telegram",
      STAR_COST_USDT: "0.01",
      GIFTCARDS_BACKEND: "reloadly",
      RELOADLY_CLIENT_ID: "SimReloadlySandboxClientId000001",
      RELOADLY_CLIENT_SECRET: "anything-at-all-1",
      RELOADLY_AUTH_URL: "http://127.0.0.1:9090/reloadly/auth",
      RELOADLY_GIFTCARDS_URL: "http://127.0.0.1:9090/reloadly/giftcards-sandbox",
      CRYPTO_PAY_URL: "http://127.0.0.1:9090/cryptopay",
      CRYPTO_PAY_TOKEN: "12345:AAsimulatedCryptoPayAppToken0000001",
    };
    const message = (() => {
      try {
        loadConfig(external);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain("CRYPTO_PAY_TOKEN: is the simulator's public token");
    expect(message).toContain("RELOADLY_CLIENT_ID: is the simulator's public client id");
    // Marked, it is the emulator; the marker is refused off this machine.
    expect(loadConfig({ ...external, TELEGRAM_API_EMULATOR: "true" }).bot?.api.emulator).toBe(true);
    expect(() => loadConfig({ ...selfHosted, TELEGRAM_API_ROOT: "https://bot-api.example.com", TELEGRAM_API_EMULATOR: "true" })).toThrow(
      /TELEGRAM_API_EMULATOR: marks a local Bot API emulator/,
    );
    expect(() => loadConfig({ TELEGRAM_API_EMULATOR: "true" })).toThrow(/TELEGRAM_API_EMULATOR/);
  });

  it("requires https beyond this machine for every URL that carries a secret, naming it", () => {
    const base = {
      UPSTREAM: "external",
      BOT_TOKEN: "7000000001:AAreal-looking-token-from-botfather",
      GIFTCARDS_BACKEND: "reloadly",
      RELOADLY_CLIENT_ID: "realClientId12345",
      RELOADLY_CLIENT_SECRET: "real-client-secret-123",
      CRYPTO_PAY_TOKEN: "1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      BOT_WEBHOOK_SECRET: "a-webhook-secret-of-some-length",
    };
    const plain = {
      CRYPTO_PAY_URL: "http://pay.crypt.bot",
      RELOADLY_AUTH_URL: "http://auth.reloadly.com",
      RELOADLY_GIFTCARDS_URL: "http://giftcards.reloadly.com",
      TELEGRAM_API_ROOT: "http://bot-api.internal:8081",
      BOT_WEBHOOK_URL: "http://shop.example.com/telegram/webhook",
      GIFTCARDS_URL: "http://10.0.0.7:7004",
    };
    const message = (() => {
      try {
        loadConfig({ ...base, ...plain });
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const name of Object.keys(plain)) expect(message).toMatch(new RegExp(`${name}: must be https:// beyond this machine: it carries`));
    const secure = Object.fromEntries(Object.entries(plain).map(([name, value]) => [name, value.replace("http://", "https://")]));
    expect(loadConfig({ ...base, ...secure })).toMatchObject({ topups: { cryptoPay: { url: "https://pay.crypt.bot" } } });
    // On this machine plain http stays (a self-hosted Bot API server, a local bridge); a bridge carrying no secret may be remote.
    expect(loadConfig({ ...base, ...secure, TELEGRAM_API_ROOT: "http://127.0.0.1:8081", GATEWAY_URL: "http://10.0.0.7:7001" })).toMatchObject({
      products: { stars: { url: "http://10.0.0.7:7001" } },
    });
  });

  it("chooses each product's backend, and names the credential a chosen backend lacks", () => {
    expect(loadConfig({})).toMatchObject({
      products: { premium: { kind: "protocol" }, gifts: { kind: "protocol" }, giftcards: { kind: "protocol" } },
    });
    expect(() => loadConfig({ GIFTS_BACKEND: "telegram" })).toThrow(/BOT_TOKEN: is required by GIFTS_BACKEND=telegram/);
    expect(() => loadConfig({ PREMIUM_BACKEND: "telegram", GIFTS_BACKEND: "telegram" })).toThrow(
      /BOT_TOKEN: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram/,
    );
    expect(() => loadConfig({ GIFTS_BACKEND: "fragment" })).toThrow(/GIFTS_BACKEND/);
    const reloadly = { UPSTREAM: "external", GIFTCARDS_BACKEND: "reloadly" };
    const missing = (() => {
      try {
        loadConfig(reloadly);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(missing).toContain("RELOADLY_CLIENT_ID: is required by GIFTCARDS_BACKEND=reloadly");
    expect(missing).toContain("RELOADLY_CLIENT_SECRET: is required by GIFTCARDS_BACKEND=reloadly");
    const real = { ...reloadly, RELOADLY_CLIENT_ID: "realClientId12345", RELOADLY_CLIENT_SECRET: "real-client-secret-123" };
    expect(loadConfig(real).products.giftcards).toEqual({
      kind: "reloadly",
      environment: "sandbox",
      credentials: { clientId: "realClientId12345", clientSecret: "real-client-secret-123" },
      authUrl: null,
      giftcardsUrl: null,
      senderName: "Gift cards",
    });
    // Under the simulator, the simulated Reloadly is filled in; Reloadly's own hosts are not.
    expect(loadConfig({ GIFTCARDS_BACKEND: "reloadly" })).toMatchObject({
      upstream: { source: "simulator" },
      products: { giftcards: { credentials: null } },
    });
    expect(() => loadConfig({ GIFTCARDS_BACKEND: "reloadly", RELOADLY_GIFTCARDS_URL: "https://giftcards.reloadly.com" })).toThrow(
      /RELOADLY_GIFTCARDS_URL: names a real provider/,
    );
    // The simulator's public Reloadly credentials never run beside a real Reloadly or a real bot.
    const simulated = { ...reloadly, RELOADLY_CLIENT_ID: "SimReloadlySandboxClientId000001", RELOADLY_CLIENT_SECRET: "anything-at-all-1" };
    expect(() => loadConfig(simulated)).toThrow(/RELOADLY_CLIENT_ID: is the simulator's public client id/);
  });

  it("with the bot paying from its Stars, needs what a Star costs and refuses every tariff at or below it", () => {
    const message = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    };
    const bot = { BOT_TOKEN: "123456:emulator-token-for-local-chat", TELEGRAM_API_ROOT: "http://127.0.0.1:8081", TELEGRAM_API_EMULATOR: "true" };
    expect(message({ ...bot, PREMIUM_BACKEND: "telegram", GIFTS_BACKEND: "telegram" })).toContain(
      "STAR_COST_USDT: is required by PREMIUM_BACKEND=telegram and GIFTS_BACKEND=telegram",
    );
    // At 0.0107 a Star, 6 months (15.99 for 1500 Stars, 0.01066 each) loses money; 3 and 12 months do not.
    const premium = message({ ...bot, PREMIUM_BACKEND: "telegram", STAR_COST_USDT: "0.0107" });
    expect(premium).toContain("PREMIUM_USDT_6: (15.99 USDT for 1500 stars) is at or below what it costs at STAR_COST_USDT=0.0107 (16.05 USDT)");
    expect(premium).not.toMatch(/PREMIUM_USDT_(3|12):/);
    // At cost exactly is refused too; the stars tariff prices gifts only where the bot sends them.
    expect(message({ ...bot, GIFTS_BACKEND: "telegram", STAR_COST_USDT: "0.015" })).toContain(
      "STARS_USDT_PER_STAR: (0.015 USDT for a star of a gift)",
    );
    expect(message({ ...bot, PREMIUM_BACKEND: "telegram", STAR_COST_USDT: "0.015" })).not.toContain("STARS_USDT_PER_STAR");
    expect(message({ ...bot, GIFTS_BACKEND: "telegram", PREMIUM_BACKEND: "telegram", STAR_COST_USDT: "0.01" })).toBe("");
    expect(loadConfig({ ...bot, GIFTS_BACKEND: "telegram", STAR_COST_USDT: "0.0125" }).sales.starCostMicro).toBe(12_500);
    // Without a Telegram backend it is not needed; a bad amount is named.
    expect(loadConfig({}).sales.starCostMicro).toBeNull();
    expect(message({ STAR_COST_USDT: "-1" })).toContain("STAR_COST_USDT: must be a USDT amount");
  });

  it("refuses a reconcile delay that an in-flight call could outlast", () => {
    expect(() => loadConfig({ UPSTREAM_TIMEOUT_MS: "30000", RECONCILE_AFTER_MS: "20000" })).toThrow(/RECONCILE_AFTER_MS/);
  });

  it("refuses a metrics listener beyond this machine without a token, and says how to fix it", () => {
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "metrics.internal"]) {
      expect(() => loadConfig({ METRICS_HOST: host }), host).toThrow(/METRICS_TOKEN: is required when METRICS_HOST is beyond this machine/);
    }
    for (const host of ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "localhost."])
      expect(loadConfig({ METRICS_HOST: host }).metrics.host).toBe(host);
    expect(loadConfig({ METRICS_HOST: "0.0.0.0", METRICS_TOKEN: "a-long-enough-token-1234" }).metrics.token).toBe("a-long-enough-token-1234");
    expect(loadConfig({ METRICS_HOST: "0.0.0.0", METRICS_PORT: "off" }).metrics.port).toBeNull();
  });

  it("takes TRUST_PROXY as proxies or a hop count, and refuses anything else", () => {
    expect(loadConfig({}).server.trustProxy).toBeNull();
    expect(loadConfig({ TRUST_PROXY: "2" }).server.trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: "10.0.0.0/8, 192.168.1.5, loopback" }).server.trustProxy).toBe("10.0.0.0/8, 192.168.1.5, loopback");
    for (const bad of ["everyone", "10.0.0.0/99", "1.2.3"]) expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY:/);
  });
});
