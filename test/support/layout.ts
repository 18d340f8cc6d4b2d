import type { Page } from "playwright-core";

// What a screenshot review looks for, read from the page itself: text that leaves its box or comes near the
// screen's edge, and English left on a Russian screen.

/** How close text may come to the viewport's left and right edges, and to the edges of the button it is on. */
const EDGE_PX = 8;
const BUTTON_INSET_PX = 4;

/**
 * Every visible text's problems, one line each (none is the bar): a line of text nearer than 8 px to the
 * viewport's side, or than 4 px to the side of its button (a tile), or an element whose text is wider than it (cut
 * or spilling), a page wider than the viewport, and a row of tiles with an empty slot.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ edge, inset }) => {
      const problems: string[] = [];
      const width = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > width) problems.push(`the page is ${document.documentElement.scrollWidth}px wide`);
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent?.trim() ?? "";
        const element = node.parentElement;
        if (!text || !element || element.closest("option, select, script, style, .visually-hidden, .sr-only")) continue;
        const style = getComputedStyle(element);
        if (style.visibility === "hidden" || element.getClientRects().length === 0) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
        // A tile: a button drawn as a box (a background or a border), whose text keeps off its sides.
        const button = element.closest("button");
        const drawn =
          button && (getComputedStyle(button).backgroundColor !== "rgba(0, 0, 0, 0)" || getComputedStyle(button).borderLeftWidth !== "0px");
        const box = drawn ? button.getBoundingClientRect() : undefined;
        for (const r of rects) {
          if (r.left < edge - 0.5 || r.right > width - edge + 0.5)
            problems.push(`"${text}" ${Math.round(r.left)}–${Math.round(r.right)}px: within ${edge}px of the screen's side`);
          else if (box && (r.left < box.left + inset - 0.5 || r.right > box.right - inset + 0.5))
            problems.push(`"${text}" ${Math.round(r.left - box.left)}px/${Math.round(box.right - r.right)}px from its button's sides`);
        }
      }
      for (const element of document.body.querySelectorAll<HTMLElement>("*")) {
        const style = getComputedStyle(element);
        if (element.closest(".visually-hidden, .sr-only, select, svg") || style.display === "inline" || element.getClientRects().length === 0)
          continue;
        if (style.overflowX === "auto" || style.overflowX === "scroll") continue;
        if (element.scrollWidth > element.clientWidth + 1 && element.textContent?.trim())
          problems.push(`${element.tagName.toLowerCase()}.${element.className}: its text is ${element.scrollWidth}px in ${element.clientWidth}px`);
      }
      // Tiles fill their rows: a last row ending short of the others leaves an empty slot.
      for (const tiles of document.querySelectorAll(".packs, .plans, .gifts, .shelf")) {
        const boxes = [...tiles.children].map((child) => child.getBoundingClientRect()).filter((r) => r.width > 0);
        const right = Math.max(...boxes.map((r) => r.right));
        const rows = new Map<number, number>();
        for (const r of boxes) rows.set(Math.round(r.top), Math.max(rows.get(Math.round(r.top)) ?? 0, r.right));
        if ([...rows.values()].some((end) => end < right - 1)) problems.push(`.${tiles.className}: an empty slot in a row of tiles`);
      }
      return [...new Set(problems)];
    },
    { edge: EDGE_PX, inset: BUTTON_INSET_PX },
  );
}

/** Latin words the service writes in Russian too: currencies, Telegram's own names, API terms, the format hint. */
const LATIN_IN_RUSSIAN = new Set([
  "usdt",
  "usd",
  "uzs",
  "ton",
  "telegram",
  "premium",
  "api",
  "csv",
  "url",
  "id",
  "utc",
  "cryptobot",
  "crypto",
  "pay",
  "username",
  "e-mail",
]);

/**
 * English words on a Russian screen: the visible text's Latin words (any case: headers are upper case), less
 * usernames, the words above, people's names as Telegram has them (a recipient looked up, the quote's "for") and the
 * names the data brings (brands, games, cards, as the provider names them): each is a text left untranslated.
 */
export async function untranslated(page: Page, dataNames: string[]): Promise<string[]> {
  const [text, people] = await page.evaluate(() => [
    document.body.innerText,
    [...document.querySelectorAll("[data-testid=recipient], .quote-line strong")].map((e) => (e as HTMLElement).innerText),
  ]);
  let rest = text.toLowerCase();
  for (const name of [...dataNames, ...people].sort((a, b) => b.length - a.length)) rest = rest.split(name.toLowerCase()).join(" ");
  rest = rest.replace(/@\w+/g, " ").replace(/\bsj_[\w-]+/g, " ");
  const words = rest.match(/[a-z][a-z-]*[a-z]/g) ?? [];
  return [...new Set(words.filter((word) => !LATIN_IN_RUSSIAN.has(word)))];
}
