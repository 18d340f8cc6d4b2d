# Кнопки
btn-cancel = ✖ Отмена
btn-confirm = ✅ Подтвердить
btn-myself = Себе (@{ $username })
btn-months = { $months } мес. · { $price } USDT
btn-skip = Пропустить
btn-show-name = Показать моё имя
btn-hide-name = Скрыть моё имя
btn-rotate = 🔑 Новый ключ, старый отключить сразу
btn-rotate-grace = 🔑 Новый ключ, старый работает ещё { $hours ->
    [1] 1 час
    [24] 24 часа
   *[168] 7 дней
}
btn-end-grace = ⛔ Отключить прежний ключ сейчас
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
cmd-forget = Удалить то, что бот хранит для отправки вам подарков

help =
    Я продаю цифровые товары за ваш баланс в USDT: звёзды, Premium, пополнение магазина, игровую валюту, подарочные карты и подарки.
    Ваш API-ключ работает по HTTP с тем же балансом: передавайте его в X-API-Key или Authorization: Bearer.
    /balance · /orders · /statement · /language · /cancel выходит из любого шага.
    Пополнение звёздами Telegram или в USDT: /topup · /topups. Оплата: /paysupport · /terms.
help-admin =
    Вы здесь администратор; цель — Telegram id, @username или префикс ключа (sj_…):
    { $commands }

# Ключи
welcome-back = С возвращением, { $name }!
key-new = Добро пожаловать, { $name }! Вы зарегистрированы. Ваш API-ключ:
key-rotated = Ваш новый API-ключ (старый больше не работает):
key-usage = Передавайте его в каждом запросе в заголовке X-API-Key или как Authorization: Bearer <ключ>.
key-api = API: { $api } · описание запросов и ответов (OpenAPI): { $docs }
key-once = ⚠ Ключ показывается только один раз: сохраните его. Потерянный ключ не восстановить; новый можно получить здесь.
key-rotate-ask = Новый ключ заменит текущий. Текущий может перестать работать сразу или поработать ещё какое-то время, чтобы ваши системы перешли на новый без простоя. Баланс, заказы и тарифы останутся с вами. Продолжить?
key-rotated-grace = Ваш новый API-ключ. Старый ({ $prefix }…) работает до { $until } UTC, чтобы ваши системы успели перейти:
key-in-grace = Прежний ключ { $prefix }… работает до { $until } UTC.
key-grace-ended = Готово: прежние ключи отключены, работает только текущий.

# Ограничения
start-first = Сначала отправьте /start, чтобы зарегистрироваться.
blocked = ⛔ Ваш аккаунт заблокирован. Обратитесь в поддержку.
private-only = Откройте личный чат со мной: ключи и коды я отправляю только туда.
cancelled = Отменено. Ничего не списано.
nothing-to-cancel = Отменять нечего: сделанное остаётся в силе.
button-expired = Эта кнопка больше не действует.
unknown = Я не понял. Выберите в меню:
flow-text-please = Ответьте текстом или кнопкой.
flow-confirm-or-cancel = Нажмите «Подтвердить» или «Отмена» выше.

# Отказы: по причине, если ядро её назвало, иначе по виду (src/bot/refusals.ts)
refused-invalid_input = Это не принято: предложение могло измениться (цены, наличие или получатель). Ничего не списано; начните заново.
refused-unauthorized = Сначала отправьте /start, чтобы зарегистрироваться.
refused-key_blocked = ⛔ Ваш аккаунт заблокирован. Обратитесь в поддержку.
refused-forbidden = ⛔ Это могут только администраторы сервиса, а вы не администратор.
refused-not_found = Не найдено. Ничего не списано.
refused-insufficient_funds = Недостаточно средств: нужно { $needed } USDT, на балансе { $balance } USDT. Пополните баланс: /topup.
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
order-refunded = ❌ Заказ #{ $id } не выполнен; { $charged } USDT возвращены на баланс.
    { $reason }
order-processing = ⏳ Заказ #{ $id } обрабатывается. { $later }
later-delivery = Я напишу, когда он будет доставлен или возвращён.
later-store = Пополнение магазина может занять несколько минут; я напишу, когда оно завершится или деньги вернутся.
later-game = Валюта обычно приходит за 1–2 минуты; я напишу, когда она придёт или деньги вернутся.
later-giftcard = Коды придут в этот личный чат примерно через полминуты; их также можно найти в /orders.

