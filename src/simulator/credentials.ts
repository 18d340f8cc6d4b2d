/**
 * The simulated Crypto Pay app's token. It is public (it is in this repository), so anyone can sign an update
 * with it: config.ts refuses to start with it beside a real bot token or a real provider. Shaped like a real
 * one: the app's id, a colon and 35 letters and digits. Nothing here may import more than this constant.
 */
export const SIMULATOR_CRYPTO_PAY_TOKEN = "12345:AAsimulatedCryptoPayAppToken0000001";
