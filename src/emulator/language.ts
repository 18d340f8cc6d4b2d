/**
 * The Telegram language code a terminal's locale stands for, read as POSIX reads the language of messages: LC_ALL,
 * then LC_MESSAGES, then LANG, an empty one counting as unset. "C", "POSIX" (with or without ".UTF-8") or none is
 * English; "ru_RU.UTF-8" is "ru". Telegram sends a user's IETF language tag, never a locale's name.
 */
export function telegramLanguage(env: Record<string, string | undefined>): string {
  const locale = [env.LC_ALL, env.LC_MESSAGES, env.LANG].find((value) => value) ?? "";
  return /^([a-z]{2,3})(?:[_.@-]|$)/i.exec(locale)?.[1]?.toLowerCase() ?? "en";
}
