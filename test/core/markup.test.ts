import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { catalogPrice, storePrice } from "../../src/core/markup.js";
import { fromUsd, microUsd } from "../../src/core/model/money.js";
import { expectedTotal } from "../support/store-formula.js";

// The store formula against the core directly: HTTP adds nothing to arithmetic (test/api/store.test.ts checks
// that GET /v1/store/pricing answers with it, with the key's personal markup).
describe("the store formula", () => {
  it("quotes by the spec's formula on every amount: fee on the nominal, markup on the cost, the total to the cent", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 40_000 }), fc.integer({ min: 0, max: 10_000 }), (cents, markupBp) => {
        const quote = storePrice(fromUsd(cents / 100), 30_000, markupBp);
        expect(quote.amountMicro).toBe(cents * 10_000);
        expect(quote.costMicro).toBe(quote.amountMicro + quote.feeMicro);
        // Fee and markup are exact to the micro (half away from zero); the total to the cent.
        expect(Math.abs(quote.feeMicro - quote.amountMicro * 0.03)).toBeLessThanOrEqual(0.5);
        expect(Math.abs(quote.markupMicro - (quote.costMicro * markupBp) / 10_000)).toBeLessThanOrEqual(0.5);
        expect(quote.totalMicro % 10_000).toBe(0);
        expect(quote.totalMicro / 1e6).toBe(expectedTotal(cents / 100, 0.03, markupBp / 100));
      }),
      { numRuns: 2_000 },
    );
  });

  it("prices a catalogue item as cost plus markup, to 4 decimals", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000_000 }), fc.integer({ min: 0, max: 10_000 }), (costMicro, markupBp) => {
        const price = catalogPrice(microUsd(costMicro), markupBp);
        expect(price % 100).toBe(0);
        expect(Math.abs(price - (costMicro + (costMicro * markupBp) / 10_000))).toBeLessThanOrEqual(50 + 0.5);
      }),
    );
  });
});
