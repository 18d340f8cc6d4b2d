/**
 * Every button's callback data, each shape defined once: where a button is made (`pack`) and where its tap is
 * handled (`filter` for a composer, `unpack`/`parse` for the payload) read the same definition. The data is the
 * prefix and the fields joined by ":" ("order:42", "tq:okc:7"), exactly the strings buttons already sent to
 * users' chats carry: a shape here must not change, or those buttons stop working (test/bot/callback-data.test.ts
 * pins each one).
 */

/** Telegram's limit on a button's callback data, in bytes. */
export const CALLBACK_DATA_MAX_BYTES = 64;

/** One field of a callback's data: its pattern on the wire, and how its value is read and written. */
interface Field<T> {
  pattern: string;
  read(text: string): T;
  write(value: T): string;
}

/** A whole number (an id, an index, an amount), digits only. */
const whole = (pattern = "\\d+"): Field<number> => ({ pattern, read: Number, write: String });

/** One of a few words. */
const oneOf = <const T extends string>(...values: T[]): Field<T> => ({
  pattern: values.join("|"),
  read: (text) => text as T,
  write: (value) => value,
});

/** A yes or no, written as the first word for yes and the second for no. */
const flag = (yes: string, no: string): Field<boolean> => ({
  pattern: `${yes}|${no}`,
  read: (text) => text === yes,
  write: (value) => (value ? yes : no),
});

/** A word of letters, digits, "_" and "-" (a flow id, a token). */
const word: Field<string> = { pattern: "[\\w-]+", read: (text) => text, write: (text) => text };

type Fields = Record<string, Field<string> | Field<number> | Field<boolean>>;
type Payload<F> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

interface CallbackData<P> {
  /** The data of a button carrying `payload`. */
  pack(...payload: object extends P ? [] : [P]): string;
  /** The payload of `data` if it has this shape, else undefined. */
  parse(data: string | undefined): P | undefined;
  /** The payload of `data`, which `filter()` matched. */
  unpack(data: string): P;
  /** The data of this shape, for `composer.callbackQuery`; `fixed` narrows it to those values. */
  filter(fixed?: Partial<P>): RegExp;
}

function callbackData<F extends Fields = Record<never, never>>(prefix: string, fields: F = {} as F): CallbackData<Payload<F>> {
  type P = Payload<F>;
  const names = Object.keys(fields) as Array<keyof F & string>;
  const field = (name: keyof F) => fields[name] as unknown as Field<unknown>;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = (fixed: Partial<P>) =>
    new RegExp(
      `^${[escape(prefix), ...names.map((name) => (name in fixed ? escape(field(name).write(fixed[name])) : `(${field(name).pattern})`))].join(":")}$`,
    );
  const exact = pattern({});
  const parse = (data: string | undefined): P | undefined => {
    const match = data === undefined ? null : exact.exec(data);
    if (!match) return undefined;
    return Object.fromEntries(names.map((name, i) => [name, field(name).read(match[i + 1]!)])) as P;
  };
  return {
    pack(...[payload]: object extends P ? [] : [P]) {
      const data = [prefix, ...names.map((name) => field(name).write((payload as P)[name]))].join(":");
      // A value outside its field's pattern would make a button nobody can handle: caught where it is made.
      if (!exact.test(data)) throw new Error(`callback data "${data}" does not have the shape ${exact}`);
      if (Buffer.byteLength(data) > CALLBACK_DATA_MAX_BYTES) throw new Error(`callback data "${data}" is over ${CALLBACK_DATA_MAX_BYTES} bytes`);
      return data;
    },
    parse,
    unpack(data) {
      const payload = parse(data);
      if (payload === undefined) throw new Error(`callback data "${data}" does not have the shape ${exact}`);
      return payload;
    },
    filter: (fixed = {}) => (Object.keys(fixed).length ? pattern(fixed) : exact),
  };
}

