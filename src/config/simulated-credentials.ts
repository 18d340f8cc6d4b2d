/**
 * The simulated Crypto Pay app's token. It is public (it is in this repository), so anyone can sign an update
 * with it: config.ts refuses to start with it beside a real bot token or a real provider. Shaped like a real
 * one: the app's id, a colon and 35 letters and digits. Nothing here may import anything: the config reads these, the simulator answers to them.
 */
export const SIMULATOR_CRYPTO_PAY_TOKEN = "12345:AAsimulatedCryptoPayAppToken0000001";

/**
 * The client credentials the simulated Reloadly accepts, one pair per environment as Reloadly's dashboard gives
 * one for TEST (sandbox) and one for LIVE mode (docs/providers/reloadly-giftcards.md, R1). Public like the token
 * above: nothing real may run beside them.
 */
export const SIMULATOR_RELOADLY_CREDENTIALS = {
  sandbox: { clientId: "SimReloadlySandboxClientId000001", clientSecret: "sim-reloadly-sandbox-secret-0000000000000000000001" },
  production: { clientId: "SimReloadlyLiveClientId000000001", clientSecret: "sim-reloadly-live-secret-00000000000000000000000001" },
} as const;