# Звёзды и Premium
ask-recipient = Кому? Пришлите @username.
bad-username = Это не username: 3–32 латинские буквы, цифры или подчёркивания, например @alice.
recipient-not-found = Не могу отправить @{ $username }. Проверьте написание; если всё верно, попросите получателя открыть этого бота и отправить /start, затем пришлите имя снова.
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
ask-store-amount = Аккаунт { $login }. Сколько зачислить? Нажмите сумму или пришлите от { $min } до { $max } (не более 2 знаков после точки).
bad-store-amount = Пришлите сумму от { $min } до { $max }, не более 2 знаков после точки, например 10 или 12,50.
store-quote = Пополнение магазина для { $login }
    Зачисляется на кошелёк: { $amount }
    Комиссия поставщика: { $fee } USDT
    Наценка сервиса ({ $percent }%): { $markup } USDT
    Итого: { $total } USDT
# Игры
ask-game = Какая игра?
game-notes = Важно: { $notes }
ask-server = На каком сервере аккаунт?
ask-server-id = Пришлите ID сервера (зоны), только цифры.
ask-player-id = Отправьте ID игрока в { $game }.
bad-player-id = Этот ID игрока не принят. Проверьте его в игре и пришлите ещё раз.
ask-denomination = Аккаунт: { $name } (ID { $id }). Зачисление не на тот аккаунт отменить нельзя. Выберите пополнение (цены текущие) или отметьте, что аккаунт не тот:
what-game = { $denomination } в { $game } для { $name } (ID { $id })
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
giftcard-cards = { $quantity } × { $brand } { $name }
giftcard-cards-unnamed = { $quantity } × подарочная карта { $name }

# Подарки
ask-gift = Какой подарок?
ask-gift-message = Для { $name } (@{ $username }). Добавьте сообщение к подарку (до { $max } символов) или нажмите «Пропустить».
    { gift-text-rules }
ask-gift-message-labelled = Для { $name } (@{ $username }). Добавьте сообщение к подарку или нажмите «Пропустить». Подарок отправляет бот, поэтому сообщение начнётся с «{ $label }»: получатель увидит, что оно от покупателя, а не от магазина. До { $max } символов.
    { gift-text-rules }
gift-text-rules = Нельзя: ссылки, адреса сайтов и @упоминания; скрытые, похожие или смешанные из разных алфавитов буквы; переносы строк; слова из уведомлений магазина или Telegram (поддержка, админ, аккаунт, баланс, подтвердите, пароль, кошелёк…).
bad-gift-message = Это сообщение нельзя отправить с подарком: { $why }
    Пришлите другое или нажмите «Пропустить».
