import { EMULATOR_DEFAULT_PORT, startEmulator } from "./server.js";

// The Bot API emulator alone: point TELEGRAM_API_ROOT at it (with TELEGRAM_API_EMULATOR=true) and drive users through /emulator/*.
const { url } = await startEmulator(Number(process.env.EMULATOR_PORT ?? EMULATOR_DEFAULT_PORT));
console.log(`Bot API emulator on ${url} (TELEGRAM_API_ROOT=${url} TELEGRAM_API_EMULATOR=true)`);
