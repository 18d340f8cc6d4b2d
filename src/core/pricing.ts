import { invalid } from "./model/errors.js";
import { PREMIUM_MONTHS, type PremiumMonths, STARS_MAX, STARS_MIN } from "./formats.js";
import { micro, type Micro, microUnitsAt, wholeUnitsAt } from "./model/money.js";
import type { RatesPort } from "./ports.js";
import type { Clock } from "./model/clock.js";

export interface Tariffs {
  usdtPerStarMicro: Micro;
  premiumMicro: Record<PremiumMonths, Micro>;
  uzsPerUsd: number;
  tonCacheMs: number;
  /** How long a failed TON lookup is remembered, so a down source is not asked on every request. */
  tonFailureCacheMs?: number;
}

export function createPricing({ tariffs, rates, clock }: { tariffs: Tariffs; rates: RatesPort; clock: Clock }) {
  let ton: { value: number | null; until: number; fetchedAt: string } | undefined;

  /** USD per TON from the rates source, cached, and when it was read; null while the source is unavailable. */
  async function tonRate(): Promise<{ tonUsd: number | null; fetchedAt: string }> {
    const at = clock.now();
    const now = at.getTime();
    if (!ton || now >= ton.until) {
      try {
        const value = rates.configured ? await rates.tonUsd() : null;
        ton = { value, until: now + tariffs.tonCacheMs, fetchedAt: at.toISOString() };
      } catch {
        ton = { value: null, until: now + (tariffs.tonFailureCacheMs ?? 5_000), fetchedAt: at.toISOString() };
      }
    }
    return { tonUsd: ton.value, fetchedAt: ton.fetchedAt };
  }

  return {
    tariffs,
    tonRate,

    starsPrice(stars: number): Micro {
      if (!Number.isInteger(stars) || stars < STARS_MIN || stars > STARS_MAX) {
        throw invalid(`stars must be a whole number from ${STARS_MIN} to ${STARS_MAX}`);
      }
      return micro(stars * tariffs.usdtPerStarMicro);
    },

    premiumPrice(months: number): Micro {
      const price = tariffs.premiumMicro[months as PremiumMonths];
      if (price === undefined) throw invalid(`months must be one of ${PREMIUM_MONTHS.join(", ")}`);
      return price;
    },

    /** An amount in UZS (the configured rate) and in TON micro-units (the live rate; null while unreadable), as a balance is shown. */
    async equivalents(amountMicro: Micro): Promise<{ uzs: number; tonMicro: number | null }> {
      const { tonUsd } = await tonRate();
      return {
        uzs: wholeUnitsAt(amountMicro, tariffs.uzsPerUsd),
        tonMicro: tonUsd === null ? null : microUnitsAt(amountMicro, tonUsd),
      };
    },
  };
}

export type Pricing = ReturnType<typeof createPricing>;
