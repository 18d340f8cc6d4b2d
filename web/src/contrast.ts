// WCAG AA for Telegram's theme: some of the clients' published palettes pair colours under 4.5:1 (light hint
// #999999 on #f1f1f1, white on the button #2481cc, dark hint #708499 on #232e3c). The page moves such a colour
// toward black or white, step by step, until it reads at AA against the colour it sits on; a pair that already
// passes is left exactly as Telegram gave it.

type Rgb = [number, number, number];

/** "#abc" or "#aabbcc" (an alpha byte ignored) as 0–255 channels; null when it is not a colour. */
function parseHex(hex: string): Rgb | null {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(hex.trim());
  if (!m) return null;
  const digits = m[1].length === 3 ? [...m[1]].map((d) => d + d).join("") : m[1].slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16)) as Rgb;
}

const toHex = (rgb: Rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, "0")).join("")}`;

function luminance([r, g, b]: Rgb): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG's contrast ratio of two colours, 1 to 21. */
export function contrast(a: string, b: string): number {
  const x = parseHex(a);
  const y = parseHex(b);
  if (!x || !y) return 21;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * `colour` as close to itself as reads at `ratio` (AA: 4.5) on `against`: darkened on a light background, lightened
 * on a dark one, in small steps; unchanged when it already passes or either is not a colour.
 */
export function readable(colour: string, against: string, ratio = 4.5): string {
  const c = parseHex(colour);
  const bg = parseHex(against);
  if (!c || !bg || contrast(colour, against) >= ratio) return colour;
  const target = luminance(bg) > 0.18 ? 0 : 255;
  for (let step = 1; step <= 20; step++) {
    const mixed = c.map((v) => v + ((target - v) * step) / 20) as Rgb;
    if (contrast(toHex(mixed), against) >= ratio) return toHex(mixed);
  }
  return toHex([target, target, target]);
}

/**
 * Telegram's theme made readable: each text colour checked against every background it is drawn on here (the hint
 * on the page and on sections, the button's text on the button), the weaker one adjusted. Colours the theme does
 * not name keep the page's own defaults (which pass).
 */
export function readableTheme(theme: Record<string, string>): Record<string, string> {
  const out = { ...theme };
  // A theme without a link colour (the page's default is for light backgrounds) takes its button's.
  if (!out.link_color && out.button_color) out.link_color = out.button_color;
  const bg = theme.bg_color ?? "#ffffff";
  const backgrounds = [bg, theme.secondary_bg_color ?? bg, theme.section_bg_color ?? bg];
  for (const name of ["hint_color", "subtitle_text_color", "section_header_text_color", "link_color", "destructive_text_color", "text_color"]) {
    const colour = out[name];
    if (!colour) continue;
    // The background it reads worst on.
    const worst = backgrounds.reduce((a, b) => (contrast(colour, a) <= contrast(colour, b) ? a : b));
    out[name] = readable(colour, worst);
  }
  if (out.button_color) {
    // The button's text is what reads on it: move the button away from its text colour.
    const text = out.button_text_color ?? "#ffffff";
    out.button_color = readable(out.button_color, text);
  }
  return out;
}

/** The page's own button where the theme names none (styles.css): white on #1c6bb0, 5.7:1. */
const BUTTON = { color: "#1c6bb0", text_color: "#ffffff" };

/**
 * The colours the page gives Telegram's MainButton (web_app_setup_main_button's color and text_color), as its own
 * button reads: the theme's text colour kept, the button moved away from it until the pair reads at AA. Both
 * always sent as #rrggbb (what every client parses), so no client falls back to its own pair (white on #2481cc is
 * 4.1:1). A colour the theme gives that is not one is the page's default.
 */
export function mainButtonColours(theme: Record<string, string>): { color: string; text_color: string } {
  const hex = (colour: string | undefined, fallback: string) => {
    const rgb = colour === undefined ? null : parseHex(colour);
    return rgb ? toHex(rgb) : fallback;
  };
  const text = hex(theme.button_text_color, BUTTON.text_color);
  return { color: readable(hex(theme.button_color, BUTTON.color), text), text_color: text };
}
