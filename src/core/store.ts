import type { Caller } from "./accounts.js";
import { DomainError, invalid } from "./errors.js";
import { type MarkupDefaults, markupOf, type StoreQuote, storeQuote } from "./markup.js";
import type { Micro } from "./money.js";
import type { Orders, Placed } from "./orders.js";
import type { StoreLimits, StorePort } from "./ports.js";

export interface StoreRequest {
  login: string;
  amountUsd: number;
  idempotencyKey: string | null;
}

export interface StoreDetails {
  store_login: string;
  amount_micro: Micro;
  fee_micro: Micro;
  cost_micro: Micro;
  markup_bp: number;
  markup_micro: Micro;
}

const EXAMPLE_AMOUNTS_USD = [5, 10, 25, 50, 100];
const LOGIN = /^[A-Za-z0-9_.-]{3,64}$/;
const CUSTOM_ID_LINK = /^(?:https?:\/\/)?[A-Za-z0-9.-]+\/id\/([A-Za-z0-9_.-]{3,64})\/?$/;
const NUMERIC_ID_LINK = /\/profiles\/\d+\/?$/;

/** A plain login or a custom-id profile link becomes the login; e-mail addresses and numeric-id links are refused. */
export function normaliseLogin(input: string): string {
  const text = input.trim();
  const refuse = (why: string) => invalid(why, "login_not_supported");
  if (text.includes("@")) throw refuse("An e-mail address is not a store login: send the account login");
  if (NUMERIC_ID_LINK.test(text)) throw refuse("A numeric-id profile link is not supported: send the account login or a custom-id profile link");
  const link = CUSTOM_ID_LINK.exec(text);
  if (link) return link[1];
  if (LOGIN.test(text)) return text;
  throw refuse("login must be the account login (letters, digits, . _ -) or a custom-id profile link");
}

/** A nominal in USD with at most 2 decimals, to micro; the live limits are checked separately. */
export function nominalMicro(amountUsd: number): Micro {
  const cents = amountUsd * 100;
  if (!Number.isFinite(cents) || cents <= 0 || Math.abs(cents - Math.round(cents)) > 1e-6 || cents > 1e12) {
    throw invalid("amount_usd must be a positive amount with at most 2 decimals", "invalid_amount");
  }
  return Math.round(cents) * 10_000;
}

export function createStore(store: StorePort, orders: Orders, markups: MarkupDefaults, enabled: boolean) {
  async function liveLimits(): Promise<StoreLimits> {
    if (!enabled || !store.configured) throw new DomainError("unavailable", "Store top-ups are disabled", { errorCode: "disabled" });
    try {
      return await store.limits();
    } catch {
      throw new DomainError("unavailable", "The store provider is unavailable: retry later", { errorCode: "provider_unavailable" });
    }
  }

  function withinLimits(amountMicro: Micro, limits: StoreLimits) {
    if (amountMicro < limits.minMicro || amountMicro > limits.maxMicro) {
      throw invalid(`amount_usd must be from ${limits.minMicro / 1e6} to ${limits.maxMicro / 1e6}`, "invalid_amount");
    }
  }

  const identifying = (login: string, amountMicro: Micro) => [login.toLowerCase(), amountMicro];

  return {
    enabled: enabled && store.configured,

    /** Live limits, the caller's markup, examples, and a quote for an amount when one is given. */
    async pricing(caller: Caller, amountUsd?: number) {
      const limits = await liveLimits();
      const markupBp = markupOf(caller.account, "store", markups);
      let quote: StoreQuote | null = null;
      if (amountUsd !== undefined) {
        const amountMicro = nominalMicro(amountUsd);
        withinLimits(amountMicro, limits);
        quote = storeQuote(amountMicro, limits.feePpm, markupBp);
      }
      const examples = EXAMPLE_AMOUNTS_USD.map((usd) => usd * 1_000_000)
        .filter((micro) => micro >= limits.minMicro && micro <= limits.maxMicro)
        .map((micro) => storeQuote(micro, limits.feePpm, markupBp));
      return { limits, markupBp, examples, quote };
    },

    /** What the sandbox answers: the validated request and its quote; nothing is stored or charged. */
    async quote(caller: Caller, request: StoreRequest) {
      const login = normaliseLogin(request.login);
      const amountMicro = nominalMicro(request.amountUsd);
      const limits = await liveLimits();
      withinLimits(amountMicro, limits);
      return { login, quote: storeQuote(amountMicro, limits.feePpm, markupOf(caller.account, "store", markups)) };
    },

    async buy(caller: Caller, request: StoreRequest): Promise<Placed> {
      const login = normaliseLogin(request.login);
      const amountMicro = nominalMicro(request.amountUsd);
      const earlier = await orders.replay(caller, "store", identifying(login, amountMicro), request.idempotencyKey);
      if (earlier) return { order: earlier, replay: true };

      const { quote } = await this.quote(caller, request);
      const details: StoreDetails = {
        store_login: login,
        amount_micro: amountMicro,
        fee_micro: quote.feeMicro,
        cost_micro: quote.costMicro,
        markup_bp: quote.markupBp,
        markup_micro: quote.markupMicro,
      };
      return orders.submit(
        caller,
        {
          productType: "store",
          recipient: login,
          details: { ...details },
          chargeMicro: quote.totalMicro,
          idempotencyKey: request.idempotencyKey,
          identifying: identifying(login, amountMicro),
        },
        (order) => store.order({ reference: order.upstream_ref, login, amountMicro }),
      );
    },
  };
}

export type Store = ReturnType<typeof createStore>;
