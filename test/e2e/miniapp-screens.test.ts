import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import type { BotHarness, Harness } from "../support/harness.js";
import { texts } from "../../web/src/texts.js";
import { axe, launchBrowser, type OpenOptions, openMiniApp, sent, shot } from "../support/browser.js";
import { layoutProblems, untranslated } from "../support/layout.js";
import { DARK, LIGHT, type MiniAppUser } from "../support/miniapp.js";
import { useBotHarness } from "../support/use-harness.js";

// The Mini App's orders, statement, top-up, key and admin desk screens in a real browser (Debian's Chromium through
// playwright-core), in Telegram's light and dark palettes and in both languages, at 360×640: axe-core finds no
// serious or critical violation (contrast included) on any of them, and a screenshot of each is written to
// test-output/miniapp/ (orders-light-en.png, statement-dark-ru.png, desk-chart-1day.png, desk-chart-30days.png…).

const ADMIN = 696_199_999;
// Telegram's published palettes (pairs under WCAG AA among them, which the page adjusts: the light hint on the
// secondary background, white on the light button, the dark hint on the dark sections): test/support/miniapp.ts.
const PALETTES = { light: LIGHT, dark: DARK } as const;
let bots: BotHarness;
let h: Harness;
let base: string;
let browser: Browser;

