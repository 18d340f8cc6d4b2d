import { describe, expect, it } from "vitest";
import { contrast, mainButtonColours, readable, readableTheme } from "../../web/src/contrast.js";
import { DARK, LIGHT } from "../support/miniapp.js";

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

  it("gives Telegram's MainButton a pair that reads at AA on every palette, the theme's text colour kept", () => {
    // Telegram's published palettes (test/support/miniapp.ts), Telegram Web K's light and dark buttons, and
    // adverse ones: a button the colour of its text, mid-grey on mid-grey, colours a client would not parse.
    const palettes: Record<string, Record<string, string>> = {
      light: LIGHT,
      dark: DARK,
      "web k light": { bg_color: "#ffffff", button_color: "#3390ec", button_text_color: "#ffffff" },
      "web k dark": { bg_color: "#212121", button_color: "#8774e1", button_text_color: "#ffffff" },
      "white on white": { button_color: "#ffffff", button_text_color: "#ffffff" },
      "black on black": { button_color: "#000", button_text_color: "#000000" },
      "grey on grey": { button_color: "#777777", button_text_color: "#767676" },
      "yellow on white": { button_color: "#ffff00", button_text_color: "#fffffe" },
      "not colours": { button_color: "blue", button_text_color: "" },
      none: {},
    };
    const before = Object.fromEntries(
      Object.entries(palettes).map(([name, p]) => [name, contrast(p.button_text_color ?? "#ffffff", p.button_color ?? "#2481cc")]),
    );
    // As the issue measured them: white on #2481cc 4.1:1, on #8774e1 3.7:1, Web K light 3.3:1, adverse 1:1.
    expect(before.light).toBeLessThan(4.5);
    expect(before["web k dark"]).toBeLessThan(4.5);
    expect(before["web k light"]).toBeLessThan(4.5);
    expect(before["white on white"]).toBe(1);
    for (const [name, palette] of Object.entries(palettes)) {
      const sent = mainButtonColours(palette);
      expect(sent.color, name).toMatch(/^#[0-9a-f]{6}$/);
      expect(sent.text_color, name).toMatch(/^#[0-9a-f]{6}$/);
      expect(contrast(sent.text_color, sent.color), name).toBeGreaterThanOrEqual(4.5);
    }
    expect(mainButtonColours(LIGHT).text_color).toBe("#ffffff");
    expect(mainButtonColours({}).color).toBe("#1c6bb0");
    expect(mainButtonColours({ button_color: "#abc", button_text_color: "#000" })).toEqual({ color: "#aabbcc", text_color: "#000000" });
  });

  it("reads at AA for any button and text colour a theme can pair", () => {
    // Text colours on a fine grid (mid-greys are the hard ones: near 4.5:1 against both black and white), buttons
    // on a coarse one.
    const grid = (levels: number[]) => {
      const hex = levels.map((v) => v.toString(16).padStart(2, "0"));
      return hex.flatMap((r) => hex.flatMap((g) => hex.map((b) => `#${r}${g}${b}`)));
    };
    const texts = grid([0, 0x76, 0x77, 0x78, 0xff]);
    const buttons = grid([0, 0x80, 0xff]);
    let worst = 21;
    for (const text of texts)
      for (const button of buttons) {
        const sent = mainButtonColours({ button_color: button, button_text_color: text });
        worst = Math.min(worst, contrast(sent.text_color, sent.color));
      }
    expect(worst).toBeGreaterThanOrEqual(4.5);
  });
});
