# Buttons
btn-cancel = ✖ Cancel
btn-confirm = ✅ Confirm
btn-myself = Myself (@{ $username })
btn-months = { $months } months · { $price } USDT
btn-skip = Skip
btn-show-name = Show my name
btn-hide-name = Hide my name
btn-rotate = 🔑 New key, the old one stops now
btn-rotate-grace = 🔑 New key, the old one works { $hours ->
    [1] 1 hour
    [24] 24 hours
   *[168] 7 days
} more
btn-end-grace = ⛔ Stop the previous key now
btn-card = { $name } · { $price } USDT · { $stock } left
btn-gift = { $emoji } { $stars }★ · { $price } USDT{ $limited ->
    [yes] {" "}(limited)
   *[no] {""}
}

# Menu and commands
menu-stars = ⭐ Stars
menu-premium = 💎 Premium
menu-store = 🎮 Store top-up
menu-games = 🕹 Game credit
menu-giftcards = 🎁 Gift cards
menu-gifts = 🎀 Gifts
menu-balance = 💰 Balance
menu-orders = 🧾 Orders
menu-key = 🔑 New API key
menu-language = 🌐 Language
menu-intro = What would you like to do?
cmd-start = Register and get your API key
cmd-stars = Buy Telegram stars
cmd-premium = Buy Telegram Premium
cmd-store = Top up a game-store wallet
cmd-games = Buy in-game credit
cmd-giftcards = Buy gift card codes
cmd-gifts = Send a Telegram gift
cmd-balance = Your USDT balance
cmd-orders = Your recent orders
cmd-language = Change the language
cmd-help = What this bot does
cmd-cancel = Leave the current step
cmd-forget = Remove what the bot keeps to send you gifts

help =
    I sell digital goods paid from your USDT balance: stars, Premium, store top-ups, game credit, gift cards and gifts.
    Your API key works over HTTP with the same balance: send it as X-API-Key or Authorization: Bearer.
    /balance · /orders · /statement · /language · /cancel leaves any step.
    Top up in Telegram Stars or USDT: /topup · /topups. Payments: /paysupport · /terms.
help-admin =
    You are an administrator here; a target is a Telegram id, an @username or a key's prefix (sj_…):
    { $commands }

# Keys
welcome-back = Welcome back, { $name }!
key-new = Welcome, { $name }! You are registered. Your API key:
key-rotated = Your new API key (the old one has stopped working):
key-usage = Send it with every request as the X-API-Key header, or as Authorization: Bearer <key>.
key-api = The API: { $api } · what it takes and answers (OpenAPI): { $docs }
key-once = ⚠ This is the only time it is shown: store it safely. A lost key cannot be recovered; get a new one here.
key-rotate-ask = A new key replaces your current one. The current one can stop working immediately, or keep working for a while so your systems switch over without downtime. Your balance, orders and rates stay with you. Continue?
key-rotated-grace = Your new API key. The old one ({ $prefix }…) keeps working until { $until } UTC, so your systems can switch over:
key-in-grace = Your previous key { $prefix }… still works until { $until } UTC.
key-grace-ended = Done: your previous keys stopped working; only the current key works now.

# Guards
start-first = Send /start first to register.
blocked = ⛔ Your account is blocked. Please contact support.
private-only = Please open a private chat with me: keys and codes are only sent there.
cancelled = Cancelled. Nothing was charged.
nothing-to-cancel = Nothing is under way to cancel: what was done stays done.
button-expired = This button is no longer active.
unknown = I did not understand that. Choose from the menu:
flow-text-please = Please answer with text or a button.
flow-confirm-or-cancel = Tap Confirm or Cancel above.

