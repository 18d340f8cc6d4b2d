import { describe, expect, it } from "vitest";
import * as callbacks from "../../src/bot/callback-data.js";
import {
  adminConfirm,
  CALLBACK_DATA_MAX_BYTES,
  cancelFlow,
  chooseLanguage,
  confirmPurchase,
  lowBalanceToggle,
  menuEntry,
  orderDetail,
  pickOption,
  quantityPreset,
  recipientMyself,
  rotateKey,
  rotateKeyAnswer,
  rotateKeyGrace,
  endKeyGrace,
  shortfallStars,
  skipMessage,
  starsPack,
  starsRefund,
  starsPreset,
  statementExport,
  statementPage,
  storeAmountPreset,
  topupAmount,
  topupApprove,
  topupByStars,
  topupByTransfer,
  topupCancel,
  topupReject,
  webhookNewSecret,
  webhookPing,
  webhookRemove,
  webhookRemoveAnswer,
  webhookRevokePrevious,
} from "../../src/bot/callback-data.js";

/** Buttons already in users' chats carry these strings: each callback must still make them, and still read them. */
const WIRE: Array<[string, { pack(...args: never[]): string; parse(data: string): unknown; filter(): RegExp }, unknown, string]> = [
  ["menu entry", menuEntry, { entry: "stars" }, "menu:stars"],
  ["menu entry", menuEntry, { entry: "giftcards" }, "menu:giftcards"],
  ["menu entry", menuEntry, { entry: "topup" }, "menu:topup"],
  ["menu entry", menuEntry, { entry: "language" }, "menu:language"],
  ["rotate key", rotateKey, undefined, "key:rotate"],
  ["rotate key: yes", rotateKeyAnswer, { yes: true }, "key:rotate:yes"],
  ["rotate key: no", rotateKeyAnswer, { yes: false }, "key:rotate:no"],
  ["rotate key with a grace", rotateKeyGrace, { hours: 24 }, "key:grace:24"],
  ["end the keys' grace", endKeyGrace, undefined, "key:endgrace"],
  ["low balance toggle", lowBalanceToggle, undefined, "lowbal:toggle"],
  ["order detail", orderDetail, { id: 42 }, "order:42"],
  ["language", chooseLanguage, { language: "ru" }, "lang:ru"],
  ["statement page", statementPage, { before: 1234 }, "stmt:1234"],
  ["statement export", statementExport, { range: "last-month" }, "stmtcsv:last-month"],
  ["statement export", statementExport, { range: "30d" }, "stmtcsv:30d"],
  ["webhook ping", webhookPing, undefined, "wh:ping"],
  ["webhook secret", webhookNewSecret, undefined, "wh:secret"],
  ["webhook revoke", webhookRevokePrevious, undefined, "wh:revoke"],
  ["webhook remove", webhookRemove, undefined, "wh:remove"],
  ["webhook remove: yes", webhookRemoveAnswer, { yes: true }, "wh:remove:yes"],
  ["webhook remove: no", webhookRemoveAnswer, { yes: false }, "wh:remove:no"],
  ["top-up amount", topupAmount, { usdt: 25 }, "tp:25"],
  ["top-up by transfer", topupByTransfer, undefined, "tp:transfer"],
  ["top-up cancel", topupCancel, { id: 7 }, "tp:cancel:7"],
  ["top-up approve", topupApprove, { confirmed: false, id: 7 }, "tq:ok:7"],
  ["top-up approve, confirmed", topupApprove, { confirmed: true, id: 7 }, "tq:okc:7"],
  ["top-up reject", topupReject, { id: 7 }, "tq:no:7"],
  ["top-up by stars", topupByStars, undefined, "tp:stars"],
  ["stars pack", starsPack, { stars: 250 }, "tps:250"],
  ["stars refund", starsRefund, { go: true, id: 7 }, "rf:ok:7"],
  ["stars refund dropped", starsRefund, { go: false, id: 7 }, "rf:no:7"],
  ["admin confirm", adminConfirm, { go: true, token: "1a2b3c4d-5e6" }, "adm:ok:1a2b3c4d-5e6"],
  ["admin drop", adminConfirm, { go: false, token: "1a2b3c4d-5e6" }, "adm:no:1a2b3c4d-5e6"],
  ["flow cancel", cancelFlow, undefined, "cancel"],
  ["option", pickOption, { index: 3 }, "o:3"],
  ["myself", recipientMyself, undefined, "me"],
  ["stars preset", starsPreset, { stars: 250 }, "n:250"],
  ["store amount preset", storeAmountPreset, { usd: 50 }, "a:50"],
  ["quantity preset", quantityPreset, { quantity: 2 }, "q:2"],
  ["skip", skipMessage, undefined, "skip"],
  ["confirm purchase", confirmPurchase, { key: "9f8e7d6c", round: 1 }, "ok:9f8e7d6c:1"],
  ["shortfall in stars", shortfallStars, { key: "9f8e7d6c", round: 1 }, "okst:9f8e7d6c:1"],
];

