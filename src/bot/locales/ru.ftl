# Кнопки
btn-cancel = ✖ Отмена
btn-confirm = ✅ Подтвердить
btn-myself = Себе (@{ $username })
btn-months = { $months } мес. · { $price } USDT
btn-yes = ✅ Да, это я
btn-no = ↩ Нет, ввести заново
btn-skip = Пропустить
btn-show-name = Показать моё имя
btn-hide-name = Скрыть моё имя
btn-rotate = 🔑 Да, выпустить новый ключ
btn-card = { $name } · { $price } USDT · осталось { $stock }
btn-gift = { $emoji } { $stars }★ · { $price } USDT{ $limited ->
    [yes] {" "}(лимит.)
   *[no] {""}
}

# Меню и команды
menu-stars = ⭐ Звёзды
menu-premium = 💎 Premium
menu-store = 🎮 Пополнение магазина
menu-games = 🕹 Игровая валюта
menu-giftcards = 🎁 Подарочные карты
menu-gifts = 🎀 Подарки
menu-balance = 💰 Баланс
menu-orders = 🧾 Заказы
menu-key = 🔑 Новый API-ключ
menu-language = 🌐 Язык
menu-intro = Что вы хотите сделать?
cmd-start = Регистрация и API-ключ
cmd-stars = Купить звёзды Telegram
cmd-premium = Купить Telegram Premium
cmd-store = Пополнить кошелёк игрового магазина
cmd-games = Купить игровую валюту
cmd-giftcards = Купить коды подарочных карт
cmd-gifts = Отправить подарок в Telegram
cmd-balance = Ваш баланс в USDT
cmd-orders = Ваши последние заказы
cmd-language = Сменить язык
cmd-help = Что умеет бот
cmd-cancel = Выйти из текущего шага

help =
    Я продаю цифровые товары за ваш баланс в USDT: звёзды, Premium, пополнение магазина, игровую валюту, подарочные карты и подарки.
    Ваш API-ключ работает по HTTP с тем же балансом: передавайте его в X-API-Key или Authorization: Bearer.
    /balance · /orders · /language · /cancel выходит из любого шага.

# Ключи
welcome-back = С возвращением, { $name }!
key-new = Добро пожаловать, { $name }! Вы зарегистрированы. Ваш API-ключ:
key-rotated = Ваш новый API-ключ (старый больше не работает):
key-usage = Передавайте его в каждом запросе в заголовке X-API-Key или как Authorization: Bearer <ключ>.
key-once = ⚠ Ключ показывается только один раз: сохраните его. Потерянный ключ не восстановить; новый можно получить здесь.
key-rotate-ask = Новый ключ заменит текущий, и тот сразу перестанет работать. Баланс, заказы и тарифы останутся с вами. Продолжить?

# Ограничения
start-first = Сначала отправьте /start, чтобы зарегистрироваться.
blocked = ⛔ Ваш аккаунт заблокирован. Обратитесь в поддержку.
private-only = Откройте личный чат со мной: ключи и коды я отправляю только туда.
cancelled = Отменено. Ничего не списано.
button-expired = Эта кнопка больше не действует.
unknown = Я не понял. Выберите в меню:
flow-text-please = Ответьте текстом или кнопкой.
flow-confirm-or-cancel = Нажмите «Подтвердить» или «Отмена» выше.

# Отказы: по причине, если ядро её назвало, иначе по виду (src/bot/refusals.ts)
refused-invalid_input = Это не принято: предложение могло измениться (цены, наличие или получатель). Ничего не списано; начните заново.
refused-unauthorized = Сначала отправьте /start, чтобы зарегистрироваться.
refused-key_blocked = ⛔ Ваш аккаунт заблокирован. Обратитесь в поддержку.
refused-not_found = Не найдено. Ничего не списано.
refused-insufficient_funds = Недостаточно средств: нужно { $needed } USDT, на балансе { $balance } USDT. Попросите администратора пополнить баланс.
refused-rate_limited = Слишком много запросов. Ничего не списано; попробуйте через минуту.
refused-upstream_failed = Сервис временно недоступен. Ничего не списано; попробуйте позже.
refused-unavailable = Сервис временно недоступен. Ничего не списано; попробуйте позже.
refusal = { $reason }; ничего не списано.
reason-login_not_supported = Это не логин магазина: пришлите логин аккаунта, а не e-mail или числовую ссылку на профиль
reason-invalid_amount = Сумма должна быть от { $min } до { $max } USD, не более 2 знаков после точки
reason-provider_error = Поставщик не смог выполнить заказ
reason-provider_balance = У поставщика сейчас недостаточно средств
reason-provider_unavailable = Поставщик сейчас недоступен: попробуйте позже
reason-order_not_found = Поставщик так и не получил заказ
reason-expired = Заказ у поставщика истёк, не будучи выполненным
reason-disabled = Этот товар сейчас отключён
reason-recipient_refuses = Получатель не принимает подарки: это его выбор, а не ошибка
reason-price_changed = Цена изменилась: теперь { $needed } USDT
price-changed = ⚠ Цена изменилась с { $was } до { $now } USDT. Ничего не списано: подтвердите новую цену.

# Подтверждение и результат
confirm =
    { $what }
    Списание: { $charge } USDT
    Баланс после: { $after } USDT
    Подтвердить?