# Refusals: by reason when the core gives one, else by kind (src/bot/refusals.ts)
refused-invalid_input = That was not accepted: the offer may have changed meanwhile (price list, stock or recipient). Nothing was charged; please start again.
refused-unauthorized = Send /start first to register.
refused-key_blocked = ⛔ Your account is blocked. Please contact support.
refused-forbidden = ⛔ Only the service's administrators can do this, and you are not one.
refused-not_found = That was not found. Nothing was charged.
refused-insufficient_funds = Not enough balance: this needs { $needed } USDT and you have { $balance } USDT. Top up with /topup.
refused-rate_limited = Too many requests just now. Nothing was charged; please try again in a minute.
refused-upstream_failed = This service is temporarily unavailable. Nothing was charged; please try again later.
refused-unavailable = This service is temporarily unavailable. Nothing was charged; please try again later.
refusal = { $reason }; nothing was charged.
reason-login_not_supported = That is not a store login: send the account login, not an e-mail or a numeric profile link
reason-invalid_amount = The amount must be from { $min } to { $max } USD, with at most 2 decimals
reason-provider_error = The provider could not fulfil the order
reason-provider_balance = The provider is short of funds right now
reason-provider_unavailable = The provider is unavailable right now: please try again later
reason-order_not_found = The provider never received the order
reason-expired = The provider's order expired undelivered
reason-disabled = This product is switched off for now
reason-recipient_refuses = The recipient does not accept gifts: that is their choice, not a fault
reason-price_changed = The price has changed to { $needed } USDT
price-changed = ⚠ The price changed from { $was } to { $now } USDT since you saw it. Nothing was charged: please confirm the new price.

# Confirmation and outcome
confirm =
    { $what }
    Charge: { $charge } USDT
    Balance after: { $after } USDT
    Confirm?
order-completed = ✅ Done! Order #{ $id }, charged { $charged } USDT. Balance: { $balance } USDT.
order-refunded = ❌ Order #{ $id } failed; { $charged } USDT were refunded to your balance.
    { $reason }
order-processing = ⏳ Order #{ $id } is being processed. { $later }
later-delivery = I will message you when it is delivered or refunded.
later-store = Store top-ups can take a few minutes; I will message you when it completes or is refunded.
later-game = Credit usually lands in 1 to 2 minutes; I will message you when it does, or when it is refunded.
later-giftcard = The codes will arrive in this private chat in about half a minute; you can also find them in /orders.

# Stars and Premium
ask-recipient = Who is it for? Send a @username.
bad-username = That is not a username: 3 to 32 letters, digits or underscores, like @alice.
recipient-not-found = I cannot send to @{ $username }. Check the spelling; if it is right, ask them to open this bot and send /start, then send the username again.
ask-stars = Recipient: { $name } (@{ $username }). How many stars? Tap a preset or send a number from { $min } to { $max }.
bad-stars = Send a whole number of stars from { $min } to { $max }.
what-stars = { $amount } stars for @{ $username }
premium-already = Note: @{ $username } already has Premium; a purchase adds to it.
ask-months = Recipient: { $name } (@{ $username }). For how long?
bad-months = Choose 3, 6 or 12 months.
what-premium = Premium for { $months } months for @{ $username }

# Store
ask-store-login = Send the store account login: the name you sign in with, not the profile name others see. A link like …/id/yourname works too.
bad-login-email = An e-mail address is not accepted: send the account login instead.
bad-login-numeric = A numeric profile link (…/profiles/123…) is not accepted: send the account login, or a …/id/name link.
bad-login = That does not look like a login: 3 to 64 letters, digits, dots, dashes or underscores.
ask-store-amount = Account { $login }. How much to add? Tap an amount or send one from { $min } to { $max } (at most 2 decimals).
bad-store-amount = Send an amount from { $min } to { $max } with at most 2 decimals, like 10 or 12.50.
store-quote = Store top-up for { $login }
    Credited to the wallet: { $amount }
    Provider fee: { $fee } USDT
    Service markup ({ $percent }%): { $markup } USDT
    Total: { $total } USDT
# Games
ask-game = Which game?
game-notes = Note: { $notes }
ask-server = Which server is the account on?
ask-server-id = Send the server (zone) ID, digits only.
ask-player-id = Send the player ID for { $game }.
bad-player-id = That player ID was not accepted. Check it in the game and send it again.
ask-denomination = Account: { $name } (ID { $id }). Credit sent to a wrong player cannot be reversed. Choose the top-up (current prices), or say it is the wrong account:
what-game = { $denomination } in { $game } for { $name } (ID { $id })
# Gift cards
ask-brand =
    Which gift card? A code works only for an account of the stated region:
    { $brands }
no-stock = Nothing is in stock right now. Please try again later.
ask-card =
    { $brand }: { $notes }
    Choose the denomination:
ask-quantity = How many codes? From { $min } to { $max }.
bad-quantity = Send a whole number from { $min } to { $max }.
what-giftcard = { $quantity } × { $name } { $brand } gift card
giftcard-cards = { $quantity } × { $brand } { $name }
giftcard-cards-unnamed = { $quantity } × { $name } gift card

