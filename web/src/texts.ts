// The Mini App's words, in the bot's two languages.

export type Language = "en" | "ru";

export const texts = {
  en: {
    loading: "Loading…",
    hello: "Hello",
    balance: "Balance",
    cannotOpen: "The shop cannot open",
    openFromBot: "Open the shop from the bot in Telegram.",
    offline: "The service cannot be reached: try again in a moment.",
    signInRefused: "Telegram's sign-in could not be checked: open the shop from the bot again.",
  },
  ru: {
    loading: "Загрузка…",
    hello: "Здравствуйте",
    balance: "Баланс",
    cannotOpen: "Магазин не открывается",
    openFromBot: "Откройте магазин из бота в Telegram.",
    offline: "Сервис недоступен: попробуйте чуть позже.",
    signInRefused: "Не удалось проверить вход через Telegram: откройте магазин из бота ещё раз.",
  },
} satisfies Record<Language, Record<string, string>>;