order-completed = ✅ Готово! Заказ #{ $id }, списано { $charged } USDT. Баланс: { $balance } USDT.
order-refunded = ❌ Заказ #{ $id } не выполнен: { $reason }. { $charged } USDT возвращены на баланс.
order-processing = ⏳ Заказ #{ $id } обрабатывается. { $later }
later-delivery = Я напишу, когда он будет доставлен или возвращён.
later-store = Пополнение магазина может занять несколько минут; я напишу, когда оно завершится или деньги вернутся.
later-game = Валюта обычно приходит за 1–2 минуты; я напишу, когда она придёт или деньги вернутся.
later-giftcard = Коды придут в этот личный чат примерно через полминуты; их также можно найти в /orders.

# Звёзды и Premium
ask-recipient = Для кого? Отправьте @username или нажмите «Себе».
bad-username = Это не username: 3–32 латинские буквы, цифры или подчёркивания, например @alice.
recipient-not-found = Не нашёл @{ $username }. Проверьте написание и отправьте снова.
ask-stars = Получатель: { $name } (@{ $username }). Сколько звёзд? Выберите или отправьте число от { $min } до { $max }.
bad-stars = Отправьте целое число звёзд от { $min } до { $max }.
what-stars = { $amount } звёзд для @{ $username }
premium-already = Обратите внимание: у @{ $username } уже есть Premium; покупка продлит его.
ask-months = Получатель: { $name } (@{ $username }). На какой срок?
bad-months = Выберите 3, 6 или 12 месяцев.
what-premium = Premium на { $months } мес. для @{ $username }

# Магазин
ask-store-login = Отправьте логин аккаунта магазина: имя для входа, а не имя профиля, которое видят другие. Подойдёт и ссылка вида …/id/вашеимя.
bad-login-email = Адрес e-mail не подходит: отправьте логин аккаунта.
bad-login-numeric = Числовая ссылка на профиль (…/profiles/123…) не подходит: отправьте логин или ссылку вида …/id/имя.
bad-login = Это не похоже на логин: 3–64 латинские буквы, цифры, точки, дефисы или подчёркивания.
ask-store-amount = Аккаунт { $login }. Сколько USD зачислить? Выберите сумму или отправьте от { $min } до { $max } (не более 2 знаков после точки).
bad-store-amount = Отправьте сумму от { $min } до { $max } USD, не более 2 знаков после точки.
store-quote =
    Пополнение магазина для { $login }
    Номинал: { $amount } USD
    Комиссия провайдера: { $fee } USD
    Наценка сервиса ({ $percent }%): { $markup } USDT
    Итого: { $total } USDT

# Игры
ask-game = Какая игра?
game-notes = Важно: { $notes }
ask-server = На каком сервере аккаунт?
ask-server-id = Отправьте ID сервера (зоны), только цифры.
ask-player-id = Отправьте ID игрока в { $game }.
bad-player-id = Такой ID игрока не найден. Проверьте его в игре и отправьте снова.
is-this-player = Аккаунт: { $name } (ID { $id }). Это нужный аккаунт? Зачисление на чужой аккаунт отменить нельзя.
ask-denomination = Выберите пополнение (цены актуальны):
what-game = { $denomination } в { $game } для { $name } (ID { $id }, сервер { $server })

# Подарочные карты
ask-brand =
    Какая карта? Код работает только для аккаунта указанного региона:
    { $brands }
no-stock = Сейчас ничего нет в наличии. Попробуйте позже.
ask-card =
    { $brand }: { $notes }
    Выберите номинал:
ask-quantity = Сколько кодов? От { $min } до { $max }.
bad-quantity = Отправьте целое число от { $min } до { $max }.
what-giftcard = { $quantity } × { $name }, карта { $brand }

# Подарки
ask-gift = Какой подарок?
ask-gift-message = Добавьте сообщение к подарку (до { $max } символов) или нажмите «Пропустить».
bad-gift-message = Сообщение — не более { $max } символов.
ask-gift-hide = Показывать ваше имя в публичном профиле получателя? (Сам получатель всегда видит отправителя.)
what-gift = Подарок { $emoji } ({ $stars }★) для @{ $username }{ $hidden ->
    [yes] , имя скрыто
   *[no] {""}
}, сообщение: { $message }

# Баланс и заказы
balance =
    Баланс: { $usdt } USDT
    ≈ { $uzs } UZS · ≈ { $ton } TON
ton-unavailable = н/д
orders-none = Заказов пока нет.
orders-title = Ваши последние заказы (нажмите для подробностей):
order-unknown = Заказ не найден.
order-line = #{ $id } { $product } → { $recipient } · { $charged } USDT · { $status }
order-created = Создан { $at } UTC
order-failed-detail = { $reason }{ $refunded ->
    [yes] {" "}(возвращено)
   *[no] {""}
}
codes =
    Ваши коды (сохраните их; вернуть их нельзя):
    { $codes }
product-stars = звёзды
product-premium = Premium
product-store = пополнение магазина
product-game = игровая валюта
product-giftcard = подарочные карты
product-gift = подарок
status-processing = в обработке
status-completed = выполнен
status-failed = возвращён

# Язык и уведомления
language-ask = Выберите язык:
language-set = Готово: теперь я говорю по-русски.
credited = 💰 Ваш баланс пополнен на { $amount } USDT. Баланс: { $balance } USDT.
notify-completed = ✅ Выполнено: { $line }
notify-refunded = ❌ Не выполнено, деньги возвращены: { $line }. { $charged } USDT снова на балансе. Причина: { $reason }