# Gifts
ask-gift = Which gift?
ask-gift-message = For { $name } (@{ $username }). Add a message to the gift (up to { $max } characters), or tap Skip.
    { gift-text-rules }
ask-gift-message-labelled = For { $name } (@{ $username }). Add a message to the gift, or tap Skip. The bot sends the gift, so your message starts with “{ $label }”: the recipient sees it is from a customer, not from the shop. Up to { $max } characters.
    { gift-text-rules }
gift-text-rules = Not allowed: links, web addresses and @mentions; hidden, look-alike or mixed-alphabet letters; line breaks; words of the shop's or Telegram's notices (support, admin, account, balance, verify, password, wallet…).
bad-gift-message = That message cannot go with the gift: { $why }
    Send another, or tap Skip.
ask-gift-hide = Show your name on the recipient's public profile? (The recipient always sees who sent it.)
what-gift = Gift { $emoji } ({ $stars }★) to { $name } (@{ $username }){ $hidden ->
        [yes] , name hidden
       *[no] {""}
    }, message: { $message }

# Balance and orders
balance =
    Balance: { $usdt } USDT
    ≈ { $uzs } UZS · ≈ { $ton } TON
ton-unavailable = n/a
orders-none = No orders yet.
orders-title = Your recent orders (tap for details):
order-unknown = Order not found.
order-line = #{ $id } { $product } → { $recipient } · { $charged } USDT · { $status }
order-line-short = #{ $id } { $product } → { $recipient } · { $charged } USDT
order-created = Placed { $at } UTC
order-failed-detail = { $reason }{ $refunded ->
    [yes] {" "}(refunded)
   *[no] {""}
}
codes =
    Your codes (keep them safe; they cannot be returned):
    { $codes }
product-stars = stars
product-premium = Premium
product-store = store top-up
product-game = game credit
product-giftcard = gift cards
product-gift = gift
status-processing = processing
status-completed = completed
status-failed = refunded

# Language and notifications
language-ask = Choose your language:
language-set = Done: I will speak English.
credited = 💰 Your balance was topped up by { $amount } USDT. Balance: { $balance } USDT.
notify-completed = ✅ Completed: { $line }
notify-refunded = ❌ Failed and refunded: { $line }. { $charged } USDT are back on your balance.
    { $reason }

# Added for the bot as people use it
btn-keep-key = Keep my current key
btn-wrong-account = ↩ Wrong account: enter the ID again
btn-card-range = { $name } · { $price } USDT · { $min }–{ $max } per order
support = Need help? Write to { $contact }.
pick-one = Please choose one of the buttons (or type its name exactly).
flow-balance = Your balance: { $balance } USDT.
flow-owner-limits = Owner key: you spend the service wallet, up to { $today } USDT today (per order at most: { $perOrder }).
nothing-affordable = Not enough to buy here: the cheapest choice costs { $cheapest } USDT and you can spend { $balance } USDT. Top up with /topup.
key-kept = Kept: your current key still works.
provider-note = The provider says: «{ $note }»
ask-recipient-self = Who is it for? Send a @username, or tap Myself.
bad-server-id = The server (zone) ID is digits only, up to 6 of them. Send it again.
bad-player-id-format = A player ID is 1 to 64 letters, digits, _ or -. Check it in the game and send it again.
what-game-server = { $denomination } in { $game } for { $name } (ID { $id }, server { $server })
gift-refuses-choose-another = @{ $username } does not accept gifts: that is their choice, and nothing was charged. Send another @username.
debited = 💸 An administrator took { $amount } USDT from your balance. Balance: { $balance } USDT.
you-blocked = ⛔ An administrator blocked your account: your key answers 403 and purchases are off.
you-unblocked = ✅ Your account is unblocked: your key works again.
adm-credited = { $target }: +{ $amount } USDT, balance { $balance } USDT
adm-debited = { $target }: -{ $amount } USDT, balance { $balance } USDT
adm-blocked = { $target }: blocked (the user was told)
adm-unblocked = { $target }: unblocked (the user was told)
adm-markup = { $target }: { $product } markup { $percent }
adm-owner = { $target }: owner key, daily limit { $daily }, per-order limit { $perOrder }
adm-wallet = service wallet: { $amount } USDT
adm-user = user { $id }{ $username } ({ $kind }{ $blocked ->
        [yes] , BLOCKED
       *[no] {""}
    })