describe("callback data", () => {
  it.each(WIRE)("%s: packs to the same string as before, and reads it back", (_name, callback, payload, data) => {
    const pack = callback.pack as (payload?: unknown) => string;
    expect(pack(payload)).toBe(data);
    expect(callback.parse(data)).toEqual(payload ?? {});
    expect(callback.filter().test(data)).toBe(true);
  });

  it("pins every callback the module defines", () => {
    const defined = Object.values(callbacks).filter((value) => typeof value === "object");
    const pinned = new Set(WIRE.map(([, callback]) => callback));
    expect(defined.filter((callback) => !pinned.has(callback as never))).toEqual([]);
  });

  it("stays within Telegram's 64 bytes at the largest values, and refuses data beyond", () => {
    const largest = [
      orderDetail.pack({ id: Number.MAX_SAFE_INTEGER }),
      topupCancel.pack({ id: Number.MAX_SAFE_INTEGER }),
      topupApprove.pack({ confirmed: true, id: Number.MAX_SAFE_INTEGER }),
      statementPage.pack({ before: 999_999_999_999_999 }),
      statementExport.pack({ range: "last-month" }),
      adminConfirm.pack({ go: true, token: "0123456789ab" }),
      confirmPurchase.pack({ key: "01234567", round: 1_000_000 }),
      menuEntry.pack({ entry: "giftcards" }),
    ];
    for (const data of largest) expect(Buffer.byteLength(data)).toBeLessThanOrEqual(CALLBACK_DATA_MAX_BYTES);
    expect(() => menuEntry.pack({ entry: "x".repeat(CALLBACK_DATA_MAX_BYTES) })).toThrow(/64 bytes/);
    expect(() => menuEntry.pack({ entry: "two words" })).toThrow(/shape/);
  });

  it("tells one shape from another that shares its prefix", () => {
    expect(rotateKey.parse("key:rotate:yes")).toBeUndefined();
    expect(rotateKeyAnswer.parse("key:rotate")).toBeUndefined();
    expect(rotateKeyGrace.parse("key:grace:2")).toBeUndefined();
    expect(endKeyGrace.parse("key:grace:1")).toBeUndefined();
    expect(topupAmount.parse("tp:transfer")).toBeUndefined();
    expect(topupAmount.parse("tp:cancel:7")).toBeUndefined();
    expect(topupAmount.parse("tp:stars")).toBeUndefined();
    expect(confirmPurchase.parse("okst:9f8e7d6c:1")).toBeUndefined();
    expect(topupApprove.parse("tq:no:7")).toBeUndefined();
    expect(topupReject.parse("tq:ok:7")).toBeUndefined();
    expect(menuEntry.filter({ entry: "balance" }).test("menu:balances")).toBe(false);
    expect(topupApprove.filter({ confirmed: true }).test("tq:ok:7")).toBe(false);
  });
});
