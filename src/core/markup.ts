import { type Micro, type MicroUsd, microUsd, percentOf, ppmOf, roundMicro, usdAsUsdt } from "./model/money.js";
import type { MarkupProduct } from "./model/account.js";

export type MarkupDefaults = Record<MarkupProduct, number>;

/** The caller's markup in basis points: a personal rate when an administrator set one, else the default. */
export function markupOf(account: { markupBp: Record<MarkupProduct, number | null> }, product: MarkupProduct, defaults: MarkupDefaults): number {
  return account.markupBp[product] ?? defaults[product];
}

/** Basis points as the contract's percent number (250 bp = 2.5). */
export const percentNumber = (basisPoints: number) => basisPoints / 100;

/** A catalogue price: provider cost plus markup, to 4 decimals (games and gift cards). */
export const catalogPrice = (costMicro: MicroUsd, markupBp: number): Micro =>
  usdAsUsdt(roundMicro(microUsd(costMicro + percentOf(costMicro, markupBp)), 4));

/** A store purchase's price breakdown: nominal, provider fee, cost, markup and total (not a binding quote). */
export interface StorePrice {
  amountMicro: MicroUsd;
  feeMicro: MicroUsd;
  costMicro: MicroUsd;
  markupBp: number;
  markupMicro: MicroUsd;
  /** In USD, rounded to cents; charged at par (`usdAsUsdt`). */
  totalMicro: MicroUsd;
}

/** The spec's store formula: fee on the nominal, markup on the cost, the total rounded to 2 decimals. */
export function storePrice(amountMicro: MicroUsd, feePpm: number, markupBp: number): StorePrice {
  const feeMicro = ppmOf(amountMicro, feePpm);
  const costMicro = microUsd(amountMicro + feeMicro);
  const markupMicro = percentOf(costMicro, markupBp);
  return { amountMicro, feeMicro, costMicro, markupBp, markupMicro, totalMicro: roundMicro(microUsd(costMicro + markupMicro), 2) };
}