adm-user-balance = balance { $balance } USDT
adm-user-wallet = balance { $balance } USDT (service wallet)
adm-user-key = key { $prefix }…
adm-user-markups = markups: { $rates }
adm-default = default
kind-standard = standard
kind-owner = owner key
kind-wallet = service wallet
adm-none = none
adm-stats-title = Today (UTC):
adm-stats-line = { $product }: { $orders ->
        [one] { $orders } order
       *[other] { $orders } orders
    } { $status ->
        [completed] completed
        [failed] refunded
       *[processing] processing
    }, { $volume } USDT
adm-stats-none = no orders yet
adm-stats-refunds = refunds: { $orders ->
        [one] { $orders } order
       *[other] { $orders } orders
    }, { $volume } USDT
adm-stats-30d = last 30 days, delivered: { $list }
adm-stats-topups = top-ups (all time): { $list }
adm-stats-upstreams = upstreams: { $list }
adm-stats-upstream = { $name } ({ $backend }) { $ready ->
        [yes] ready
       *[no] DOWN
    }
adm-stats-topup = { $method } { $status }: { $count }
adm-stats-topup-credited = { $method } { $status }: { $count } ({ $amount } USDT)
upstream-stars = stars
upstream-premium = Premium
upstream-rates = rates
upstream-store = store
upstream-games = games
upstream-giftcards = gift cards
upstream-gifts = gifts
adm-usage = usage: { $usage }
adm-need-target = a target is needed
adm-no-user = No user { $target }
adm-bad-amount = the amount is a USDT number above 0, at most { $max }, with at most 6 decimals
adm-bad-product = the product is one of { $products }
adm-bad-percent = the percent is a number from 0 to 100 such as 4 or 2.5, or 'default'
adm-confirm-credit = Credit { $amount } USDT to { $target }? That is above the confirmation threshold.
adm-confirm-debit = Debit { $amount } USDT from { $target }? That is above the confirmation threshold.
adm-confirm-wallet = Set the service wallet to { $amount } USDT? That is above the confirmation threshold.
adm-expired = This confirmation has expired or was used already: send the command again.
adm-dropped = Dropped: nothing changed.
adm-insufficient = Insufficient balance: the account holds { $balance } USDT.
rule-no_account = No account for that user: they must send /start first.
rule-ambiguous_target = That could be any of: { $candidates }. Nothing changed: name one by its Telegram id.
rule-owner_topup = This is an owner key: it spends the service wallet and has no balance of its own to top up.
rule-owner_key = That is an owner key: it spends the service wallet and has no balance of its own to credit or debit. Change the wallet with /wallet.
rule-amount_bound = The amount must be more than 0 and at most { $max } USDT.
rule-balance_bound = A balance is at most { $max } USDT: this would take it past that.
rule-holds_balance = That account still holds a balance: debit it before making it an owner key.
rule-markup_range = The markup must be a percentage from 0 to 100.
rule-confirm_needed = Approving this needs a confirmation first: nothing changed.
rule-move_unconfirmed = That move is above the confirmation threshold ({ $max } USDT): it needs a confirmation first. Nothing changed.
rule-self_block = An administrator cannot block their own account: nothing changed.

# Webhooks
cmd-webhook = Signed notifications to your server
btn-webhook-ping = 📡 Send a test
btn-webhook-secret = 🔐 New secret
btn-webhook-revoke = 🚫 Stop the old secret now
btn-webhook-remove = 🗑 Remove
btn-webhook-remove-yes = Yes, remove it
btn-webhook-keep = Keep it
webhook-none = No webhook is set. Send /webhook https://your.server/path and every finished order and balance change is posted there, signed.
webhook-status =
    Webhook: { $url }
    Enabled: { $enabled ->
        [yes] yes
       *[no] no
    } · waiting to be delivered: { $pending }
