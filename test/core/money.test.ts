import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  divideRounded,
  formatUsd,
  formatUsdt,
  fromUsd,
  fromUsdt,
  hasMicroPrecision,
  isWholeCents,
  MAX_MICRO,
  MAX_USDT,
  micro,
  micro as asMicro,
  microUnitsAt,
  microUsd,
  parseAmountDown,
  parseUsd,
  plainAmount,
  parseUsdt,
  percentOf,
  ppmOf,
  roundMicro,
  toUsdt,
  usdAsSent,
  wholeUnitsAt,
} from "../../src/core/model/money.js";

describe("money", () => {
  it("rounds half away from zero", () => {
    expect(roundMicro(micro(1_005_000), 2)).toBe(1_010_000);
    expect(roundMicro(micro(1_004_999), 2)).toBe(1_000_000);
    expect(roundMicro(micro(-1_005_000), 2)).toBe(-1_010_000);
    expect(divideRounded(5, 2)).toBe(3);
    expect(divideRounded(-5, 2)).toBe(-3);
    expect(percentOf(micro(1_000_001), 250)).toBe(25_000);
  });

  it("parses decimal strings exactly and refuses anything else", () => {
    expect(parseUsdt("12.5")).toBe(12_500_000);
    expect(parseUsdt("0.000001")).toBe(1);
    for (const bad of ["-1", "1.1234567", "abc", "", "1e3", "0x10", "1,5"]) expect(parseUsdt(bad), bad).toBeNull();
  });

  it("converts to and from JSON numbers without drift", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 13 }), (micro) => {
        expect(fromUsdt(toUsdt(micro))).toBe(micro);
        expect(parseUsdt(formatUsdt(micro))).toBe(micro);
      }),
    );
    expect(() => fromUsdt(Number.MAX_VALUE)).toThrow(RangeError);
  });

  it("rounding moves an amount by at most half a unit", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 12), max: 10 ** 12 }), fc.integer({ min: 0, max: 6 }), (micro, decimals) => {
        const unit = 10 ** (6 - decimals);
        const rounded = roundMicro(asMicro(micro), decimals);
        expect(rounded % unit === 0).toBe(true);
        expect(Math.abs(rounded - micro) * 2).toBeLessThanOrEqual(unit);
      }),
    );
  });
});

// Moved from the API's edge tests: parsing needs no HTTP (test/api/edges.test.ts keeps the balances near the bound).
describe("bounds on money", () => {
  it("parses amounts up to the bound exactly and refuses anything past it", () => {
    expect(parseUsdt(String(MAX_USDT))).toBe(MAX_MICRO);
    expect(parseUsdt(`${MAX_USDT - 1}.999999`)).toBe(MAX_MICRO - 1);
    expect(parseUsdt(`${MAX_USDT}.000001`)).toBeNull();
    expect(parseUsdt("9000000000")).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_MICRO }), (micro) => {
        const text = `${Math.floor(micro / 1e6)}.${String(micro % 1e6).padStart(6, "0")}`;
        expect(parseUsdt(text)).toBe(micro);
      }),
    );
  });
});

describe("conversions at the edges", () => {
  it("reads a payment provider's amount down to the micro and writes it back as the shortest plain decimal", () => {
    expect(parseAmountDown("10")).toBe(10_000_000);
    expect(parseAmountDown("2.5")).toBe(2_500_000);
    // A BTC amount's 8 decimals: rounded down to the micro-unit, never up.
    expect(parseAmountDown("0.00000199")).toBe(1);
    for (const bad of ["", "-1", "1e6", "1.", "1.123456789", "0x10"]) expect(parseAmountDown(bad), bad).toBeNull();
    fc.assert(fc.property(fc.integer({ min: 0, max: MAX_MICRO }), (amount) => parseAmountDown(plainAmount(asMicro(amount))) === amount));
    expect(plainAmount(asMicro(12_500_000))).toBe("12.5");
    expect(plainAmount(asMicro(3_000_000))).toBe("3");
  });

  it("tells a JSON number with at most 6 decimals from one with more", () => {
    for (const good of [0.1, 12.123456, 1, MAX_USDT, 999_999_999.999999]) expect(hasMicroPrecision(good), String(good)).toBe(true);
    for (const bad of [1.1234567, 0.0000001, 12.1234565]) expect(hasMicroPrecision(bad), String(bad)).toBe(false);
  });

  it("takes a sent USD number as micro-USD only when it is a whole count of micro", () => {
    expect(usdAsSent(12.5)).toBe(12_500_000);
    expect(usdAsSent(0.01)).toBe(10_000);
    expect(usdAsSent(MAX_USDT)).toBe(MAX_MICRO);
    expect(usdAsSent(0.0000001)).toBeNull();
    expect(usdAsSent(1e300)).toBeNull();
    fc.assert(
      // Up to a million dollars, far above any store's limits; larger ones may miss the thousandth-of-a-micro tolerance.
      fc.property(fc.integer({ min: 0, max: 10 ** 8 }), (cents) => {
        expect(usdAsSent(cents / 100)).toBe(cents * 10_000);
      }),
    );
  });

  it("knows whole cents and shows USD to the cent, half away from zero", () => {
    expect(isWholeCents(microUsd(12_340_000))).toBe(true);
    expect(isWholeCents(microUsd(12_345_000))).toBe(false);
    expect(formatUsd(microUsd(12_500_000))).toBe("12.50");
    expect(formatUsd(microUsd(0))).toBe("0.00");
    expect(formatUsd(microUsd(5_005_000))).toBe("5.01");
    expect(formatUsd(microUsd(5_004_999))).toBe("5.00");
    expect(formatUsd(fromUsd(MAX_USDT))).toBe("1000000000.00");
    fc.assert(
      // parseUsd reads up to 9 whole digits.
      fc.property(fc.integer({ min: 0, max: 10 ** 11 - 1 }), (cents) => {
        expect(parseUsd(formatUsd(microUsd(cents * 10_000)))).toBe(cents * 10_000);
      }),
    );
  });

  it("converts USDT to another currency at a rate by the one rounding rule", () => {
    expect(wholeUnitsAt(micro(1_000_000), 12_800)).toBe(12_800);
    expect(wholeUnitsAt(micro(39), 12_800)).toBe(0);
    expect(wholeUnitsAt(micro(40), 12_800)).toBe(1);
    expect(microUnitsAt(micro(5_000_000), 2.5)).toBe(2_000_000);
    expect(microUnitsAt(micro(1), 2)).toBe(1);
  });

  it("takes a share in parts per million, rounded to the micro", () => {
    expect(ppmOf(microUsd(10_000_000), 61_000)).toBe(610_000);
    expect(ppmOf(microUsd(5), 100_000)).toBe(1);
    expect(ppmOf(microUsd(10_000_000), 0)).toBe(0);
  });
});