// Time as the simulator plays it (scale 1): a `pending_` store top-up stays processing for about 20 s, long enough
// to be seen as an order in progress with its usual time.
useBotHarness(696_000_001, { admins: [ADMIN], timeScale: 1, books: true }, async (started) => {
  bots = started;
  h = started.h;
  base = await h.api.listen({ host: "127.0.0.1", port: 0 });
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/**
 * Opens the app as `user` with the CSP bypassed (axe is injected as a script of its own), once its balance shows.
 */
async function open(user: MiniAppUser, options: OpenOptions = {}) {
  const app = await openMiniApp(browser, base, user, { ...options, context: { bypassCSP: true, ...options.context } });
  await expect.poll(() => app.page.getByTestId("balance").count()).toBe(1);
  return app;
}

async function user(id: number, username: string, usdt = 0, language: "en" | "ru" = "en") {
  await h.service.core.accounts.register(String(id), username);
  const account = (await h.service.core.accounts.byTelegramId(String(id)))!;
  if (language === "ru") await h.service.core.accounts.setLanguage(account.id, "ru");
  if (usdt) await h.service.core.admin.credit(String(id), (usdt * 1e6) as never, "test", { confirmed: true });
  return { id, first_name: username, username };
}

/** How many lines an element's text takes (a wrapped one has more than one line box). */
const lines = (page: Page, selector: string) =>
  page.$$eval(selector, (elements) =>
    elements.map((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
    }),
  );

const back = (page: Page) => page.locator("button.back").click();

/** An element's text, or null while it is not there (Playwright's textContent would wait 30 s for a missing one). */
const textOf = async (locator: Locator) => ((await locator.count()) ? locator.textContent() : null);

describe("the Mini App's orders, statement, top-up, key and desk screens", () => {
  it("draws the desk's 30-day chart with dates and values when there is one day of data", async () => {
    const buyer = await bots.registered(20);
    for (const stars of [100, 200])
      expect((await h.call("POST", "/v1/stars", { key: buyer.key, body: { username: "carol", stars } })).status).toBe(200);
    const { page, errors, close } = await open({ id: ADMIN, first_name: "Ann", username: "ann_admin" }, { theme: LIGHT });
    await page
      .getByRole("button", { name: texts.en.admin })
      .or(page.getByRole("button", { name: texts.ru.admin }))
      .click();
    const chart = page.getByTestId("chart");
    await expect.poll(() => chart.locator("rect").count()).toBe(1);
    const today = new Date().toLocaleDateString("en", { timeZone: "UTC", day: "numeric", month: "short" });
    const labels = await chart.locator("text").allTextContents();
    // The value axis (0, half, top, and its unit), the dates under the bars (today's the last), the day's total over its bar.
    expect(labels).toEqual(expect.arrayContaining(["0", "USDT", today, "4.50"]));
    expect(labels.filter((l) => /^\d+(\.\d+)?$/.test(l)).length).toBeGreaterThanOrEqual(4);
    expect(await chart.getAttribute("role")).toBe("img");
    expect(await chart.getAttribute("aria-label")).toMatch(/4\.50 USDT in all, on 1 day/);
    expect(await page.getByTestId("chart-table").locator("tbody tr").allTextContents()).toEqual([expect.stringContaining("4.50")]);
    await shot(page, "desk-chart-1day");
    expect(await axe(page)).toEqual([]);
    expect(errors, errors.join("\n")).toEqual([]);
    await close();
  }, 60_000);

  it("draws thirty days of data with dates, values and an accessible table, in the dark theme and in Russian", async () => {
    const buyer = await bots.registered(200);
    const made: number[] = [];
    for (let i = 0; i < 30; i++) {
      const bought = await h.call("POST", "/v1/stars", { key: buyer.key, body: { username: "carol", stars: 50 + 10 * ((i * 7) % 11) } });
      expect(bought.status).toBe(200);
      made.push(bought.body.order_id as number);
    }
    // The orders placed on the 30 days up to today, one a day.
    for (const [i, id] of made.entries()) {
      const day = new Date(Date.now() - (29 - i) * 86_400_000);
      day.setUTCHours(12, 0, 0, 0);
      await h.service.db.updateTable("orders").set({ created_at: day.toISOString() }).where("id", "=", id).execute();
    }
    await h.service.core.accounts.register(String(ADMIN), "ann_admin");
    await h.service.core.accounts.setLanguage((await h.service.core.accounts.byTelegramId(String(ADMIN)))!.id, "ru");
    const { page, errors, close } = await open({ id: ADMIN, first_name: "Ann", username: "ann_admin" }, { theme: DARK });
    await page
      .getByRole("button", { name: texts.en.admin })
      .or(page.getByRole("button", { name: texts.ru.admin }))
      .click();
    const chart = page.getByTestId("chart");
    await expect.poll(() => chart.locator("rect").count()).toBeGreaterThanOrEqual(30);
    const labels = await chart.locator("text").allTextContents();
    const first = new Date(Date.now() - 29 * 86_400_000).toLocaleDateString("ru", { timeZone: "UTC", day: "numeric", month: "short" });
    const last = new Date().toLocaleDateString("ru", { timeZone: "UTC", day: "numeric", month: "short" });
    expect(labels).toEqual(expect.arrayContaining(["0", "USDT", first, last]));
    // Four dates under thirty bars, and the values of the highest day and the latest over theirs: nothing crowded.
    expect(labels.filter((l) => /[а-я]/.test(l))).toHaveLength(4);
    // Russian figures with a decimal comma.
    expect(labels.filter((l) => /^\d+,\d{2,6}$/.test(l)).length).toBeGreaterThanOrEqual(1);
    expect(labels.filter((l) => /\d\.\d/.test(l))).toEqual([]);
    expect(await chart.getAttribute("aria-label")).toMatch(/^Доставлено за последние 30 дней: всего [\d\s]+,\d{2,6} USDT, дней с заказами: 30/);
    expect(await page.getByTestId("chart-table").locator("tbody tr").count()).toBe(30);
    // "Gift cards" and every product's name stay on one line in the day's table.
    expect(Math.max(...(await lines(page, ".dtable-product")))).toBe(1);
    await shot(page, "desk-chart-30days");
    expect(await axe(page)).toEqual([]);
    expect(errors, errors.join("\n")).toEqual([]);
    await close();
  }, 90_000);

  it("asks before blocking (in the page, and through Telegram's popup inside Telegram), keeps Block apart from Credit, and clears the note after a credit", async () => {
    const target = await bots.registered(0, { username: "target_t" });
    for (const [language, theme] of [
      ["en", LIGHT],
      ["ru", DARK],
    ] as const) {
      await h.service.core.accounts.register(String(ADMIN), "ann_admin");
      await h.service.core.accounts.setLanguage((await h.service.core.accounts.byTelegramId(String(ADMIN)))!.id, language);
      const { page, errors, close } = await open({ id: ADMIN, first_name: "Ann", username: "ann_admin" }, { theme });
      await page
        .getByRole("button", { name: texts.en.admin })
        .or(page.getByRole("button", { name: texts.ru.admin }))
        .click();
      await page.locator("input[name=target]").fill("@target_t");
      await page.locator("form button[type=submit]").click();
      await expect.poll(() => page.getByTestId("user").count()).toBe(1);
      await page.locator("input[name=amount]").fill("3");
      await page.locator("input[name=note]").fill("welcome bonus");
      await page.getByTestId("move").click();
      await expect
        .poll(() => page.getByTestId("move-outcome").textContent())
        .toMatch(language === "en" ? /^\+3\.00 USDT · balance \d+\.00 USDT$/ : /^\+3,00 USDT · баланс \d+,00 USDT$/);
      // The note went with that credit: the next starts blank.
      expect(await page.locator("input[name=note]").inputValue()).toBe("");
      expect(await page.locator("input[name=amount]").inputValue()).toBe("");
      // Block is in a section of its own, in the destructive colour, below Credit.
      const access = page.getByTestId("access");
      expect(await access.getByTestId("block").getAttribute("class")).toBe("ddanger-button");
      const [moveBox, blockBox] = [await page.getByTestId("move").boundingBox(), await access.getByTestId("block").boundingBox()];
      expect(blockBox!.y - (moveBox!.y + moveBox!.height)).toBeGreaterThan(48);
      // A tap only asks; Cancel changes nothing; Yes blocks.
      await access.getByTestId("block").click();
      await expect.poll(() => access.getByTestId("block-ask").textContent()).toContain("@target_t");
      await access.scrollIntoViewIfNeeded();
      await shot(page, `desk-block-ask-${language === "en" ? "light-en" : "dark-ru"}`);
      expect(await axe(page)).toEqual([]);
      expect((await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeFalsy();
      await access.locator("button.secondary").click();
      expect(await access.getByTestId("block-ask").count()).toBe(0);
      expect((await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeFalsy();
      await access.getByTestId("block").click();
      await access.getByTestId("block-confirm").click();
      await expect.poll(async () => (await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeTruthy();
      await expect.poll(() => page.locator(".duser-who").textContent()).toMatch(/· (blocked|заблокирован)$/);
      // Unblocking asks too.
      await access.getByTestId("block").click();
      await access.getByTestId("block-confirm").click();
      await expect.poll(async () => (await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeFalsy();
      expect(errors, errors.join("\n")).toEqual([]);
      await close();
    }

    // Inside Telegram the client's own popup asks (showPopup with a destructive button); cancelled, nothing happens.
    await h.service.core.accounts.setLanguage((await h.service.core.accounts.byTelegramId(String(ADMIN)))!.id, "en");
    const { page, errors, close } = await open({ id: ADMIN, first_name: "Ann", username: "ann_admin" }, { telegram: true, theme: LIGHT });
    await page
      .getByRole("button", { name: texts.en.admin })
      .or(page.getByRole("button", { name: texts.ru.admin }))
      .click();
    await page.locator("input[name=target]").fill("@target_t");
    await page.locator("form button[type=submit]").click();
    await page.getByTestId("block").click();
    await expect
      .poll(() => sent(page, "web_app_open_popup"))
      .toEqual([
        {
          message: expect.stringContaining("Block "),
          buttons: [
            { id: "yes", type: "destructive", text: "Yes, block" },
            { id: "no", type: "cancel" },
          ],
        },
      ]);
    const closePopup = (buttonId: string) =>
      page.evaluate(
        (id) =>
          (window as unknown as { Telegram: { WebView: { receiveEvent(e: string, d: unknown): void } } }).Telegram.WebView.receiveEvent(
            "popup_closed",
            {
              button_id: id,
            },
          ),
        buttonId,
      );
    await closePopup("no");
    await page.waitForTimeout(300);
    expect((await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeFalsy();
    await page.getByTestId("block").click();
    await expect.poll(async () => (await sent(page, "web_app_open_popup")).length).toBe(2);
    await closePopup("yes");
    await expect.poll(async () => (await h.service.core.accounts.byTelegramId(target.telegramId))!.blocked).toBeTruthy();
    expect(errors, errors.join("\n")).toEqual([]);
    await close();
  }, 120_000);

  it("shows a designed empty state for no orders, with the way to the shop, and no filters over it", async () => {
    for (const [language, palette] of [
      ["en", "light"],
      ["ru", "dark"],
    ] as const) {
      const nobody = await user(language === "en" ? 696_100_001 : 696_100_002, `nobody_${language}`, 0, language);
      const { page, errors, close } = await open(nobody, { theme: PALETTES[palette] });
      await page.getByRole("button", { name: texts[language].orders }).click();
      const empty = page.getByTestId("orders-empty");
      await expect.poll(() => empty.textContent()).toContain(language === "en" ? "No orders yet." : "Заказов пока нет.");
      expect(await page.locator("select").count()).toBe(0);
      await shot(page, `orders-empty-${palette}-${language}`);
      expect(await axe(page)).toEqual([]);
      // The way to buy: back to the first screen, where the shop is.
      await page.getByTestId("orders-shop").click();
      await expect.poll(() => page.getByTestId("balance").count()).toBe(1);
      expect(errors, errors.join("\n")).toEqual([]);
      await close();
    }
  }, 60_000);

  for (const [palette, language] of [
    ["light", "en"],
    ["dark", "ru"],
    ["dark", "en"],
    ["light", "ru"],
  ] as const) {
    it(`walks orders, an order, the statement, top-up and the key in the ${palette} palette in ${language === "en" ? "English" : "Russian"}`, async () => {
      const id = 696_200_000 + (palette === "light" ? 0 : 10) + (language === "en" ? 0 : 1);
      const buyer = await user(id, `buyer_${palette}_${language}`, 40, language);
      const { key } = await h.newKey(0, String(id));
      for (const stars of [50, 120]) await h.call("POST", "/v1/stars", { key, body: { username: "carol", stars } });
      await h.call("POST", "/v1/stars", { key, body: { username: "fail_dave", stars: 60 } });
      // A store top-up the provider takes its time with: processing while the screens are walked.
      const pending = await h.call("POST", "/v1/store", { key, body: { login: `pending_${id}`, amount_usd: 5 } });
      expect(pending.status).toBe(202);
      // Game credit, which lands in a minute: named by the game and its denomination, never the game's code.
      const game = await h.call("POST", "/v1/games/pubgm/order", { key, body: { denomination: "60 + Royale Pass", player_id: "12345678" } });
      expect(game.status).toBe(202);
      const { page, errors, close } = await open(buyer, { theme: PALETTES[palette] });
      const checked: Record<string, string[]> = {};
      const visit = async (name: string) => {
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(100);
        await shot(page, `${name}-${palette}-${language}`);
        // No serious accessibility violation, no text cut or at the screen's edge, no English on a Russian screen
        // but the provider's own names (the store login, the game and its denomination).
        checked[name] = [
          ...(await axe(page)),
          ...(await layoutProblems(page)),
          ...(language === "ru"
            ? (await untranslated(page, [`pending_${id}`, "PUBG Mobile", "60 + Royale Pass"])).map((word) => `English on a Russian screen: ${word}`)
            : []),
        ];
      };
      const t = texts[language];
      const tile = (name: string) => page.getByRole("button", { name }).click();

      // Orders: cards with status, names and what happens next; compact filters.
      await tile(t.orders);
      const cards = page.getByTestId("orders").locator("li");
      await expect.poll(() => cards.count()).toBe(5);
      const text = (await cards.allTextContents()).join("\n");
      // Every order by name: what was bought, then for whom.
      expect(await page.getByTestId("orders").locator(".ocard-title").allTextContents()).toEqual(
        language === "en"
          ? [
              "PUBG Mobile · 60 + Royale Pass",
              "Store top-up · 5.00\u00a0USD",
              "Telegram Stars · 60\u00a0⭐",
              "Telegram Stars · 120\u00a0⭐",
              "Telegram Stars · 50\u00a0⭐",
            ]
          : [
              "PUBG Mobile · 60 + Royale Pass",
              "Пополнение магазина · 5,00\u00a0USD",
              "Звёзды Telegram · 60\u00a0⭐",
              "Звёзды Telegram · 120\u00a0⭐",
              "Звёзды Telegram · 50\u00a0⭐",
            ],
      );
      expect(text).toContain(`${t.playerId} 12345678`);
      expect(text).not.toContain("pubgm");
      expect(text).toContain("@carol");
      expect(text).toContain(`pending_${id}`);
      expect(text).toContain(language === "en" ? "Usually lands within a few minutes." : "Обычно зачисляется за несколько минут.");
      expect(text).toContain(language === "en" ? "The whole charge is back on your balance" : "Вся сумма вернулась на баланс");
      const filters = await page.locator(".ofilters").boundingBox();
      expect(filters!.height).toBeLessThan(48);
      await visit("orders");
      await page.getByLabel(language === "en" ? "Product" : "Товар").selectOption("premium");
      await expect.poll(() => page.getByTestId("orders-none").count()).toBe(1);
      await page.getByTestId("orders-none").locator("button").click();
      await expect.poll(() => cards.count()).toBe(5);
      await cards
        .filter({ hasText: `pending_${id}` })
        .locator("button")
        .click();
      await expect
        .poll(() => page.getByTestId("order-next").textContent())
        .toBe(
          language === "en"
            ? "Usually lands within a few minutes. This screen updates by itself."
            : "Обычно зачисляется за несколько минут. Экран обновится сам.",
        );
      await expect
        .poll(() => textOf(page.getByTestId("bought")))
        .toBe(language === "en" ? "Store top-up · 5.00\u00a0USD" : "Пополнение магазина · 5,00\u00a0USD");
      expect(await page.getByTestId("for").textContent()).toBe(`pending_${id}`);
      await visit("order");
      await back(page);
      // The game order's own page names the game, the denomination and the player the provider found.
      await cards.filter({ hasText: "PUBG Mobile" }).locator("button").click();
      await expect.poll(() => textOf(page.getByTestId("bought"))).toBe("PUBG Mobile · 60 + Royale Pass");
      expect(await page.getByTestId("for").textContent()).toBe(`${t.playerId} 12345678 (Player5678)`);
      expect(await page.getByTestId("order").textContent()).not.toContain("pubgm");
      await back(page);
      await back(page);

      // Statement: the kind and the amounts never wrap.
      await tile(t.statement);
      await expect.poll(() => page.getByTestId("entries").locator("li").count()).toBeGreaterThanOrEqual(5);
      expect(Math.max(...(await lines(page, ".st-kind")), ...(await lines(page, ".st-amount")))).toBe(1);
      await visit("statement");
      await back(page);

      // Top-up: what each way does; "10 USDT" on one line.
      await tile(t.topUp);
      expect(Math.max(...(await lines(page, ".tu-amounts button")))).toBe(1);
      expect(await page.locator(".tu-how").count()).toBeGreaterThanOrEqual(2);
      expect(await page.getByTestId("topup-limits").textContent()).toMatch(
        language === "en" ? /^From 1 to 10,000 USDT a top-up\./ : /^От 1 до 10\s000 USDT за раз\./,
      );
      await visit("topup");
      await page.locator("summary").click();
      expect(await page.locator("details .tu-how").textContent()).toMatch(language === "en" ? /administrator checks it/ : /администратор проверит/);
      await visit("topup-transfer");
      await back(page);

      // The key's prefix never breaks (at a hyphen or anywhere).
      await tile(t.partner);
      await expect.poll(() => page.getByTestId("key-now").textContent()).toMatch(/sj_/);
      expect(await lines(page, "[data-testid=key-now] code")).toEqual([1]);
      await visit("partner");
      expect(checked).toEqual(Object.fromEntries(Object.keys(checked).map((name) => [name, []])));
      expect(errors, errors.join("\n")).toEqual([]);
      await close();
    }, 90_000);
  }
});