webhook-disabled-why = Disabled after a day of failed deliveries: { $reason }. Send /webhook with the URL again to resume.
webhook-backing-off = Failing since { $since } UTC: backed off, tried next at { $next } UTC with one event.
webhook-dropped = { $count } events were not queued because { $limit } were already waiting (last at { $at } UTC): check /orders for what you missed.
webhook-last = Last attempt { $at } UTC ({ $type }): { $result }
webhook-set = Webhook set to { $url }. Its signing secret:
webhook-changed = Webhook changed to { $url }. The signing secret stays the same; waiting events go there now.
webhook-secret-new = A new signing secret. The previous one also signs until { $until } UTC, so you can switch without missing anything:
webhook-revoked = The old secret no longer signs: only the current one does.
webhook-secret-once = ⚠ Shown only this once. Check the X-Webhook-Signature header with it (see the API documentation).
webhook-bad-url = That address cannot receive webhooks: it must be an https:// URL of a public server.
webhook-ping-ok = ✅ Test event delivered: HTTP { $status } in { $ms } ms.
webhook-ping-failed = ❌ Test event not delivered: { $result }.
webhook-remove-ask = Remove the webhook? Events not yet delivered are dropped.
webhook-kept = Kept: the webhook stays as it is.
webhook-removed = Webhook removed: nothing more is posted.
webhook-disabled = ⚠ Your webhook { $url } is disabled: { $reason }. Fix the server, then send /webhook with the URL again to resume; undelivered events are then sent.
# Binding quotes (POST /v1/quotes, quote_id): the refusals of a purchase naming a quote
reason-quote_not_found = That quote does not exist for this key
reason-quote_expired = That quote has expired: ask for a new one
reason-quote_used = That quote has already been used
reason-quote_mismatch = That quote is for another purchase
reason-database_unavailable = The service cannot reach its database right now: please try again in a minute. A purchase that was already charged is completed or refunded by itself.
# Ledger statement (/statement, CSV export)
cmd-statement = Balance history and CSV export
menu-statement = 📒 Statement
statement-title = 📒 Balance history, newest first. Balance now: { $balance } USDT
statement-title-owner = 📒 Charges and refunds of your orders on the service wallet, newest first. Net total: { $total } USDT
statement-older-page = (older entries)
statement-none = No balance changes yet.
statement-order = order #{ $id }
statement-note = “{ $note }”
statement-older = ◀ Older
statement-export-month = 📄 CSV: this month
statement-export-last-month = 📄 CSV: last month
statement-export-30d = 📄 CSV: last 30 days
statement-export-caption = Statement { $from } – { $to } (UTC): { $count } entries. Opening balance { $opening } USDT, closing { $closing } USDT.
statement-export-caption-owner = Your orders on the service wallet { $from } – { $to } (UTC): { $count } entries. Net total before { $opening } USDT, after { $closing } USDT.
ledger-kind-credit = credit
ledger-kind-debit = debit
ledger-kind-charge = charge
ledger-kind-refund = refund
ledger-kind-adjustment = adjustment
ledger-kind-topup = top-up
ledger-kind-reversal = top-up refunded

# Operations: administrator alerts and the low-balance notice
alert-still = Still:
alert-suppressed = ({ $count ->
        [one] { $count } more alert was
       *[other] { $count } more alerts were
    } held back by the hourly limit: see the service log.)
alert-provider-firing = 🔴 Provider { $provider } is down: its health check fails. Its products answer 503 or wait.
alert-provider-resolved = 🟢 Provider { $provider } is back.
alert-refunds-firing = 🔴 { $count ->
        [one] { $count } refund
       *[other] { $count } refunds
    } in the last { $minutes } minutes (alert at { $threshold }).
alert-refunds-resolved = 🟢 Refunds are back under { $threshold } in { $minutes } minutes.
alert-wallet-firing = 🔴 The service wallet holds { $balance_usdt } USDT, under { $threshold_usdt } USDT: owner keys will soon be refused.
alert-wallet-resolved = 🟢 The service wallet is back at { $balance_usdt } USDT.
alert-stuck-firing = 🔴 { $count ->
        [one] { $count } order is processing past its provider's time:
       *[other] { $count } orders are processing past their provider's time; the oldest is
    } #{ $order_id } ({ $product }) since { $since }.
alert-stuck-resolved = 🟢 No order is stuck any more.
alert-held-firing = 🟠 { $count ->
        [one] { $count } order is held: the bot's Star transactions cannot tell whether it was delivered:
       *[other] { $count } orders are held: the bot's Star transactions cannot tell which of them were delivered. The oldest is
    } #{ $order_id } ({ $product }) since { $since }. Decide each: npm run admin -- held, then resolve <order> delivered|refund.
