// Money on screen: the exact amount, as the bot and the API state it. The API sends USDT as JSON numbers exact to
// the micro (6 decimals); arithmetic on them is done in whole micro-USDT, never in floats, and every figure shows
// up to 6 decimals with trailing zeros trimmed to at least 2 (1.845, 8.155, 12.50). Rounding to cents showed
// "Confirm 1.84 USDT" for a charge of 1.845.

const MICRO_PER_USDT = 1_000_000;

/** A JSON amount (exact to the micro) as whole micro-USDT; Math.round absorbs the binary error (0.1 * 1e6). */
export const toMicro = (amount: number): number => Math.round(amount * MICRO_PER_USDT);

/** Whole micro-USDT as a JSON amount again (exact: a micro count divides to its 6 decimals). */
export const fromMicro = (micro: number): number => micro / MICRO_PER_USDT;

/**
 * The page's language for figures: one at a time (the user's), set by the app as it renders, so every amount on
 * screen reads as that locale writes numbers (1,234.50 in English; 1 234,50 in Russian) without threading the
 * language through every call.
 */
let locale = "en";
/** The locale's number format and its decimal mark, made once per language (every amount on screen uses them). */
let numbers = formatFor(locale);

function formatFor(language: string) {
  const format = new Intl.NumberFormat(language);
  return { format, mark: format.formatToParts(0.5).find((part) => part.type === "decimal")?.value ?? "." };
}

export function setNumberLocale(language: string): void {
  if (language === locale) return;
  locale = language;
  numbers = formatFor(language);
}

/** Whole micro-USDT as the exact decimal in the page's locale: "1.845", "12.50", "1,000.50"; "1 000,50" in Russian. */
export function exact(micro: number): string {
  const sign = micro < 0 ? "-" : "";
  const magnitude = Math.abs(Math.round(micro));
  const whole = Math.floor(magnitude / MICRO_PER_USDT);
  const fraction = String(magnitude % MICRO_PER_USDT)
    .padStart(6, "0")
    .replace(/0{1,4}$/, "");
  // The whole part grouped as a BigInt: exact at any size.
  return `${sign}${numbers.format.format(BigInt(whole))}${numbers.mark}${fraction}`;
}

/** A JSON amount, exactly: "1.845". */
export const amount = (value: number): string => exact(toMicro(value));

/** A JSON USDT amount, exactly, with its currency: "1.845 USDT" (an <Amount> keeps it on one line). */
export const usdt = (value: number): string => `${amount(value)} USDT`;

/** A count (stars, a limit) in the page's locale: "10,000"; "10 000" in Russian. */
export const count = (value: number): string => numbers.format.format(value);

/** An approximate figure (an equivalent in TON) to `digits` decimals in the page's locale: "≈ 4.49". */
export const approx = (value: number, digits: number): string =>
  new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);

/** The sum of JSON amounts, added in micro (0.1 + 0.2 is 0.3 here). */
export const sum = (values: number[]): number => fromMicro(values.reduce((total, value) => total + toMicro(value), 0));

/** A price split over `parts` (Premium's price a month), to the cent, unbreakable on screen: "≈ 4.00 USDT". */
export const share = (value: number, parts: number): string => `≈\u00a0${exact(Math.round(toMicro(value) / parts / 10_000) * 10_000)}\u00a0USDT`;