ask-gift-hide = Показывать ваше имя в публичном профиле получателя? (Сам получатель всегда видит отправителя.)
what-gift = Подарок { $emoji } ({ $stars }★) для { $name } (@{ $username }){ $hidden ->
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
order-line-short = #{ $id } { $product } → { $recipient } · { $charged } USDT
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
notify-refunded = ❌ Не выполнен, средства возвращены: { $line }. { $charged } USDT снова на балансе.
    { $reason }

# Добавлено: бот в живом использовании
btn-keep-key = Оставить текущий ключ
btn-wrong-account = ↩ Не тот аккаунт: ввести ID заново
btn-card-range = { $name } · { $price } USDT · { $min }–{ $max } за заказ
support = Нужна помощь? Напишите { $contact }.
pick-one = Выберите одну из кнопок (или напишите её название точно).
flow-balance = Ваш баланс: { $balance } USDT.
flow-owner-limits = Ключ владельца: вы тратите кошелёк сервиса, сегодня до { $today } USDT (за заказ не более: { $perOrder }).
nothing-affordable = Здесь пока нечего купить: самый дешёвый вариант стоит { $cheapest } USDT, а вам доступно { $balance } USDT. Пополните баланс: /topup.
key-kept = Хорошо: текущий ключ продолжает работать.
provider-note = Поставщик сообщает: «{ $note }»
ask-recipient-self = Кому? Пришлите @username или нажмите «Себе».
bad-server-id = ID сервера (зоны) — только цифры, не больше 6. Пришлите ещё раз.
bad-player-id-format = ID игрока — от 1 до 64 букв, цифр, _ или -. Проверьте его в игре и пришлите ещё раз.
what-game-server = { $denomination } в { $game } для { $name } (ID { $id }, сервер { $server })
gift-refuses-choose-another = @{ $username } не принимает подарки: это его выбор, и ничего не списано. Пришлите другой @username.
debited = 💸 Администратор списал { $amount } USDT с вашего баланса. Баланс: { $balance } USDT.
you-blocked = ⛔ Администратор заблокировал ваш аккаунт: ключ отвечает 403, покупки недоступны.
you-unblocked = ✅ Ваш аккаунт разблокирован: ключ снова работает.
adm-credited = { $target }: +{ $amount } USDT, баланс { $balance } USDT
adm-debited = { $target }: -{ $amount } USDT, баланс { $balance } USDT
adm-blocked = { $target }: заблокирован (пользователь уведомлён)
adm-unblocked = { $target }: разблокирован (пользователь уведомлён)
adm-markup = { $target }: наценка { $product } { $percent }
adm-owner = { $target }: ключ владельца, дневной лимит { $daily }, лимит заказа { $perOrder }
adm-wallet = кошелёк сервиса: { $amount } USDT
adm-user = пользователь { $id }{ $username } ({ $kind }{ $blocked ->
        [yes] , ЗАБЛОКИРОВАН
       *[no] {""}
    })
adm-user-balance = баланс { $balance } USDT
adm-user-wallet = баланс { $balance } USDT (кошелёк сервиса)
adm-user-key = ключ { $prefix }…
adm-user-markups = наценки: { $rates }
kind-standard = обычный
kind-owner = ключ владельца
kind-wallet = кошелёк сервиса
adm-default = по умолчанию
adm-none = нет
adm-stats-title = Сегодня (UTC):
adm-stats-line = { $product }: { $status ->
        [completed] { $orders ->
            [one] { $orders } заказ выполнен
            [few] { $orders } заказа выполнены
           *[many] { $orders } заказов выполнено
        }
        [failed] { $orders ->
            [one] { $orders } заказ возвращён
            [few] { $orders } заказа возвращены
           *[many] { $orders } заказов возвращено
        }
       *[processing] { $orders ->
            [one] { $orders } заказ в обработке
            [few] { $orders } заказа в обработке
           *[many] { $orders } заказов в обработке
        }
    }, { $volume } USDT
adm-stats-none = заказов пока нет
adm-stats-refunds = возвраты: { $orders ->
        [one] { $orders } заказ
        [few] { $orders } заказа
       *[many] { $orders } заказов
    }, { $volume } USDT
adm-stats-30d = за 30 дней, доставлено: { $list }
adm-stats-topups = пополнения (за всё время): { $list }
adm-stats-upstreams = поставщики: { $list }
adm-stats-upstream = { $name } ({ $backend }): { $ready ->
        [yes] работает
       *[no] НЕДОСТУПЕН
    }
adm-stats-topup = { $method }, { $status }: { $count }
adm-stats-topup-credited = { $method }, { $status }: { $count } ({ $amount } USDT)
upstream-stars = звёзды
upstream-premium = Premium
upstream-rates = курсы
upstream-store = магазин
upstream-games = игры
upstream-giftcards = подарочные карты
upstream-gifts = подарки
adm-usage = формат: { $usage }
adm-need-target = нужно указать пользователя
adm-no-user = Нет пользователя { $target }
adm-bad-amount = сумма — число USDT больше 0, не более { $max }, не более 6 знаков после точки
adm-bad-product = товар — один из: { $products }
adm-bad-percent = процент — число от 0 до 100, например 4 или 2.5, или 'default'
adm-confirm-credit = Зачислить { $amount } USDT пользователю { $target }? Сумма выше порога подтверждения.
adm-confirm-debit = Списать { $amount } USDT у пользователя { $target }? Сумма выше порога подтверждения.
adm-confirm-wallet = Установить кошелёк сервиса в { $amount } USDT? Сумма выше порога подтверждения.
adm-expired = Подтверждение истекло или уже использовано: отправьте команду ещё раз.
adm-dropped = Отменено: ничего не изменилось.
adm-insufficient = Недостаточно средств: на счёте { $balance } USDT.
rule-no_account = У этого пользователя нет аккаунта: сначала он должен отправить /start.
rule-ambiguous_target = Под это подходят несколько пользователей: { $candidates }. Ничего не изменено: укажите Telegram id.
rule-owner_topup = Это ключ владельца: он тратит кошелёк сервиса, и пополнять у него нечего.
rule-owner_key = Это ключ владельца: он тратит кошелёк сервиса, своего баланса для зачисления или списания у него нет. Измените кошелёк командой /wallet.
rule-amount_bound = Сумма должна быть больше 0 и не более { $max } USDT.
rule-balance_bound = Баланс не может превышать { $max } USDT: эта операция превысила бы его.
rule-holds_balance = На этом счёте ещё есть баланс: спишите его, прежде чем делать ключ ключом владельца.
rule-markup_range = Наценка — процент от 0 до 100.
rule-confirm_needed = Сначала нужно подтвердить одобрение: ничего не изменено.
rule-move_unconfirmed = Эта операция выше порога подтверждения ({ $max } USDT): сначала её нужно подтвердить. Ничего не изменено.
rule-self_block = Администратор не может заблокировать собственный аккаунт: ничего не изменено.

# Webhooks
cmd-webhook = Подписанные уведомления на ваш сервер
btn-webhook-ping = 📡 Отправить тест
btn-webhook-secret = 🔐 Новый секрет
btn-webhook-revoke = 🚫 Отключить старый секрет сейчас
btn-webhook-remove = 🗑 Удалить
btn-webhook-remove-yes = Да, удалить
btn-webhook-keep = Оставить
webhook-none = Вебхук не задан. Отправьте /webhook https://ваш.сервер/путь — и каждый завершённый заказ и изменение баланса будут приходить туда с подписью.
webhook-status =
    Вебхук: { $url }
    Включён: { $enabled ->
        [yes] да
       *[no] нет
    } · ждут доставки: { $pending }
webhook-disabled-why = Отключён после суток неудачных доставок: { $reason }. Отправьте /webhook с адресом ещё раз, чтобы возобновить.
webhook-backing-off = Сбои с { $since } UTC: доставка приостановлена, следующая попытка в { $next } UTC одним событием.
webhook-dropped = Событий не поставлено в очередь: { $count }, потому что уже ждали { $limit } (последнее в { $at } UTC): проверьте /orders, что вы пропустили.
webhook-last = Последняя попытка { $at } UTC ({ $type }): { $result }
webhook-set = Вебхук задан: { $url }. Секрет для подписи:
webhook-changed = Вебхук изменён на { $url }. Секрет тот же; ожидающие события пойдут туда.
webhook-secret-new = Новый секрет для подписи. Прежний тоже подписывает до { $until } UTC, чтобы переход прошёл без потерь:
webhook-revoked = Старый секрет больше не подписывает: подписывает только текущий.
webhook-secret-once = ⚠ Показывается только один раз. Проверяйте им заголовок X-Webhook-Signature (см. документацию API).
webhook-bad-url = Этот адрес не может принимать вебхуки: нужен https:// адрес публичного сервера.
webhook-ping-ok = ✅ Тестовое событие доставлено: HTTP { $status } за { $ms } мс.
webhook-ping-failed = ❌ Тестовое событие не доставлено: { $result }.
webhook-remove-ask = Удалить вебхук? Недоставленные события будут отброшены.
webhook-kept = Вебхук оставлен как есть.
webhook-removed = Вебхук удалён: больше ничего не отправляется.
webhook-disabled = ⚠ Ваш вебхук { $url } отключён: { $reason }. Исправьте сервер и отправьте /webhook с адресом ещё раз — недоставленные события будут отправлены.
# Binding quotes (POST /v1/quotes, quote_id): the refusals of a purchase naming a quote
reason-quote_not_found = Такой котировки у этого ключа нет
reason-quote_expired = Срок котировки истёк: запросите новую
reason-quote_used = Эта котировка уже использована
reason-quote_mismatch = Эта котировка выдана для другой покупки
reason-database_unavailable = Сервис сейчас не может обратиться к своей базе данных: попробуйте через минуту. Покупка, за которую уже списаны средства, будет выполнена или возвращена сама.
# Ledger statement (/statement, CSV export)
cmd-statement = История баланса и выгрузка CSV
menu-statement = 📒 Выписка
statement-title = 📒 История баланса, сначала новые. Баланс сейчас: { $balance } USDT
statement-title-owner = 📒 Списания и возвраты ваших заказов с кошелька сервиса, сначала новые. Итого: { $total } USDT
statement-older-page = (более ранние записи)
statement-none = Изменений баланса пока нет.
statement-order = заказ #{ $id }
statement-note = «{ $note }»
statement-older = ◀ Ранее
statement-export-month = 📄 CSV: этот месяц
statement-export-last-month = 📄 CSV: прошлый месяц
statement-export-30d = 📄 CSV: последние 30 дней
statement-export-caption = Выписка { $from } – { $to } (UTC): записей: { $count }. Баланс на начало { $opening } USDT, на конец { $closing } USDT.
statement-export-caption-owner = Ваши заказы с кошелька сервиса { $from } – { $to } (UTC): записей: { $count }. Итого до периода { $opening } USDT, после { $closing } USDT.
ledger-kind-credit = зачисление
ledger-kind-debit = списание
ledger-kind-charge = оплата
ledger-kind-refund = возврат
ledger-kind-adjustment = корректировка
ledger-kind-topup = пополнение
ledger-kind-reversal = возврат пополнения

# Operations: administrator alerts and the low-balance notice
alert-still = По-прежнему:
alert-suppressed = (Ещё { $count ->
        [one] { $count } оповещение задержано
        [few] { $count } оповещения задержаны
       *[other] { $count } оповещений задержано
    } часовым лимитом: смотрите журнал сервиса.)
alert-provider-firing = 🔴 Провайдер { $provider } недоступен: проверка его состояния не проходит. Его товары отвечают 503 или ждут.
alert-provider-resolved = 🟢 Провайдер { $provider } снова доступен.
alert-refunds-firing = 🔴 { $count ->
        [one] { $count } возврат
        [few] { $count } возврата
       *[other] { $count } возвратов
    } за последние { $minutes } мин. (порог { $threshold }).
alert-refunds-resolved = 🟢 Возвратов снова меньше { $threshold } за { $minutes } мин.
alert-wallet-firing = 🔴 На сервисном кошельке { $balance_usdt } USDT, меньше { $threshold_usdt } USDT: ключам владельца скоро начнут отказывать.
alert-wallet-resolved = 🟢 На сервисном кошельке снова { $balance_usdt } USDT.
alert-stuck-firing = 🔴 { $count ->
        [1] { $count } заказ в обработке дольше обычного для его провайдера:
        [one] { $count } заказ в обработке дольше обычного для их провайдера; самый старый —
        [few] { $count } заказа в обработке дольше обычного для их провайдера; самый старый —
       *[other] { $count } заказов в обработке дольше обычного для их провайдера; самый старый —
    } №{ $order_id } ({ $product }) с { $since }.
alert-stuck-resolved = 🟢 Зависших заказов больше нет.
alert-held-firing = 🟠 Заказов на удержании: { $count }: по звёздным транзакциям бота нельзя понять, какие из них доставлены. Самый старый — №{ $order_id } ({ $product }) с { $since }. Решите по каждому: npm run admin -- held, затем resolve <заказ> delivered|refund.
alert-held-resolved = 🟢 Заказов на удержании больше нет.
alert-ledger-firing = 🚨 Учёт не сходится: у { $accounts } счетов баланс не равен сумме проводок (первый: счёт { $account_id }). Разберитесь, прежде чем кому-либо начислять.
alert-ledger-resolved = 🟢 Учёт снова сходится.
alert-cryptopay-firing = 🔴 Crypto Pay не отвечает: счета на пополнение не создаются, оплаченные ждут (зачислятся, когда он ответит).
alert-cryptopay-resolved = 🟢 Crypto Pay снова отвечает.
alert-funds-firing = 🔴 { $source ->
    [stars] На балансе бота { $amount } звёзд, меньше { $threshold }: подарки и Premium, которые не покрыты, отклоняются (503), пока вы не пополните звёзды бота (docs/go-live.md).
   *[other] На счёте Reloadly { $amount } { $unit }, меньше { $threshold }: подарочные карты перестанут выдаваться, когда он кончится; пополните счёт в кабинете Reloadly.
  }
alert-funds-resolved = 🟢 { $source ->
    [stars] На балансе бота снова { $amount } звёзд.
   *[other] На счёте Reloadly снова { $amount } { $unit }.
  }
alert-invoices-firing = 🟠 { $unpaid ->
        [one] { $unpaid } счёт на пополнение остался неоплаченным
        [few] { $unpaid } счёта на пополнение остались неоплаченными
       *[other] { $unpaid } счетов на пополнение остались неоплаченными
    } (истекли или отменены) за { $hours } ч (порог { $threshold }): проверьте ссылку оплаты или кто их создаёт.
alert-anomalies-firing = 🔴 Crypto Pay сообщил о { $count ->
        [one] { $count } платеже
       *[other] { $count } платежах
    } за { $hours } ч, не совпадающих ни с одним пополнением (последний: счёт { $invoice_id }, { $anomaly }). Ничего не зачислено: проверьте логи («matches no top-up»), сверьте счёт в @CryptoBot и смените токен Crypto Pay, если подписанное обновление оказалось ложным.
alert-anomalies-resolved = 🟢 За последние сутки аномалий платежей нет.
alert-invoices-resolved = 🟢 Неоплаченных счетов снова меньше { $threshold } в сутки.
alert-database-firing = 🚨 База данных { $fault ->
    [full] не может записать больше (диск заполнен)
    [timeout] не отвечает вовремя
    [busy] слишком долго заблокирована
    [io] не может читать или писать свои файлы
   *[unreachable] недоступна
} на этом экземпляре: с прошлой проверки не выполнено операций: { $count } (последняя ошибка: { $cause }). Запросы, которым она нужна, получают 503; ничего не записано наполовину.
alert-database-resolved = 🟢 База данных снова отвечает на этом экземпляре.
alert-starbook-firing = 🚨 Книга звёзд бота расходится с Telegram: расхождений { $differences }; баланс в Telegram { $balance }, по книге { $book }. Первое: { $first }. Подробно: npm run admin -- stars reconcile.
alert-starbook-resolved = 🟢 Книга звёзд бота снова совпадает с транзакциями и балансом в Telegram.
alert-unmatched-firing = 🔴 { $count ->
        [one] { $count } платёж звёздами за { $hours } ч не совпал ни с одним пополнением и никому не зачислен
        [few] { $count } платежа звёздами за { $hours } ч не совпали ни с одним пополнением и никому не зачислены
       *[other] { $count } платежей звёздами за { $hours } ч не совпали ни с одним пополнением и никому не зачислены
    } (последний: { $latest }): найдите плательщика и верните звёзды (npm run admin -- stars).
alert-unmatched-resolved = 🟢 За последние сутки несовпавших платежей звёздами нет.
alert-shortrefunds-firing = 🔴 Telegram вернул { $count ->
        [one] { $count } пополнение
        [few] { $count } пополнения
       *[other] { $count } пополнений
    } звёздами за { $hours } ч, зачисление по которым уже потрачено: { $short_usdt } USDT списать не удалось (последнее: пополнение { $topup_id }).
alert-shortrefunds-resolved = 🟢 За последние сутки недостающих возвратов звёзд нет.
low-balance = ⚠ Ваш баланс { $balance } USDT — меньше { $threshold } USDT. Пополните его, чтобы продолжать покупки. (Отключить это уведомление можно в /balance.)
btn-low-balance-on = 🔔 Уведомление о низком балансе: вкл.
btn-low-balance-off = 🔕 Уведомление о низком балансе: выкл.
low-balance-set-on = 🔔 Мы сообщим, когда покупка опустит баланс ниже { $threshold } USDT.
low-balance-set-off = 🔕 Уведомления о низком балансе выключены. Включить снова можно в /balance.

# Top-ups
menu-shop = 🛍 Открыть магазин
menu-shop-button = Магазин
menu-topup = 💳 Пополнить
cmd-topup = Пополнить баланс (криптосчёт или перевод)
cmd-topups = Ваши пополнения и отмена открытого
topup-ask = Сколько добавить, в USDT (от { $min } до { $max })? Нажмите сумму или введите свою: вы получите счёт Crypto Pay для оплаты в @CryptoBot.
topup-transfer-amount = Сколько вы перевели, в USDT (от { $min } до { $max })?
topup-bad-amount = Отправьте сумму в USDT от { $min } до { $max }, например 25 или 12.5.
topup-off = Пополнение здесь недоступно: напишите в поддержку.
btn-topup-transfer = 🏦 Я оплатил переводом
topup-invoice = Счёт на { $amount } USDT: оплатите до { $until } UTC. Баланс пополнится сразу после оплаты, и мы сообщим здесь.
btn-topup-pay = 💳 Оплатить { $amount } USDT
btn-topup-cancel = Отменить этот счёт
topup-transfer-reference = Id транзакции или примечание, по которому администратор проверит оплату:
topup-transfer-sent = Заявка #{ $id } на { $amount } USDT отправлена администраторам: сообщим здесь, когда они решат. /topups покажет её (и отменит).
topups-none = Пополнений пока нет. /topup пополнит баланс.
topups-line = #{ $id } { $method } { $amount } USDT: { $status }
btn-topup-cancel-one = Отменить #{ $id }
topup-method-invoice = счёт
topup-method-transfer = перевод
topup-status-creating = создаётся
topup-status-active = ждёт оплаты
topup-status-pending = ждёт администратора
topup-status-credited = зачислено
topup-status-expired = истекло
topup-status-cancelled = отменено
topup-status-rejected = отклонено
topup-status-failed = не удалось, ничего не зачислено
topup-cancelled = Пополнение #{ $id } отменено: ничего не списано.
topup-credited = ✅ Баланс пополнен: +{ $amount } USDT. Баланс: { $balance } USDT.
topup-rejected = Ваша заявка на пополнение #{ $id } на { $amount } USDT отклонена: { $reason }
topup-admin-ask = 💳 Пополнение переводом #{ $id }: { $user } сообщает об оплате { $amount } USDT.
    Баланс сейчас: { $balance } USDT
topup-admin-reference = Примечание, как его ввёл пользователь:
topup-admin-reused = ⚠ То же примечание есть у перевода { $others }: одобрение этого потребует подтверждения.
topup-admin-above = ⚠ Больше { $threshold } USDT: одобрение потребует подтверждения.
topup-admin-confirm = Одобрить пополнение переводом #{ $id } ({ $user }, { $amount } USDT)?
topup-admin-cancelled = Пополнение переводом #{ $id } ({ $user }, { $amount } USDT) отменено пользователем: решать нечего.
btn-approve-confirm = ✅ Да, одобрить #{ $id }
topup-cancel-paid = Пополнение #{ $id } уже оплачено, поэтому его нельзя отменить: оно зачислено на ваш баланс.
topup-admin-approved = ✅ Пополнение #{ $id } ({ $user }, { $amount } USDT) одобрил { $by }.
topup-admin-rejected = ❌ Пополнение #{ $id } ({ $user }, { $amount } USDT) отклонил { $by }: { $reason }
topup-admin-closed = Пополнение #{ $id } ({ $user }, { $amount } USDT): { $status }.
btn-approve = ✅ Одобрить
btn-reject = ❌ Отклонить
topup-reject-ask = Отклонить пополнение переводом #{ $id } ({ $user }, { $amount } USDT): пришлите причину для пользователя или нажмите «Отмена».
topup-reject-text-please = Пришлите причину текстом или нажмите «Отмена»: пока ничего не решено.
topup-rejected-done = Пополнение #{ $id } отклонено; пользователю сообщена причина.
topup-decided-already = По пополнению #{ $id } уже есть решение: ничего не изменено.

# Контакты: что бот хранит, чтобы подарки и Premium дошли до пользователя
forget-done = Удалено: то, что я хранил, чтобы до вас доходили подарки и Premium, — ваш id в Telegram { $id }, имя пользователя { $username }, ваше имя и статус Premium, как их показывал Telegram. Если вы напишете мне снова, я снова сохраню id и имя пользователя (так подарок находит получателя); чтобы этого не было, заблокируйте бота. Ваш аккаунт здесь, его баланс и заказы остаются: это учёт магазина.
forget-nothing = Я не храню о вас ничего для подарков и Premium: удалять нечего.

# Звёзды: пополнение в Telegram Stars, нехватка баланса за один шаг, возвраты, /paysupport и /terms
btn-topup-stars = ⭐ Оплатить звёздами Telegram
stars-topup-ask = Оплата звёздами Telegram: каждая ⭐ добавляет { $rate } USDT к балансу. Нажмите пакет или отправьте число звёзд от { $min } до { $max }.
btn-stars-pack = { $stars } ⭐ → { $amount } USDT
stars-topup-bad = Отправьте целое число звёзд от { $min } до { $max }.
stars-invoice-title = Пополнение { $amount } USDT
stars-invoice-description = { $stars } звёзд Telegram добавят { $amount } USDT к вашему балансу в этом боте (пополнение #{ $id }). Условия: /terms.
stars-invoice-label = { $amount } USDT
stars-invoice-failed = Telegram сейчас не принял счёт: ничего не списано. Попробуйте через минуту.
btn-stars-pay = Оплатить { $stars } ⭐
topup-method-stars = звёзды Telegram
topup-status-refunding = возвращается
topup-status-refunded = возвращено
topup-credited-stars = ✅ Оплачено звёздами Telegram: { $stars } ⭐ → +{ $amount } USDT. Баланс: { $balance } USDT.
topup-refunded = ↩ Ваше пополнение звёздами Telegram #{ $id } возвращено: { $stars } ⭐ вернулись к вам, с баланса списано { $amount } USDT.
shortfall-offer =
    { $what }
    Списание: { $charge } USDT. На балансе: { $balance } USDT, не хватает { $short } USDT.
    Оплатите { $stars } ⭐ звёздами Telegram: { $credit } USDT добавятся к балансу, и заказ будет оформлен сразу.
btn-shortfall = ⭐ Пополнить на { $stars } ⭐ и купить
shortfall-waiting = Ждём оплату: нажмите «Оплатить» в счёте выше или «Отмена».
shortfall-credit-kept = Пополнение звёздами остаётся на вашем балансе.
checkout-off = Оплата звёздами Telegram сейчас здесь не принимается.
checkout-currency = Этот счёт оплачивается только звёздами Telegram.
checkout-unknown = Этот счёт больше не действует: начните новое пополнение через /topup.
checkout-closed = Это пополнение закрыто (оплачено, истекло или отменено): начните новое через /topup.
checkout-amount = Сумма отличается от суммы пополнения: начните новое через /topup.
checkout-blocked = Этот аккаунт заблокирован: напишите в поддержку.
checkout-daily = Пополнение звёздами ограничено { $max } USDT в сутки: выберите сумму меньше или попробуйте позже.
checkout-unchecked = Не удалось проверить платёж: ничего не списано; попробуйте через минуту.
cmd-paysupport = Помощь с оплатой звёздами
cmd-terms = Условия оплаты
paysupport = Помощь с оплатой: напишите { $contact }, указав ваш id в Telegram { $id } и номер пополнения из /topups. Пополнение звёздами, которое вы ещё не потратили, можно вернуть.
paysupport-no-contact = Помощь с оплатой: контакт поддержки здесь пока не указан. Платёж определяют ваш id в Telegram { $id } и номер пополнения из /topups. Пополнение звёздами, которое вы ещё не потратили, администратор может вернуть.
terms =
    Условия оплаты. Этот бот продаёт цифровые товары с оплатой с предоплаченного баланса в USDT. Пополнение звёздами Telegram добавляет показанную до оплаты сумму USDT, как только Telegram подтвердит платёж. Доставленные товары не возвращаются; неудавшийся заказ сразу возвращается на баланс.
    Администратор может вернуть пополнение звёздами, которое ещё не потрачено: звёзды вернутся к вам, а USDT спишутся с баланса. Помощь с оплатой: /paysupport.
adm-refund-bad-id = id пополнения — целое число, как его показывают /topups и панель
adm-refund-ask = Вернуть пополнение звёздами Telegram #{ $id }? { $user } заплатил { $stars } ⭐ { $date } UTC; зачислено { $amount } USDT. USDT спишутся с баланса, Telegram вернёт звёзды.
btn-refund-confirm = ↩ Да, вернуть #{ $id }
adm-refund-done = ↩ Пополнение #{ $id } возвращено: { $stars } ⭐ возвращены { $user }, с баланса списано { $amount } USDT.
adm-refund-dropped = Не возвращено: ничего не изменено.
adm-refund-short = ⚠ Telegram сам вернул пополнение звёздами #{ $id } ({ $user }, { $stars } ⭐), но оно было частично потрачено: списано { $taken } из { $credited } USDT; { $short } USDT потеряны.
rule-stars_refund = Это пополнение нельзя вернуть: ничего не изменено.
rule-stars_refund-not_stars = Это пополнение оплачено не звёздами Telegram: звёздами возвращается только пополнение звёздами.
rule-stars_refund-refunded = Это пополнение уже возвращено: ничего не изменено.
rule-stars_refund-not_paid = Это пополнение не было оплачено: возвращать нечего.
rule-stars_refund-changed = Это пополнение тем временем изменилось: посмотрите его ещё раз.
rule-stars_refund-under_way = Возврат этого пополнения уже запрошен у Telegram: посмотрите ещё раз через минуту.
rule-stars_refund-spent = Зачисленное уже потрачено: для возврата нужно { $needed } USDT, на балансе { $balance } USDT. Ничего не изменено.
rule-stars_refund-telegram_refused = Telegram отказал в возврате: зачисление снова на балансе, ничего не изменено.
rule-stars_refund-no_answer = Telegram не ответил: возврат идёт, зачисление уже списано. Отправьте /refund ещё раз, чтобы завершить.
