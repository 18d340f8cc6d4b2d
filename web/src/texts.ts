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
    stars: "⭐ Stars",
    recipient: "Recipient (@username)",
    starsCount: "Stars (50 to 10000)",
    getPrice: "Get the price",
    charge: "Charge",
    balanceAfter: "balance after",
    confirm: "Confirm",
    done: (id: number) => `Done! Order #${id} is delivered.`,
    failed: "Failed, refunded",
    topUp: "💳 Top up",
    pay: (amount: number) => `Pay ${amount.toFixed(2)} USDT in @CryptoBot`,
    topupStatus: {
      active: "Waiting for the payment…",
      credited: "✅ Credited to your balance.",
      expired: "The invoice expired.",
      cancelled: "Cancelled.",
      failed: "The invoice could not be made.",
    } as Record<string, string>,
    orders: "🧾 Recent orders",
    noOrders: "No orders yet.",
    product: (type: string) =>
      ({ stars: "stars", premium: "premium", store: "store", game: "game", giftcard: "gift card", gift: "gift" })[type] ?? type,
    status: { processing: "processing", completed: "completed", failed: "failed, refunded" },
  },
  ru: {
    loading: "Загрузка…",
    hello: "Здравствуйте",
    balance: "Баланс",
    cannotOpen: "Магазин не открывается",
    openFromBot: "Откройте магазин из бота в Telegram.",
    offline: "Сервис недоступен: попробуйте чуть позже.",
    signInRefused: "Не удалось проверить вход через Telegram: откройте магазин из бота ещё раз.",
    stars: "⭐ Звёзды",
    recipient: "Получатель (@username)",
    starsCount: "Звёзды (от 50 до 10000)",
    getPrice: "Узнать цену",
    charge: "Спишется",
    balanceAfter: "баланс после",
    confirm: "Подтвердить",
    done: (id: number) => `Готово! Заказ #${id} доставлен.`,
    failed: "Не удалось, деньги возвращены",
    topUp: "💳 Пополнить",
    pay: (amount: number) => `Оплатить ${amount.toFixed(2)} USDT в @CryptoBot`,
    topupStatus: {
      active: "Ждём оплату…",
      credited: "✅ Зачислено на баланс.",
      expired: "Счёт истёк.",
      cancelled: "Отменено.",
      failed: "Счёт не создан.",
    } as Record<string, string>,
    orders: "🧾 Последние заказы",
    noOrders: "Заказов пока нет.",
    product: (type: string) =>
      ({ stars: "звёзды", premium: "премиум", store: "магазин", game: "игра", giftcard: "подарочная карта", gift: "подарок" })[type] ?? type,
    status: { processing: "в обработке", completed: "выполнен", failed: "не удался, деньги возвращены" },
  },
};

export type Texts = (typeof texts)["en"];
