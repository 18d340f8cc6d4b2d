import type { Account } from "../db/schema.js";
import type { MarkupProduct } from "./admin.js";
import { divideRounded, type Micro, percentOf, roundMicro } from "./money.js";

export type MarkupDefaults = Record<MarkupProduct, number>;

/** The caller's markup in basis points: a personal rate when an administrator set one, else the default. */
export function markupOf(account: Account, product: MarkupProduct, defaults: MarkupDefaults): number {
  const personal = { store: account.markup_store_bp, games: account.markup_games_bp, giftcards: account.markup_giftcards_bp }[product];
  return personal ?? defaults[product];
}

/** Basis points as the contract's percent number (250 bp = 2.5). */
export const percentNumber = (basisPoints: number) => basisPoints / 100;

/** A catalogue price: provider cost plus markup, to 4 decimals (games and gift cards). */
export const catalogPrice = (costMicro: Micro, markupBp: number): Micro => roundMicro(costMicro + percentOf(costMicro, markupBp), 4);

export interface StoreQuote {
  amountMicro: Micro;
  feeMicro: Micro;
  costMicro: Micro;
  markupBp: number;
  markupMicro: Micro;
  totalMicro: Micro;
}

/** The spec's store formula: fee on the nominal, markup on the cost, the total rounded to 2 decimals. */
export function storeQuote(amountMicro: Micro, feePpm: number, markupBp: number): StoreQuote {
  const feeMicro = divideRounded(amountMicro * feePpm, 1_000_000);
  const costMicro = amountMicro + feeMicro;
  const markupMicro = percentOf(costMicro, markupBp);
  return { amountMicro, feeMicro, costMicro, markupBp, markupMicro, totalMicro: roundMicro(costMicro + markupMicro, 2) };
}