alert-held-resolved = 🟢 No order is held any more.
alert-ledger-firing = 🚨 The books do not hold: { $accounts } balances differ from the sum of their entries (first: account { $account_id }). Investigate before crediting anyone.
alert-ledger-resolved = 🟢 The books hold again.
alert-cryptopay-firing = 🔴 Crypto Pay does not answer: top-ups by invoice cannot be made, and paid ones wait (they are credited once it answers).
alert-cryptopay-resolved = 🟢 Crypto Pay answers again.
alert-funds-firing = 🔴 { $source ->
    [stars] The bot's Star balance is { $amount } stars, under { $threshold }: gifts and Premium it cannot pay for are refused (503) until you add Stars to the bot (docs/go-live.md).
   *[other] The Reloadly account holds { $amount } { $unit }, under { $threshold }: gift cards will fail once it runs out; fund the account in Reloadly's dashboard.
  }
alert-funds-resolved = 🟢 { $source ->
    [stars] The bot's Star balance is back at { $amount } stars.
   *[other] The Reloadly account is back at { $amount } { $unit }.
  }
alert-invoices-firing = 🟠 { $unpaid ->
        [one] { $unpaid } top-up invoice was
       *[other] { $unpaid } top-up invoices were
    } left unpaid (expired or cancelled) in the last { $hours } hours (alert at { $threshold }): check the pay link works, or who is making them.
alert-anomalies-firing = 🔴 Crypto Pay reported { $count ->
        [one] { $count } payment in the last { $hours } hours that matches
       *[other] { $count } payments in the last { $hours } hours that match
    } no top-up as it was made (latest: invoice { $invoice_id }, { $anomaly }). Nothing was credited for them: check the logs ("matches no top-up"), compare with the invoice in @CryptoBot, and rotate the Crypto Pay token if an update was signed but false.
alert-anomalies-resolved = 🟢 No payment anomaly in the last 24 hours.
alert-invoices-resolved = 🟢 Unpaid invoices are back under { $threshold } a day.
alert-database-firing = 🚨 The database { $fault ->
    [full] has no room left (its disk is full)
    [timeout] does not answer in time
    [busy] stays locked past its wait
    [io] cannot read or write its files
   *[unreachable] cannot be reached
} on this instance: { $count } statements failed since the last check (last: { $cause }). Requests that need it answer 503; nothing is half-written.
alert-database-resolved = 🟢 The database answers again on this instance.
alert-starbook-firing = 🚨 The bot's Star book differs from Telegram's: { $differences ->
        [one] { $differences } difference
       *[other] { $differences } differences
    }; Telegram's balance { $balance }, the book's { $book }. First: { $first }. See npm run admin -- stars reconcile.
alert-starbook-resolved = 🟢 The bot's Star book matches Telegram's transactions and balance again.
alert-unmatched-firing = 🔴 { $count ->
        [one] { $count } Stars payment in the last { $hours } hours matched no top-up and credited nobody
       *[other] { $count } Stars payments in the last { $hours } hours matched no top-up and credited nobody
    } (latest charge { $latest }): look the payer up and refund them (npm run admin -- stars).
alert-unmatched-resolved = 🟢 No unmatched Stars payment in the last 24 hours.
alert-shortrefunds-firing = 🔴 Telegram refunded { $count ->
        [one] { $count } Stars top-up
       *[other] { $count } Stars top-ups
    } in the last { $hours } hours whose credit was already spent: { $short_usdt } USDT could not be taken back (latest: top-up { $topup_id }).
alert-shortrefunds-resolved = 🟢 No short Stars refund in the last 24 hours.
low-balance = ⚠ Your balance is { $balance } USDT, under { $threshold } USDT. Top it up to keep buying. (Turn this notice off under /balance.)
btn-low-balance-on = 🔔 Low-balance notice: on
btn-low-balance-off = 🔕 Low-balance notice: off
low-balance-set-on = 🔔 You will be told when a purchase takes your balance under { $threshold } USDT.
low-balance-set-off = 🔕 Low-balance notices are off. Turn them on again under /balance.

