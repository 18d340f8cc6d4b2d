/**
 * Money inside the service is an integer count of micro-USDT (10^-6 USDT), held in a JS number branded `Micro`.
 * Providers price in USD (the store's nominal and fee, game and gift card costs): those amounts are micro-USD,
 * branded `MicroUsd`, and become a charge in USDT only through `usdAsUsdt`, at par.
 * Every amount that enters and every balance is bounded by MAX_MICRO (10^9 USDT), far below 2^53 micro
 * (about 9 * 10^9 USDT), so sums of two stay exact; the schema's CHECK says the same of balances.
 * Conversion to a JSON number happens only at the edges, through `toUsdt`.
 *
 * The one rounding rule: half away from zero, applied by `roundMicro` to a number of decimals.
 */
declare const microBrand: unique symbol;
/** A whole count of micro-USDT; made only by `micro` (checked), so a float, a USDT amount or a micro-USD one cannot pass for one. */
export type Micro = number & { readonly [microBrand]: true };

const MICRO_PER_USDT = 1_000_000;

declare const microUsdBrand: unique symbol;
/** A whole count of micro-USD (10^-6 USD): a provider's price or a store nominal, not yet a charge. */
export type MicroUsd = number & { readonly [microUsdBrand]: true };

/** The one way a number becomes `MicroUsd`: checked like `micro`. */
export function microUsd(value: number): MicroUsd {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a whole micro-USD amount: ${value}`);
  return value as MicroUsd;
}

/** A USD price charged in USDT: at par, one USDT for one dollar (the store's total, a catalogue price). */
export const usdAsUsdt = (amount: MicroUsd): Micro => micro(amount);

/** An amount in either currency: the arithmetic below keeps the one it was given. */
type Amount = Micro | MicroUsd;

/** The most any amount or balance may be: 1,000,000,000 USDT. */
export const MAX_USDT = 1_000_000_000;
export const MAX_MICRO = (MAX_USDT * MICRO_PER_USDT) as Micro;

/** Whether a micro amount is a whole number within 0..MAX_MICRO. */
export const withinBound = (micro: number) => Number.isSafeInteger(micro) && micro >= 0 && micro <= MAX_MICRO;

/** The one way a number becomes `Micro`: checked to be a whole number JavaScript holds exactly. */
export function micro(value: number): Micro {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a whole micro-USDT amount: ${value}`);
  return value as Micro;
}

/** numerator / denominator (denominator > 0) rounded to an integer, half away from zero: the service's one rounding rule. */
export function divideRounded(numerator: number, denominator: number): number {
  micro(numerator);
  const magnitude = Math.abs(numerator);
  const whole = Math.floor(magnitude / denominator);
  const rounded = (magnitude - whole * denominator) * 2 >= denominator ? whole + 1 : whole;
  return numerator < 0 ? -rounded : rounded;
}

/** Rounds a micro amount to `decimals` decimals of its currency (0..6). */
export function roundMicro<A extends Amount>(amount: A, decimals: number): A {
  const unit = 10 ** (6 - decimals);
  return micro(divideRounded(amount, unit) * unit) as number as A;
}

/** A plain decimal ("12.5") with at most `decimals` decimals, scaled to an integer of 10^-decimals units; null when it is not one. */
function parseScaled(text: string, decimals: number, wholeDigits: number): number | null {
  const match = new RegExp(`^(\\d{1,${wholeDigits}})(?:\\.(\\d{1,${decimals}}))?$`).exec(text.trim());
  if (!match) return null;
  const [, whole, fraction = ""] = match;
  return Number(whole) * 10 ** decimals + Number(fraction.padEnd(decimals, "0"));
}

/** A decimal USDT string such as "12.5" or "0.000001" to micro; null when it is not one (more than 6 decimals, sign, junk, above MAX_USDT). */
export function parseUsdt(text: string): Micro | null {
  const parsed = parseScaled(text, 6, 10);
  return parsed !== null && parsed <= MAX_MICRO ? micro(parsed) : null;
}

/** A USD amount with at most 2 decimals ("10", "12.5") to micro-USD; null when it is not one. */
export function parseUsd(text: string): MicroUsd | null {
  const cents = parseScaled(text, 2, 9);
  return cents === null ? null : microUsd(cents * 10_000);
}

/** A percentage from 0 to 100 with at most 2 decimals ("4", "2.5") to basis points; null when it is not one. */
export function parseBasisPoints(text: string): number | null {
  const basisPoints = parseScaled(text, 2, 3);
  return basisPoints === null || basisPoints > 10_000 ? null : basisPoints;
}

/**
 * A JSON number of USDT to micro. Only for values already validated to carry at most 6 decimals;
 * Math.round absorbs the binary representation error (0.1 * 1e6 = 100000.00000000001).
 */
