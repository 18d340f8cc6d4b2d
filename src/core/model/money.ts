/**
 * Money inside the service is an integer count of micro-USDT (10^-6 USDT), held in a JS number branded `Micro`.
 * Every amount that enters and every balance is bounded by MAX_MICRO (10^9 USDT), far below 2^53 micro
 * (about 9 * 10^9 USDT), so sums of two stay exact; the schema's CHECK says the same of balances.
 * Conversion to a JSON number happens only at the edges, through `toUsdt`.
 *
 * The one rounding rule: half away from zero, applied by `roundMicro` to a number of decimals.
 */
declare const microBrand: unique symbol;
/** A whole count of micro-USDT; made only by `micro` (checked), so a float or a USDT amount cannot pass for one. */
export type Micro = number & { readonly [microBrand]: true };

export const MICRO_PER_USDT = 1_000_000;

/** The most any amount or balance may be: 1,000,000,000 USDT. */
export const MAX_USDT = 1_000_000_000;
export const MAX_MICRO = MAX_USDT * MICRO_PER_USDT;

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

/** Rounds a micro amount to `decimals` USDT decimals (0..6). */
export function roundMicro(amount: Micro, decimals: number): Micro {
  const unit = 10 ** (6 - decimals);
  return micro(divideRounded(amount, unit) * unit);
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

/** A USD amount with at most 2 decimals ("10", "12.5") to micro; null when it is not one. */
export function parseUsd(text: string): Micro | null {
  const cents = parseScaled(text, 2, 9);
  return cents === null ? null : micro(cents * 10_000);
}

/** A percentage from 0 to 100 with at most 2 decimals ("4", "2.5") to basis points; null when it is not one. */
export function parseBasisPoints(text: string): number | null {
  const basisPoints = parseScaled(text, 2, 3);
  return basisPoints === null || basisPoints > 10_000 ? null : basisPoints;
}

/**
 * A JSON number of USDT (or USD) to micro. Only for values already validated to carry at most 6 decimals;
 * Math.round absorbs the binary representation error (0.1 * 1e6 = 100000.00000000001).
 */
export function fromUsdt(value: number): Micro {
  return micro(Math.round(value * MICRO_PER_USDT));
}

/** Micro (or a whole micro count from stored details) to a JSON number of USDT, exact to the micro. */
export function toUsdt(amount: number): number {
  return micro(amount) / MICRO_PER_USDT;
}

/** A percentage of a micro amount, the percentage in basis points (1% = 100 bp), rounded to the micro. */
export function percentOf(amount: Micro, basisPoints: number): Micro {
  return micro(divideRounded(amount * basisPoints, 10_000));
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
