import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { micro } from "../../src/core/model/money.js";
import { EmulatedStars } from "../../src/emulator/client.js";
import { type BotHarness, eventually, type Harness } from "../support/harness.js";
import { launchBrowser, mainButtonReady, openMiniApp, press, sent, shot } from "../support/browser.js";
import { DARK, LIGHT, type MiniAppUser, sessionOf } from "../support/miniapp.js";
import { useBotHarness } from "../support/use-harness.js";

// Top-ups in Telegram Stars from the Mini App, on this engine, in Chromium: Telegram's payment form is the fake
// client's, which pays through the Bot API emulator, so the bot answers the pre-checkout and credits the
// successful_payment as in production. At STAR_COST_USDT 0.01 a Star credits 0.01 USDT: the smallest top-up (1 USDT)
// is 100 Stars. Screenshots go to test-output/miniapp/ (stars-*.png).

const ADMIN = 697_199_999;
let bots: BotHarness;
let h: Harness;
let base: string;
let browser: Browser;

const SETTINGS = { STAR_COST_USDT: "0.01", TOPUP_POLL_MS: "60000" };
useBotHarness(697_000_001, { admins: [ADMIN], timeScale: 0.1, env: SETTINGS, books: true, startMs: 60_000 }, async (started) => {
  bots = started;
  h = started.h;
  base = await h.api.listen({ host: "127.0.0.1", port: 0 });
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const account = async (telegramId: number) => (await h.service.core.accounts.byTelegramId(String(telegramId)))!;
const balance = async (telegramId: number) => (await account(telegramId)).balanceMicro;
const ledger = async (telegramId: number) =>
  h.service.db
    .selectFrom("ledger_entries")
    .select(["kind", "amount_micro"])
    .where("account_id", "=", (await account(telegramId)).id)
    .orderBy("id")
    .execute();
const topups = async (telegramId: number) =>
  h.service.db
    .selectFrom("topups")
    .select(["id", "status", "stars", "charge_id"])
    .where("account_id", "=", (await account(telegramId)).id)
    .orderBy("id")
    .execute();

async function user(id: number, username: string, usdt = 0, language?: "ru"): Promise<MiniAppUser> {
  const registered = await h.service.core.accounts.register(String(id), username);
  if (language) await h.service.core.accounts.setLanguage(registered.id, language);
  if (usdt) await h.service.core.admin.credit(String(id), micro(usdt * 1e6), "test", { confirmed: true });
  return { id, first_name: username, username, ...(language ? { language_code: language } : {}) };
}

describe("Stars top-ups in the Mini App", () => {
  it("pays a pack in Telegram's form, credited by the bot and the new balance shown; a form closed unpaid or refused at checkout changes nothing", async () => {
    const sara = await user(697_100_001, "sara_s");
    let meanwhile = async () => undefined;
    const app = await openMiniApp(browser, base, sara, {
      telegram: true,
      theme: LIGHT,
      emulatorUrl: bots.emulatorUrl,
      whilePaying: () => meanwhile(),
    });
    const { page } = app;
    await expect.poll(() => page.getByTestId("balance").textContent()).toContain("0.00 USDT");
    await page.getByTestId("wallet-topup").click();
    // The offer: packs with the USDT each credits, and any amount typed, its credit shown before paying.
    expect(await page.getByTestId("stars-pack-100").textContent()).toBe("100 ⭐1.00 USDT");
    expect(await page.getByTestId("stars-pack-2500").textContent()).toBe("2,500 ⭐25.00 USDT");
    await page.getByLabel("Stars to pay (100 to 10,000)").fill("99");
    expect(await page.locator("label", { hasText: "Stars to pay" }).locator(".hint").textContent()).toBe("From 100 to 10,000 Stars, whole ones.");
    expect(await page.getByTestId("stars-pay").isDisabled()).toBe(true);
    await page.getByLabel("Stars to pay (100 to 10,000)").fill("333");
    expect(await page.locator("label", { hasText: "Stars to pay" }).locator(".hint").textContent()).toBe("Credits 3.33 USDT");
    expect(await page.getByTestId("stars-pay").textContent()).toBe("Pay 333 ⭐");
    await shot(page, "stars-topup-light", { fullPage: true });

    await page.getByTestId("stars-pack-250").click();
    // The page looks at the top-up 0.4 s after the payment, then less and less often: the credit may miss that look.
    await expect.poll(() => page.getByTestId("stars-status").textContent(), { timeout: 15_000 }).toBe("✅ 2.50 USDT credited. Balance: 2.50 USDT.");
    // The page opened the service's link in Telegram's form, by its slug; the bot took the payment at checkout.
    const [opened] = await sent(page, "web_app_open_invoice");
    expect(app.invoices).toEqual([
      { slug: (opened as { slug: string }).slug, attempt: expect.objectContaining({ status: "paid", outcome: "paid" }) },
    ]);
    const [paid] = await topups(sara.id);
    expect(paid).toMatchObject({ status: "credited", stars: 250, charge_id: app.invoices[0].attempt.telegram_payment_charge_id });
    expect(await balance(sara.id)).toBe(2_500_000);
    expect(await ledger(sara.id)).toEqual([{ kind: "topup", amount_micro: 2_500_000 }]);
    await expect.poll(() => sent(page, "web_app_trigger_haptic_feedback")).toContainEqual({ type: "notification", notification_type: "success" });
    await shot(page, "stars-topup-credited", { fullPage: true });

    // Closed unpaid: Telegram's form says cancelled, the bot hears nothing, nothing is credited, and the top-up is
    // cancelled, so it no longer counts among the key's open ones.
    app.invoiceMode("close");
    await page.getByTestId("stars-pay").click();
    await expect
      .poll(() => page.getByTestId("stars-status").textContent())
      .toBe("The payment form was closed: no Stars were taken, nothing changed.");
    expect(app.invoices[1].attempt).toMatchObject({ status: "cancelled", outcome: "closed" });
    expect(app.invoices[1].attempt.pre_checkout_query_id).toBeUndefined();
    expect(await balance(sara.id)).toBe(2_500_000);
    expect(await ledger(sara.id)).toHaveLength(1);
    expect((await topups(sara.id)).map((t) => [t.status, Number(t.stars)])).toEqual([
      ["credited", 250],
      ["cancelled", 333],
    ]);
    await press(page, "back_button_pressed");
    await expect.poll(() => page.getByTestId("balance").textContent()).toContain("2.50 USDT");

    // Refused at Telegram's checkout (the account blocked while the form was open): failed, nothing taken.
    app.invoiceMode("pay");
    meanwhile = async () => void (await h.service.core.admin.setBlocked(String(sara.id), true, "test"));
    await page.getByTestId("wallet-topup").click();
    await page.getByTestId("stars-pack-100").click();
    await expect
      .poll(() => page.getByTestId("stars-status").textContent())
      .toBe("The payment did not go through: no Stars were taken, nothing changed. Try again.");
    expect(app.invoices[2].attempt).toMatchObject({ status: "failed", outcome: "refused", error_message: "This account is blocked: ask support." });
    expect(await balance(sara.id)).toBe(2_500_000);
    expect(await ledger(sara.id)).toHaveLength(1);
    await h.service.core.admin.setBlocked(String(sara.id), false, "test");
    expect(app.errors, app.errors.join("\n")).toEqual([]);
    await app.close();

    // In Russian, in the dark theme, outside Telegram: the same offer, readable.
    const rita = await user(697_100_002, "rita_r", 0, "ru");
    const ru = await openMiniApp(browser, base, rita, { theme: DARK });
    await ru.page.getByTestId("wallet-topup").click();
    await expect.poll(() => ru.page.getByTestId("stars-topup").locator("h2").textContent()).toBe("Оплата звёздами Telegram");
    expect(await ru.page.getByTestId("stars-pay").textContent()).toBe("Оплатить 100 ⭐");
    await shot(ru.page, "stars-topup-dark-ru", { fullPage: true });
    expect(ru.errors, ru.errors.join("\n")).toEqual([]);
    await ru.close();
  }, 90_000);

  it("buys with the balance short in one step: the fewest Stars (at least the smallest top-up) paid, then the same order placed once", async () => {
    const tom = await user(697_100_003, "tom_t", 1);
    const app = await openMiniApp(browser, base, tom, { telegram: true, theme: DARK, emulatorUrl: bots.emulatorUrl });
    const { page } = app;
    await expect.poll(() => page.getByTestId("balance").textContent()).toContain("1.00 USDT");
    // 100 stars cost 1.50 USDT: 0.50 short, and the smallest Stars top-up (100 Stars, 1.00 USDT) covers it.
    await page.getByTestId("pack-100").click();
    await page.getByTestId("recipient-myself").click();
    await expect.poll(() => page.getByTestId("quote").textContent()).toContain("Charge: 1.50 USDT");
    // The balance after both: 1.00 + 1.00 credited − 1.50.
    expect(await page.getByTestId("quote").textContent()).toContain("balance after: 0.50 USDT");
    expect(await page.getByTestId("shortfall").textContent()).toBe(
      "Your balance is 0.50 USDT short. 100 ⭐ credit 1.00 USDT, then this order is placed, once.",
    );
    await mainButtonReady(page, "Top up 100 ⭐ and buy");
    await page.getByTestId("quote").scrollIntoViewIfNeeded();
    await shot(page, "stars-shortfall-dark", { fullPage: true });
    // Telegram's MainButton pressed twice: one payment, one order.
    await press(page, "main_button_pressed");
    await press(page, "main_button_pressed");
    await expect.poll(() => page.getByTestId("order-status").textContent(), { timeout: 15_000 }).toBe("✅ Delivered");
    expect(app.invoices.map((i) => i.attempt.status)).toEqual(["paid"]);
    const orders = await h.service.db
      .selectFrom("orders")
      .select(["product_type", "status", "charge_micro"])
      .where("account_id", "=", (await account(tom.id)).id)
      .execute();
    expect(orders).toEqual([{ product_type: "stars", status: "completed", charge_micro: 1_500_000 }]);
    expect(await balance(tom.id)).toBe(500_000);
    expect((await ledger(tom.id)).map((e) => [e.kind, Number(e.amount_micro)])).toEqual([
      ["credit", 1_000_000],
      ["topup", 1_000_000],
      ["charge", -1_500_000],
    ]);
    await shot(page, "stars-shortfall-bought", { fullPage: true });
    expect(app.errors, app.errors.join("\n")).toEqual([]);
    await app.close();
  }, 60_000);

  it("buys at the same charge when the quote lapsed while the Stars were paid; a moved price is said and the credit stays", async () => {
    // While Telegram's form is open the quote lapses (the service's clock moves past it), and for a second buyer
    // the price goes up too (a personal gift card markup).
    let meanwhile = async () => h.clock.advance(120_000);
    const pay = { telegram: true, emulatorUrl: bots.emulatorUrl, whilePaying: () => meanwhile() };
    const ava = await user(697_100_004, "ava_a", 1);
    const lapsed = await openMiniApp(browser, base, ava, pay);
    try {
      await expect.poll(() => lapsed.page.getByTestId("balance").textContent()).toContain("1.00 USDT");
      await lapsed.page.getByTestId("pack-100").click();
      await lapsed.page.getByTestId("recipient-myself").click();
      await expect.poll(() => lapsed.page.getByTestId("quote").textContent()).toContain("Charge: 1.50 USDT");
      await mainButtonReady(lapsed.page, "Top up 100 ⭐ and buy");
      await press(lapsed.page, "main_button_pressed");
      await expect.poll(() => lapsed.page.getByTestId("order-status").textContent(), { timeout: 15_000 }).toBe("✅ Delivered");
      const orders = await h.service.core.orders.list((await account(ava.id)).id, 5);
      expect(orders.map((o) => [o.productType, o.chargeMicro])).toEqual([["stars", 1_500_000]]);
      expect(await balance(ava.id)).toBe(500_000);
      // The browser logs the lapsed quote's refusal (400) the page answered by asking again; nothing else.
      const unexpected = lapsed.errors.filter((e) => !e.includes("status of 400"));
      expect(unexpected, unexpected.join("\n")).toEqual([]);
    } finally {
      h.clock.reset();
      await lapsed.close();
    }

    const ben = await user(697_100_005, "ben_b", 10);
    meanwhile = async () => {
      await h.service.core.admin.setMarkup(String(ben.id), "giftcards", 2000, "test");
      h.clock.advance(120_000);
    };
    const moved = await openMiniApp(browser, base, ben, pay);
    const { page } = moved;
    try {
      await expect.poll(() => page.getByTestId("balance").textContent()).toContain("10.00 USDT");
      await page.getByTestId("brand-psn-us").click();
      await page.getByTestId("card-psn-us-10").click();
      await mainButtonReady(page, /^Top up \d+ ⭐ and buy$/);
      const before = /Charge: (\d+\.\d+) USDT/.exec((await page.getByTestId("quote").textContent())!)![1];
      const setupsBefore = (await sent(page, "web_app_setup_main_button")).length;
      await press(page, "main_button_pressed");
      await expect
        .poll(() => page.getByTestId("price-moved").textContent(), { timeout: 15_000 })
        .toMatch(/^The price changed while you paid: it is now \d+\.\d{2,6} USDT\. Your top-up is on your balance; confirm the new price to buy\.$/);
      // The new price's button was shown disabled first (a loading indicator while the Stars were paid): a press
      // counts only once it has been read.
      const since = (await sent(page, "web_app_setup_main_button")).slice(setupsBefore) as Array<{
        is_active: boolean;
        is_progress_visible: boolean;
      }>;
      expect(since[0]).toMatchObject({ is_active: false, is_progress_visible: true });
      expect(since.find((s) => !s.is_progress_visible)).toMatchObject({ is_active: false });
      const now = /now (\d+\.\d+) USDT/.exec((await page.getByTestId("price-moved").textContent())!)![1];
      expect(Number(now)).toBeGreaterThan(Number(before));
      // Nothing bought; the credit is on the balance, and the new price is asked against it.
      expect(await h.service.core.orders.list((await account(ben.id)).id, 5)).toEqual([]);
      expect(await balance(ben.id)).toBe(11_000_000);
      expect(await page.getByTestId("quote").textContent()).toContain(`Charge: ${now} USDT`);
      expect(await page.getByTestId("shortfall").textContent()).toContain(`Your balance is ${(Number(now) - 11).toFixed(2)}`);
      await page.getByTestId("quote").scrollIntoViewIfNeeded();
      await shot(page, "stars-price-moved");
      expect(moved.invoices.map((i) => i.attempt.status)).toEqual(["paid"]);
      expect(moved.errors.filter((e) => !e.includes("status of 400"))).toEqual([]);
    } finally {
      h.clock.reset();
      await h.service.core.admin.setMarkup(String(ben.id), "giftcards", null, "test");
      await moved.close();
    }
  }, 90_000);

  it("lets the desk refund a Stars top-up after a confirmation, and refuses, saying why, one whose credit is spent", async () => {
    const { chat, telegramId } = await bots.registered(0, { username: "uma_u" });
    const who = Number(telegramId);
    const pay = async (stars: number) => {
      const made = await h.service.core.topups.starsLink(await account(who), stars);
      expect((await chat.pay(made.link)).status).toBe("paid");
      return made.topup;
    };
    const first = await pay(200);
    const second = await pay(300);
    await eventually(async () => ((await balance(who)) === 5_000_000 ? true : undefined));

    const desk = await openMiniApp(browser, base, { id: ADMIN, first_name: "Ann", username: "ann_admin" }, { theme: DARK });
    const { page } = desk;
    await page.getByRole("button", { name: "🛠 Admin desk" }).click();
    await page.getByLabel("Telegram id, @username or key prefix").fill("@uma_u");
    await page.getByRole("button", { name: "Find", exact: true }).click();
    const rows = page.getByTestId("user-stars-topups").getByTestId("stars-topup-row");
    await expect.poll(() => rows.count()).toBe(2);
    const row = rows.filter({ hasText: `#${first.id} ·` });
    expect(await row.locator("p").first().textContent()).toContain(`#${first.id} · 200 ⭐ · 2.00 USDT · credited`);
    await row.getByTestId("refund").click();
    expect(await row.getByTestId("refund-ask").textContent()).toBe(
      `Refund 200 ⭐ to ${telegramId} @uma_u? 2.00 USDT is taken off their balance and Telegram gives the Stars back.`,
    );
    // Nothing happens before the confirmation.
    expect(await balance(who)).toBe(5_000_000);
    await row.scrollIntoViewIfNeeded();
    await shot(page, "stars-desk-refund-ask");
    await row.getByTestId("refund-confirm").click();
    await expect.poll(() => row.getByTestId("refund-outcome").textContent()).toBe("↩ Refunded: 200 ⭐ given back, 2.00 USDT taken off the balance.");
    expect(await balance(who)).toBe(3_000_000);
    expect(await row.getByTestId("refund").count()).toBe(0);
    await expect.poll(() => page.getByTestId("user").textContent()).toContain("Balance: 3.00 USDT");
    // Telegram gave the Stars back: the user's chat shows the refund.
    await eventually(async () => ((await chat.messages()).some((m) => m.refunded_payment) ? true : undefined));

    // The second top-up's credit is spent: the refund is refused, saying so, and nothing changes.
    await h.service.core.admin.debit(telegramId, micro(2_500_000), "test", { note: "spent" });
    await page.getByLabel("Top-up id").fill(String(second.id));
    await page.getByRole("button", { name: "Look up" }).click();
    const found = page.getByTestId("stars-refund").getByTestId("stars-topup-row");
    await found.getByTestId("refund").click();
    await found.getByTestId("refund-confirm").click();
    await expect
      .poll(() => found.getByTestId("refund-outcome").textContent())
      .toBe("Its credit is already spent: the refund needs 3.00 USDT and the balance is 0.50 USDT. Nothing changed.");
    await found.scrollIntoViewIfNeeded();
    await shot(page, "stars-desk-refund-spent");
    expect(await balance(who)).toBe(500_000);
    expect((await topups(who)).map((t) => t.status)).toEqual(["refunded", "credited"]);
    expect(await new EmulatedStars(bots.emulatorUrl).paymentAttempts()).toEqual(
      expect.arrayContaining([expect.objectContaining({ user_id: who, total_amount: 300, status: "paid" })]),
    );
    // The browser logs the refused refund's 400; nothing else.
    const unexpected = desk.errors.filter((e) => !e.includes("status of 400"));
    expect(unexpected, unexpected.join("\n")).toEqual([]);
    await desk.close();
  }, 60_000);
});

describe("the Mini App's Stars routes refuse bad input", () => {
  it("a Stars top-up: no session, not a whole number of Stars, outside the offer: a 4xx and no top-up", async () => {
    const vic = await user(697_100_010, "vic_v");
    const headers = await sessionOf(h.call, vic);
    const { key } = await h.newKey(0, "697100011");
    const before = await topups(vic.id);
    const post = (body: unknown, extra: Record<string, string> = headers) => h.call("POST", "/miniapp/topups/stars", { body, headers: extra });
    expect((await post({ stars: 100 }, {})).status).toBe(401);
    expect((await post({ stars: 100 }, { "x-api-key": key })).status).toBe(401);
    for (const [body, error] of [
      [{}, /stars/],
      [{ stars: "100" }, /stars must be a whole number/],
      [{ stars: 150.5 }, /stars must be a whole number/],
      [{ stars: 0 }, /stars must be more than 0/],
      [{ stars: -5 }, /stars must be more than 0/],
      [{ stars: 99 }, /from 100 to 10000 Stars/],
      [{ stars: 10_001 }, /from 100 to 10000 Stars/],
      [{ stars: 1e9 }, /at most 1000000/],
    ] as const) {
      const answer = await post(body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatch(error);
    }
    expect(await topups(vic.id)).toEqual(before);
    // The good one answers the link and the top-up it is for.
    const made = await post({ stars: 100 });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      link: expect.stringMatching(/^https:\/\/t\.me\/\$/),
      topup: { method: "stars", status: "active", stars: 100, amount_usdt: 1 },
    });
    const me = await h.call("GET", "/miniapp/me", { headers });
    expect(me.body.stars_topup).toMatchObject({
      usdt_per_star: 0.01,
      min_stars: 100,
      max_stars: 10_000,
      packs: expect.arrayContaining([{ stars: 100, amount_usdt: 1 }]),
    });
  });

  it("the desk's Stars refund: administrators only, a top-up id, a confirmation, a Stars top-up paid: else a 4xx and nothing changed", async () => {
    const { chat, telegramId } = await bots.registered(0, { username: "wes_w" });
    const made = await h.service.core.topups.starsLink(await account(Number(telegramId)), 100);
    expect((await chat.pay(made.link)).status).toBe("paid");
    await eventually(async () => ((await balance(Number(telegramId))) === 1_000_000 ? true : undefined));
    const crypto = await h.call("POST", "/v1/topups", { key: (await h.newKey(0, "697100021")).key, body: { amount_usdt: 5, method: "invoice" } });
    const admin = await sessionOf(h.call, { id: ADMIN, first_name: "Ann" });
    const nobody = await sessionOf(h.call, await user(697_100_020, "not_admin"));
    const entriesBefore = await ledger(Number(telegramId));
    const refund = (id: string | number, body: unknown, headers = admin) => h.call("POST", `/miniapp/admin/topups/${id}/refund`, { body, headers });

    expect((await refund(made.topup.id, { confirmed: true }, nobody)).status).toBe(403);
    expect((await h.call("GET", `/miniapp/admin/topups/${made.topup.id}`, { headers: nobody })).status).toBe(403);
    expect((await h.call("GET", `/miniapp/admin/users/${telegramId}/stars-topups`, { headers: nobody })).status).toBe(403);
    for (const [id, body, status, error] of [
      ["abc", { confirmed: true }, 400, /topup_id must be a whole number/],
      ["0", { confirmed: true }, 400, /topup_id must be a whole number/],
      [made.topup.id, {}, 400, /confirmed/],
      [made.topup.id, { confirmed: false }, 400, /confirmed must be true/],
      [999_999_999, { confirmed: true }, 404, /not found/],
      [crypto.body.topup.topup_id, { confirmed: true }, 400, /was not paid in Telegram Stars: only a Stars top-up is refunded in Stars/],
    ] as const) {
      const answer = await refund(id, body);
      expect(answer.status, `${id} ${JSON.stringify(body)}`).toBe(status);
      expect(answer.body.error).toMatch(error);
    }
    expect((await h.call("GET", "/miniapp/admin/topups/x1", { headers: admin })).status).toBe(400);
    expect((await h.call("GET", "/miniapp/admin/users/abc/stars-topups", { headers: admin })).status).toBe(400);
    expect((await h.call("GET", "/miniapp/admin/users/697199998/stars-topups", { headers: admin })).status).toBe(404);
    expect(await ledger(Number(telegramId))).toEqual(entriesBefore);
    expect((await topups(Number(telegramId)))[0].status).toBe("credited");

    // Refunded once; a second refund is refused, saying so.
    expect((await refund(made.topup.id, { confirmed: true })).body).toMatchObject({ topup: { status: "refunded" }, reversed_usdt: 1 });
    const again = await refund(made.topup.id, { confirmed: true });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("That top-up was refunded already: nothing changed.");
    expect(await balance(Number(telegramId))).toBe(0);
    const listed = await h.call("GET", `/miniapp/admin/users/${telegramId}/stars-topups`, { headers: admin });
    expect(listed.body.topups.map((t: { topup: { status: string } }) => t.topup.status)).toEqual(["refunded"]);
  });
});