// The main menu and the account.
/** A main-menu entry: a purchase flow by its id, or topup, balance, orders, statement, language. */
export const menuEntry = callbackData("menu", { entry: word });
/** "New API key": asks whether to rotate it. */
export const rotateKey = callbackData("key:rotate");
/** The answer to "rotate the key?" (yes: the old key stops at once). */
export const rotateKeyAnswer = callbackData("key:rotate", { yes: flag("yes", "no") });
/** "Rotate the key, the old one answering this many hours more" (KEY_GRACE_CHOICES_HOURS but 0). */
export const rotateKeyGrace = callbackData("key:grace", { hours: whole("1|24|168") });
/** Stop every replaced key still in its grace period now. */
export const endKeyGrace = callbackData("key:endgrace");
/** Turns the low-balance notice on or off. */
export const lowBalanceToggle = callbackData("lowbal:toggle");
/** An order's detail, from /orders. */
export const orderDetail = callbackData("order", { id: whole() });
/** A language picked in /language. */
export const chooseLanguage = callbackData("lang", { language: oneOf("en", "ru") });

// The statement.
/** The page of entries older than `before` (a ledger entry id). */
export const statementPage = callbackData("stmt", { before: whole("\\d{1,15}") });
/** A CSV export of a range (see EXPORT_RANGES in features/statement.ts). */
export const statementExport = callbackData("stmtcsv", { range: oneOf("month", "last-month", "30d") });

// The webhook endpoint.
export const webhookPing = callbackData("wh:ping");
export const webhookNewSecret = callbackData("wh:secret");
/** Stops the previous secret signing before its overlap ends. */
export const webhookRevokePrevious = callbackData("wh:revoke");
/** Asks whether to remove the endpoint. */
export const webhookRemove = callbackData("wh:remove");
export const webhookRemoveAnswer = callbackData("wh:remove", { yes: flag("yes", "no") });

// Top-ups.
/** An amount offered in the top-up flow, in whole USDT. */
export const topupAmount = callbackData("tp", { usdt: whole() });
/** "I paid by transfer" in the top-up flow. */
export const topupByTransfer = callbackData("tp:transfer");
/** Cancels the user's open invoice or pending transfer. */
export const topupCancel = callbackData("tp:cancel", { id: whole() });
/** "Pay with Telegram Stars" in the top-up flow. */
export const topupByStars = callbackData("tp:stars");
/** A Stars pack offered in the top-up flow, in Stars. */
export const starsPack = callbackData("tps", { stars: whole() });
/** An administrator's Approve of a transfer; `confirmed` once they confirmed a flagged one. */
export const topupApprove = callbackData("tq", { confirmed: flag("okc", "ok"), id: whole() });
/** An administrator's Reject of a transfer (the reason follows as /reject). */
export const topupReject = callbackData("tq:no", { id: whole() });

// Administrators.
/** Confirms (or drops) a large money move waiting under `token`. */
export const adminConfirm = callbackData("adm", { go: flag("ok", "no"), token: word });

/** An administrator's answer to "refund this Stars top-up?": the top-up's id rides on the button, so any instance can act. */
export const starsRefund = callbackData("rf", { go: flag("ok", "no"), id: whole() });

// Inside purchase flows (their buttons are read by the conversation waiting for them).
/** Leaves the flow under way. */
export const cancelFlow = callbackData("cancel");
/** The option at `index` of a question's buttons. */
export const pickOption = callbackData("o", { index: whole() });
/** The user themself as the recipient. */
export const recipientMyself = callbackData("me");
/** A number of stars offered as a button. */
export const starsPreset = callbackData("n", { stars: whole() });
/** A store top-up amount offered as a button, in whole USD. */
export const storeAmountPreset = callbackData("a", { usd: whole() });
/** A gift card quantity offered as a button. */
export const quantityPreset = callbackData("q", { quantity: whole() });
/** Sends the gift without a message. */
export const skipMessage = callbackData("skip");
/** Confirm on a purchase summary: `key` names the purchase, `round` the price shown (an older round's Confirm buys nothing). */
export const confirmPurchase = callbackData("ok", { key: word, round: whole() });
/** "Top up N Stars and buy" on a purchase short of balance: like Confirm, it names the purchase and the price's round. */
export const shortfallStars = callbackData("okst", { key: word, round: whole() });