# Top-ups
menu-shop = 🛍 Open the shop
menu-shop-button = Shop
menu-topup = 💳 Top up
cmd-topup = Top up the balance (crypto invoice or transfer)
cmd-topups = Your top-ups, and cancel an open one
topup-ask = How much do you want to add, in USDT ({ $min } to { $max })? Tap an amount or type one; you get a Crypto Pay invoice to pay in @CryptoBot.
topup-transfer-amount = How much did you transfer, in USDT ({ $min } to { $max })?
topup-bad-amount = Send an amount in USDT from { $min } to { $max }, such as 25 or 12.5.
topup-off = Top-ups are not offered here: ask the support contact.
btn-topup-transfer = 🏦 I paid by transfer
topup-invoice = Invoice for { $amount } USDT: pay it by { $until } UTC. Your balance is credited as soon as it is paid, and you are told here.
btn-topup-pay = 💳 Pay { $amount } USDT
btn-topup-cancel = Cancel this invoice
topup-transfer-reference = The transaction id, or a note an administrator can check the payment by:
topup-transfer-sent = Request #{ $id } for { $amount } USDT sent to the administrators: you are told here when they decide. /topups shows it (and cancels it).
topups-none = No top-ups yet. /topup adds to your balance.
topups-line = #{ $id } { $method } { $amount } USDT: { $status }
btn-topup-cancel-one = Cancel #{ $id }
topup-method-invoice = invoice
topup-method-transfer = transfer
topup-status-creating = being made
topup-status-active = waiting for payment
topup-status-pending = waiting for an administrator
topup-status-credited = credited
topup-status-expired = expired
topup-status-cancelled = cancelled
topup-status-rejected = rejected
topup-status-failed = failed, nothing credited
topup-cancelled = Top-up #{ $id } cancelled: nothing was charged.
topup-credited = ✅ Top-up credited: +{ $amount } USDT. Balance: { $balance } USDT.
topup-rejected = Your transfer top-up #{ $id } of { $amount } USDT was rejected: { $reason }
topup-admin-ask = 💳 Transfer top-up #{ $id }: { $user } says they paid { $amount } USDT.
    Balance now: { $balance } USDT
topup-admin-reference = Reference, as the user typed it:
topup-admin-reused = ⚠ The same reference is on transfer { $others }: approving this one needs a confirmation.
topup-admin-above = ⚠ Above { $threshold } USDT: approving needs a confirmation.
topup-admin-confirm = Approve transfer top-up #{ $id } ({ $user }, { $amount } USDT)?
topup-admin-cancelled = Transfer top-up #{ $id } ({ $user }, { $amount } USDT) was cancelled by the user: nothing to decide.
btn-approve-confirm = ✅ Yes, approve #{ $id }
topup-cancel-paid = Top-up #{ $id } was already paid, so it cannot be cancelled: it is credited to your balance.
topup-admin-approved = ✅ Transfer top-up #{ $id } ({ $user }, { $amount } USDT) approved by { $by }.
topup-admin-rejected = ❌ Transfer top-up #{ $id } ({ $user }, { $amount } USDT) rejected by { $by }: { $reason }
topup-admin-closed = Transfer top-up #{ $id } ({ $user }, { $amount } USDT): { $status }.
btn-approve = ✅ Approve
btn-reject = ❌ Reject
topup-reject-ask = Reject transfer top-up #{ $id } ({ $user }, { $amount } USDT): send the reason the user is told, or tap Cancel.
topup-reject-text-please = Send the reason as text, or tap Cancel: nothing is decided yet.
topup-rejected-done = Top-up #{ $id } rejected; the user was told why.
topup-decided-already = Top-up #{ $id } was decided already: nothing changed.

# Contacts: what the bot keeps so gifts and Premium can reach a user
forget-done = Removed: what I kept so that gifts and Premium can reach you — your Telegram id { $id }, your username { $username }, your name and Premium status as Telegram showed them. If you write to me again I keep your id and username again (that is how a gift finds you); block the bot to stay out. An account you have here, its balance and orders stay: they are the shop's books.
forget-nothing = I keep nothing about you for gifts and Premium: nothing to remove.