export function fromUsdt(value: number): Micro {
  return micro(Math.round(value * MICRO_PER_USDT));
}

/** A JSON number of USD to micro-USD, as `fromUsdt` (a provider's price, a store nominal). */
export function fromUsd(value: number): MicroUsd {
  return microUsd(Math.round(value * MICRO_PER_USDT));
}

/** Micro (or a whole micro count from stored details) to a JSON number of USDT, exact to the micro. */
export function toUsdt(amount: number): number {
  return micro(amount) / MICRO_PER_USDT;
}

/** Micro-USD to a JSON number of USD, exact to the micro. */
export const toUsd = (amount: MicroUsd): number => microUsd(amount) / MICRO_PER_USDT;

/** Whether a JSON number carries at most 6 decimals (a whole count of micro), within the binary error of the scaling. */
export const hasMicroPrecision = (value: number): boolean => Math.abs(value * MICRO_PER_USDT - Math.round(value * MICRO_PER_USDT)) < 1e-6;

/**
 * A JSON number of USD as a caller sent it, to micro-USD; null when it is not within a thousandth of a whole count
 * of micro (more decimals, or too large to hold exactly); the tolerance absorbs the scaling's binary error.
 */
export function usdAsSent(value: number): MicroUsd | null {
  const scaled = value * MICRO_PER_USDT;
  const whole = Math.round(scaled);
  return Number.isSafeInteger(whole) && Math.abs(scaled - whole) < 1e-3 ? microUsd(whole) : null;
}

/** Micro per cent: a USD amount in whole cents is a multiple of it. */
const MICRO_PER_CENT = 10_000;

/** Whether a micro-USD amount is whole cents (a store nominal must be). */
export const isWholeCents = (amount: MicroUsd): boolean => amount % MICRO_PER_CENT === 0;

/** Micro-USD as a USD figure rounded to the cent with 2 decimals ("12.50"), for humans. */
export function formatUsd(amount: MicroUsd): string {
  const cents = divideRounded(amount, MICRO_PER_CENT);
  const sign = cents < 0 ? "-" : "";
  const magnitude = Math.abs(cents);
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, "0")}`;
}

/** A micro-USDT amount in whole units of a currency at `perUsdt` units to the USDT (UZS at its configured rate). */
export const wholeUnitsAt = (amount: Micro, perUsdt: number): number => divideRounded(amount * perUsdt, MICRO_PER_USDT);

/** A micro-USDT amount in micro-units of a currency worth `usdtEach` (TON at its live rate), to the micro. */
export const microUnitsAt = (amount: Micro, usdtEach: number): number => divideRounded(amount, usdtEach);

/** A percentage of a micro amount, the percentage in basis points (1% = 100 bp), rounded to the micro of its currency. */
export function percentOf<A extends Amount>(amount: A, basisPoints: number): A {
  return micro(divideRounded(amount * basisPoints, 10_000)) as number as A;
}

/** A share of a micro amount in parts per million (a provider's fee ratio), rounded to the micro of its currency. */
export function ppmOf<A extends Amount>(amount: A, partsPerMillion: number): A {
  return micro(divideRounded(amount * partsPerMillion, 1_000_000)) as number as A;
}

/**
 * An amount as a payment provider writes it ("10", "2.5", up to 8 decimals for other assets) to micro-units, exactly
 * (no float): beyond 6 decimals it is rounded down to the micro-unit. Null when it is not such an amount.
 */
export function parseAmountDown(text: string): Micro | null {
  const match = /^(\d{1,12})(?:\.(\d{1,8}))?$/.exec(text);
  if (!match) return null;
  const fraction = (match[2] ?? "").padEnd(8, "0");
  return micro(Number(match[1]) * MICRO_PER_USDT + Number(fraction.slice(0, 6)));
}

/** Micro-units as the shortest plain decimal ("12.5", "3"), never an exponent: what a provider's request takes. */
export function plainAmount(amount: Micro): string {
  const whole = Math.floor(amount / MICRO_PER_USDT);
  const fraction = String(amount % MICRO_PER_USDT)
    .padStart(6, "0")
    .replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** Formats micro as a plain USDT string with 2 to 6 decimals, for humans (CLI, bot). */
export function formatUsdt(amount: number): string {
  const sign = amount < 0 ? "-" : "";
  const magnitude = Math.abs(micro(amount));
  const whole = Math.floor(magnitude / MICRO_PER_USDT);
  const fraction = String(magnitude % MICRO_PER_USDT)
    .padStart(6, "0")
    .replace(/0{1,4}$/, "");
  return `${sign}${whole}.${fraction.padEnd(2, "0")}`;
}
