import { describe, expect, it } from "vitest";
import { contrast, readable, readableTheme } from "../../web/src/contrast.js";

// The Mini App keeps WCAG AA (4.5:1) on Telegram's published palettes by adjusting a theme colour that falls short.

describe("the Mini App's theme contrast", () => {
  it("measures WCAG's ratio", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrast("#999999", "#f1f1f1")).toBeCloseTo(2.5, 1);
    expect(contrast("#ffffff", "#2481cc")).toBeCloseTo(4.1, 1);
    expect(contrast("#708499", "#232e3c")).toBeCloseTo(3.6, 1);
  });

  it("moves a colour under AA just far enough: darker on light, lighter on dark; a passing one is left alone", () => {
    const hint = readable("#999999", "#f1f1f1");
    expect(contrast(hint, "#f1f1f1")).toBeGreaterThanOrEqual(4.5);
    expect(contrast(hint, "#f1f1f1")).toBeLessThan(6);
    const dark = readable("#708499", "#232e3c");
    expect(contrast(dark, "#232e3c")).toBeGreaterThanOrEqual(4.5);
    expect(parseInt(dark.slice(1, 3), 16)).toBeGreaterThan(0x70);
    expect(readable("#000000", "#ffffff")).toBe("#000000");
    expect(readable("not a colour", "#ffffff")).toBe("not a colour");
  });

  it("makes Telegram's light and dark palettes read at AA everywhere the page draws them", () => {
    const light = readableTheme({
      bg_color: "#ffffff",
      secondary_bg_color: "#f1f1f1",
      text_color: "#000000",
      hint_color: "#999999",
      link_color: "#2481cc",
      button_color: "#2481cc",
      button_text_color: "#ffffff",
    });
    expect(contrast(light.hint_color, "#f1f1f1")).toBeGreaterThanOrEqual(4.5);
    expect(contrast(light.hint_color, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    expect(contrast(light.button_text_color, light.button_color)).toBeGreaterThanOrEqual(4.5);
    expect(light.text_color).toBe("#000000");
    const dark = readableTheme({
      bg_color: "#17212b",
      secondary_bg_color: "#232e3c",
      hint_color: "#708499",
      button_color: "#5288c1",
      button_text_color: "#ffffff",
    });
    expect(contrast(dark.hint_color, "#232e3c")).toBeGreaterThanOrEqual(4.5);
    expect(contrast(dark.button_text_color, dark.button_color)).toBeGreaterThanOrEqual(4.5);
    // No link colour named: the button's, made readable on the dark sections.
    expect(contrast(dark.link_color, "#232e3c")).toBeGreaterThanOrEqual(4.5);
  });
});
