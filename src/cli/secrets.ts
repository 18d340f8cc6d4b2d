// What a command prints never carries a secret: each configured secret's value is replaced wherever it appears
// (an error's message can quote a URL with the bot's token in it, or a provider's answer).

/** The settings that hold a secret; a bot or Crypto Pay token's part after the colon is masked on its own too. */
const SECRET_SETTINGS = ["BOT_TOKEN", "CRYPTO_PAY_TOKEN", "RELOADLY_CLIENT_SECRET", "BOT_WEBHOOK_SECRET", "METRICS_TOKEN", "CODES_KEY"] as const;

/** Shorter values could match ordinary text; every secret setting requires more. */
const SHORTEST = 8;

/** A function masking every secret `env` holds (DATABASE_URL's password too) in a line about to be printed. */
export function secretMask(env: Record<string, string | undefined>): (text: string) => string {
  const values = SECRET_SETTINGS.flatMap((name) => {
    const value = env[name]?.trim();
    if (!value) return [];
    const afterColon = value.slice(value.indexOf(":") + 1);
    return value.includes(":") ? [value, afterColon] : [value];
  });
  try {
    const password = env.DATABASE_URL ? decodeURIComponent(new URL(env.DATABASE_URL).password) : "";
    if (password) values.push(password);
  } catch {
    // Not a URL (a SQLite file): no password.
  }
  // The longest first, so a token is masked whole before its secret half.
  const secrets = [...new Set(values.filter((v) => v.length >= SHORTEST))].sort((a, b) => b.length - a.length);
  return (text) => secrets.reduce((masked, secret) => masked.split(secret).join("[redacted]"), text);
}
