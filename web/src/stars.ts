// A top-up paid in Telegram Stars from the Mini App: the service makes the invoice's link, Telegram's own payment form
// takes the Stars (openInvoice), and the bot credits the balance when Telegram tells it the payment went through. The
// page only follows: it never credits anything itself, and watches the top-up until the service says it is credited.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Answer, Me, Topup } from "./api.js";
import { exact, toMicro } from "./money.js";
import { telegram } from "./telegram.js";
import { type Ctx, failure } from "./ui.js";

export type StarsOffer = NonNullable<Me["stars_topup"]>;

/** Where a payment in Stars is: nothing yet, the form open, paid and waiting for the credit, or how it ended. */
export type StarsPayment =
  | { kind: "idle" }
  | { kind: "opening"; stars: number }
  | { kind: "paying"; stars: number; topup: Topup }
  | { kind: "crediting"; stars: number; topup: Topup }
  | { kind: "credited"; stars: number; topup: Topup }
  | { kind: "cancelled"; stars: number }
  | { kind: "failed"; stars: number }
  | { kind: "pending"; stars: number; topup: Topup }
  | { kind: "refused"; message: string };

/** What `stars` Stars credit, in whole micro-USDT (the service's rate, as the offer states it). */
export const creditOf = (offer: StarsOffer, stars: number): number => stars * toMicro(offer.usdt_per_star);

/** The fewest Stars whose credit covers `shortMicro`, at least the offer's smallest; null when past its largest. */
export function starsFor(offer: StarsOffer, shortMicro: number): number | null {
  const stars = Math.max(offer.min_stars, Math.ceil(shortMicro / toMicro(offer.usdt_per_star)));
  return stars <= offer.max_stars ? stars : null;
}

/** "1.00 USDT" for a credit in micro-USDT. */
export const creditText = (micro: number) => `${exact(micro)} USDT`;

/** How long a paid top-up is watched at most before the page says the credit will come by itself. */
const WATCH_MS = 120_000;

/**
 * Pays in Stars: the top-up made, Telegram's form opened, then the top-up watched until credited. `pay` resolves with
 * the credited top-up, or null (closed unpaid, failed, refused, or still waiting for Telegram).
 */
export function useStarsPayment(ctx: Ctx) {
  const [state, setState] = useState<StarsPayment>({ kind: "idle" });
  const busy = useRef(false);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  async function watch(topup: Topup, until: number): Promise<Topup | null> {
    let delay = 400;
    while (alive.current && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const now = await ctx.api
        .get<Answer<"getTopup">>(`/v1/topups/${topup.topup_id}`)
        .then((r) => r.topup)
        .catch(() => null);
      // Credited, and maybe refunded since: either way the payment went through.
      if (now && ["credited", "refunding", "refunded"].includes(now.status)) return now;
      delay = Math.min(delay * 1.5, 3000);
    }
    return null;
  }

  async function pay(stars: number): Promise<Topup | null> {
    if (busy.current) return null;
    busy.current = true;
    try {
      setState({ kind: "opening", stars });
      let made: Answer<"miniAppStarsTopup">;
      try {
        made = await ctx.api.post<Answer<"miniAppStarsTopup">>("/miniapp/topups/stars", { stars });
      } catch (error) {
        telegram.haptic("error");
        setState({ kind: "refused", message: failure(ctx.t, error) });
        return null;
      }
      setState({ kind: "paying", stars, topup: made.topup });
      const status = await telegram.openInvoice(made.link);
      if (status === "cancelled" || status === "failed") {
        telegram.haptic(status === "failed" ? "error" : "warning");
        // Closed unpaid: no longer one of the open top-ups a key may hold (a payment already made is still credited).
        if (status === "cancelled") await ctx.api.post(`/v1/topups/${made.topup.topup_id}/cancel`, {}).catch(() => undefined);
        setState({ kind: status, stars });
        return null;
      }
      // Paid (or not known yet): the bot credits it when Telegram's successful_payment reaches it.
      setState({ kind: status === "paid" ? "crediting" : "pending", stars, topup: made.topup });
      const credited = await watch(made.topup, Date.now() + WATCH_MS);
      if (!credited) {
        if (alive.current) setState({ kind: "pending", stars, topup: made.topup });
        return null;
      }
      telegram.haptic("success");
      await ctx.refresh();
      if (alive.current) setState({ kind: "credited", stars, topup: credited });
      return credited;
    } finally {
      busy.current = false;
    }
  }

  return { state, pay, reset: () => setState({ kind: "idle" }) };
}

/** The words for a payment's state, or null when there is nothing to say. */
export function starsPaymentText(ctx: Ctx, state: StarsPayment): { kind: "ok" | "error" | "info"; text: string } | null {
  const { t } = ctx;
  switch (state.kind) {
    case "idle":
      return null;
    case "opening":
      return { kind: "info", text: t.starsOpening(state.stars) };
    case "paying":
      return { kind: "info", text: t.starsPaying(state.stars) };
    case "crediting":
      return { kind: "info", text: t.starsCrediting };
    case "credited":
      return { kind: "ok", text: t.starsCredited(creditText(toMicro(state.topup.credited_usdt ?? state.topup.amount_usdt)), ctx.me.balance_usdt) };
    case "cancelled":
      return { kind: "info", text: t.starsCancelled };
    case "failed":
      return { kind: "error", text: t.starsFailed };
    case "pending":
      return { kind: "info", text: t.starsPending };
    case "refused":
      return { kind: "error", text: state.message };
  }
}
