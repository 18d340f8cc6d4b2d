import type { Caller } from "../accounts.js";
import { DomainError, invalid } from "../model/errors.js";
import { checkStoreLogin } from "../formats.js";
import { type MarkupDefaults, markupOf, storePrice } from "../markup.js";
import { fromUsd, isWholeCents, MAX_MICRO, MAX_USDT, type MicroUsd, microUsd, toUsd, usdAsUsdt } from "../model/money.js";
import type { StoreLimits, StorePort } from "../ports.js";
import { storeProduct, type StoreDetails } from "../model/products.js";
import type { Purchasable, PurchasePipeline } from "../purchase.js";

export interface StoreRequest {
  login: string;
  /** The nominal in micro-USD, as sent: the rules below refuse anything but whole cents. */
  amountMicro: MicroUsd;
}

const EXAMPLE_AMOUNTS_USD = [5, 10, 25, 50, 100];

const LOGIN_REFUSALS = {
  email: "An e-mail address is not a store login: send the account login",
  numeric_link: "A numeric-id profile link is not supported: send the account login or a custom-id profile link",
  pattern: "login must be the account login (letters, digits, . _ -) or a custom-id profile link",
};

/** The login of a store request; an e-mail or a numeric-id link is `login_not_supported`. */
function normaliseLogin(input: string): string {
  const checked = checkStoreLogin(input);
  if (!checked.ok) throw invalid(LOGIN_REFUSALS[checked.why], { reason: "login_not_supported" });
  return checked.login;
}

/** What any nominal must be within, before the live limits are asked: a cent to MAX_USDT. */
const NOMINAL_RANGE = { minMicro: fromUsd(0.01), maxMicro: microUsd(MAX_MICRO) };

const badNominal = () =>
  invalid(`amount_usd must be a positive amount with at most 2 decimals, at most ${MAX_USDT}`, { reason: "invalid_amount", ...NOMINAL_RANGE });

/** A nominal in micro-USD: whole cents, positive, at most MAX_USDT; the live limits are checked separately. */
function checkNominal(amountMicro: MicroUsd): MicroUsd {
  if (!Number.isSafeInteger(amountMicro) || amountMicro <= 0 || !isWholeCents(amountMicro) || amountMicro > MAX_MICRO) throw badNominal();
  return amountMicro;
}

/** The amount within the store's live limits, or `invalid_amount` naming them. */
function checkLiveLimits(amountMicro: MicroUsd, limits: StoreLimits) {
  if (amountMicro < limits.minMicro || amountMicro > limits.maxMicro) {
    throw invalid(`amount_usd must be from ${toUsd(limits.minMicro)} to ${toUsd(limits.maxMicro)}`, {
      reason: "invalid_amount",
      minMicro: limits.minMicro,
      maxMicro: limits.maxMicro,
    });
  }
}

export function createStore({
  store,
  pipeline,
  markups,
  enabled,
}: {
  store: StorePort;
  pipeline: PurchasePipeline;
  markups: MarkupDefaults;
  enabled: boolean;
}) {
  async function liveLimits(): Promise<StoreLimits> {
    if (!enabled || !store.configured) throw new DomainError("unavailable", "Store top-ups are disabled", { reason: "disabled" });
    try {
      return await store.limits();
    } catch {
      throw new DomainError("unavailable", "The store provider is unavailable: retry later", { reason: "provider_unavailable" });
    }
  }

  const product: Purchasable<"store", StoreRequest, StoreDetails> = {
    ...storeProduct,
    identify: (request) => [normaliseLogin(request.login).toLowerCase(), checkNominal(request.amountMicro)],
    async prepare(caller, request) {
      const login = normaliseLogin(request.login);
      const amountMicro = checkNominal(request.amountMicro);
      const limits = await liveLimits();
      checkLiveLimits(amountMicro, limits);
      const price = storePrice(amountMicro, limits.feePpm, markupOf(caller.account, "store", markups));
      return {
        recipient: login,
        chargeMicro: usdAsUsdt(price.totalMicro),
        details: {
          store_login: login,
          amount_micro: amountMicro,
          fee_micro: price.feeMicro,
          cost_micro: price.costMicro,
          markup_bp: price.markupBp,
          markup_micro: price.markupMicro,
        },
        send: (reference) => store.order({ reference, login, amountMicro }),
      };
    },
  };

  return {
    enabled: enabled && store.configured,
    ...pipeline.offer(product),

    /** Live limits, the caller's markup, examples, and a quote for an amount when one is given. */
    async pricing(caller: Caller, amountMicro?: MicroUsd) {
      const limits = await liveLimits();
      const markupBp = markupOf(caller.account, "store", markups);
      const priceOf = (amountMicro: MicroUsd) => storePrice(amountMicro, limits.feePpm, markupBp);
      let quote = null;
      if (amountMicro !== undefined) {
        checkLiveLimits(checkNominal(amountMicro), limits);
        quote = priceOf(amountMicro);
      }
      const examples = EXAMPLE_AMOUNTS_USD.map(fromUsd)
        .filter((micro) => micro >= limits.minMicro && micro <= limits.maxMicro)
        .map(priceOf);
      return { limits, markupBp, examples, quote };
    },
  };
}