# Stars in: top-ups paid in Telegram Stars, a short balance topped up in one step, refunds, /paysupport and /terms
btn-topup-stars = ⭐ Pay with Telegram Stars
stars-topup-ask = Pay in Telegram Stars: each ⭐ adds { $rate } USDT to your balance. Tap a pack or send a number of Stars from { $min } to { $max }.
btn-stars-pack = { $stars } ⭐ → { $amount } USDT
stars-topup-bad = Send a whole number of Stars from { $min } to { $max }.
stars-invoice-title = Top-up { $amount } USDT
stars-invoice-description = { $stars } Telegram Stars add { $amount } USDT to your balance in this bot (top-up #{ $id }). Terms: /terms.
stars-invoice-label = { $amount } USDT
stars-invoice-failed = Telegram did not take the invoice just now: nothing was charged. Please try again in a minute.
btn-stars-pay = Pay { $stars } ⭐
topup-method-stars = Telegram Stars
topup-status-refunding = being refunded
topup-status-refunded = refunded
topup-credited-stars = ✅ Paid in Telegram Stars: { $stars } ⭐ → +{ $amount } USDT. Balance: { $balance } USDT.
topup-refunded = ↩ Your Telegram Stars top-up #{ $id } was refunded: { $stars } ⭐ went back to you and { $amount } USDT left your balance.
shortfall-offer =
    { $what }
    Charge: { $charge } USDT. Your balance: { $balance } USDT, { $short } USDT short.
    Pay { $stars } ⭐ in Telegram Stars: { $credit } USDT is added to your balance and the order is placed at once.
btn-shortfall = ⭐ Top up { $stars } ⭐ and buy
shortfall-waiting = Waiting for your payment: tap Pay on the invoice above, or Cancel.
shortfall-credit-kept = Your Stars top-up stays on your balance.
checkout-off = Payments in Telegram Stars are not taken here now.
checkout-currency = This invoice is paid in Telegram Stars only.
checkout-unknown = This invoice is not one of ours any more: start a new top-up with /topup.
checkout-closed = This top-up is closed (paid, expired or cancelled): start a new one with /topup.
checkout-amount = The amount differs from the top-up's: start a new one with /topup.
checkout-blocked = This account is blocked: ask support.
checkout-daily = Stars top-ups are limited to { $max } USDT a day: try a smaller amount or later.
checkout-unchecked = This payment could not be checked just now: nothing was taken; try again in a minute.
cmd-paysupport = Help with a payment in Stars
cmd-terms = Terms of payment
paysupport = Help with a payment: write to { $contact }, naming your Telegram id { $id } and the top-up number from /topups. A Stars top-up whose credit you have not spent can be refunded.
paysupport-no-contact = Help with a payment: no support contact is set up here yet. Your Telegram id { $id } and the top-up number from /topups identify a payment. A Stars top-up whose credit you have not spent can be refunded by an administrator.
terms =
    Terms of payment. This bot sells digital goods paid from a prepaid USDT balance. A top-up in Telegram Stars adds the USDT shown before you pay, as soon as Telegram confirms the payment. Goods delivered are not refunded; an order that fails is refunded to your balance at once.
    An administrator can refund a Stars top-up whose credit is unspent: the Stars go back to you and the USDT leaves your balance. Help with a payment: /paysupport.
adm-refund-bad-id = the top-up id is a whole number, as /topups and the desk show it
adm-refund-ask = Refund Telegram Stars top-up #{ $id }? { $user } paid { $stars } ⭐ on { $date } UTC; { $amount } USDT were credited. The USDT leave their balance and Telegram gives the Stars back.
btn-refund-confirm = ↩ Yes, refund #{ $id }
adm-refund-done = ↩ Top-up #{ $id } refunded: { $stars } ⭐ given back to { $user }, { $amount } USDT taken from their balance.
adm-refund-dropped = Not refunded: nothing changed.
adm-refund-short = ⚠ Telegram refunded Stars top-up #{ $id } ({ $user }, { $stars } ⭐) on its own, but its credit was partly spent: { $taken } of { $credited } USDT were taken back; { $short } USDT are lost.
rule-stars_refund = That top-up cannot be refunded: nothing changed.
rule-stars_refund-not_stars = That top-up was not paid in Telegram Stars: only a Stars top-up is refunded in Stars.
rule-stars_refund-refunded = That top-up was refunded already: nothing changed.
rule-stars_refund-not_paid = That top-up was never paid: there is nothing to refund.
rule-stars_refund-changed = That top-up changed meanwhile: look at it again.
rule-stars_refund-under_way = Another refund of that top-up is being asked of Telegram right now: look at it again in a minute.
rule-stars_refund-spent = Its credit is already spent: the refund needs { $needed } USDT and the balance is { $balance } USDT. Nothing changed.
rule-stars_refund-telegram_refused = Telegram refused the refund: the credit is back on the balance, nothing changed.
rule-stars_refund-no_answer = Telegram did not answer: the refund is under way and the credit is taken back. Send /refund again to finish it.
