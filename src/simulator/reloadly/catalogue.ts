// The simulated Reloadly catalogue: four products, one FIXED and one RANGE in each of two countries, with the field
// names of Reloadly's product (docs/providers/reloadly-giftcards.md, "Product fields": R3 schema, R6 GiftcardProduct,
// R7 recorded 2024 answers). The account currency is USD; a product priced in another currency converts at `rate`.

export interface Product {
  productId: number;
  productName: string;
  global: boolean;
  status: "ACTIVE";
  supportsPreOrder: boolean;
  senderFee: number;
  senderFeePercentage: number;
  discountPercentage: number;
  denominationType: "FIXED" | "RANGE";
  recipientCurrencyCode: string;
  minRecipientDenomination: number | null;
  maxRecipientDenomination: number | null;
  senderCurrencyCode: string;
  minSenderDenomination: number | null;
  maxSenderDenomination: number | null;
  fixedRecipientDenominations: number[];
  fixedSenderDenominations: number[] | null;
  fixedRecipientToSenderDenominationsMap: Record<string, number> | null;
  metadata: Record<string, unknown> | null;
  logoUrls: string[];
  brand: { brandId: number; brandName: string };
  category: { id: number; name: string };
  country: { isoName: string; name: string; flagUrl: string };
  redeemInstruction: { concise: string; verbose: string };
  additionalRequirements: { userIdRequired: boolean };
}

export const ACCOUNT_CURRENCY = { code: "USD", name: "US Dollar" } as const;

const money = (n: number) => Math.round(n * 100) / 100;

const COUNTRIES = {
  US: { isoName: "US", name: "United States", flagUrl: "https://s3.amazonaws.com/rld-flags/us.svg" },
  GB: { isoName: "GB", name: "United Kingdom", flagUrl: "https://s3.amazonaws.com/rld-flags/gb.svg" },
};

interface Spec {
  productId: number;
  productName: string;
  country: keyof typeof COUNTRIES;
  currency: string;
  /** USD per unit of `currency`. */
  rate: number;
  fee: number;
  feePercent: number;
  discountPercent: number;
  denominations: number[] | { min: number; max: number };
  brand: Product["brand"];
  category: Product["category"];
  logo: string;
  redeem: Product["redeemInstruction"];
}

/** USD per unit of each product's currency: the simulator's own (the published product has no rate field). */
const RATES = new Map<number, number>();

function product(spec: Spec): Product {
  RATES.set(spec.productId, spec.rate);
  const fixed = Array.isArray(spec.denominations) ? spec.denominations : null;
  const range = Array.isArray(spec.denominations) ? null : spec.denominations;
  return {
    productId: spec.productId,
    productName: spec.productName,
    global: false,
    status: "ACTIVE",
    supportsPreOrder: false,
    senderFee: spec.fee,
    senderFeePercentage: spec.feePercent,
    discountPercentage: spec.discountPercent,
    denominationType: fixed ? "FIXED" : "RANGE",
    recipientCurrencyCode: spec.currency,
    minRecipientDenomination: range?.min ?? null,
    maxRecipientDenomination: range?.max ?? null,
    senderCurrencyCode: ACCOUNT_CURRENCY.code,
    minSenderDenomination: range ? money(range.min * spec.rate) : null,
    maxSenderDenomination: range ? money(range.max * spec.rate) : null,
    fixedRecipientDenominations: fixed ?? [],
    fixedSenderDenominations: fixed ? fixed.map((d) => money(d * spec.rate)) : null,
    fixedRecipientToSenderDenominationsMap: fixed ? Object.fromEntries(fixed.map((d) => [d.toFixed(2), money(d * spec.rate)])) : null,
    metadata: null,
    logoUrls: [spec.logo],
    brand: spec.brand,
    category: spec.category,
    country: COUNTRIES[spec.country],
    redeemInstruction: spec.redeem,
    additionalRequirements: { userIdRequired: false },
  };
}

const AMAZON_REDEEM = {
  concise: "Visit www.amazon.com/redeem and enter the Claim Code when prompted.",
  verbose: "To redeem your gift card, visit the Amazon site of the card's country, sign in, choose Redeem a Gift Card and enter the Claim Code.",
};

export const PRODUCTS: readonly Product[] = [
  product({
    productId: 120,
    productName: "Amazon US",
    country: "US",
    currency: "USD",
    rate: 1,
    fee: 0.5,
    feePercent: 0,
    discountPercent: 0.9,
    denominations: [10, 25, 50, 100],
    brand: { brandId: 2, brandName: "Amazon" },
    category: { id: 2, name: "Online Shopping" },
    logo: "https://cdn.reloadly.com/giftcards/simulated-amazon.png",
    redeem: AMAZON_REDEEM,
  }),
  product({
    productId: 18597,
    productName: "Virtual MasterCard International USD US",
    country: "US",
    currency: "USD",
    rate: 1,
    fee: 1,
    feePercent: 2,
    discountPercent: 0,
    denominations: { min: 5, max: 1000 },
    brand: { brandId: 378, brandName: "Mastercard" },
    category: { id: 1, name: "Payment Cards" },
    logo: "https://cdn.reloadly.com/giftcards/simulated-mastercard.png",
    redeem: {
      concise: "Use the virtual prepaid Mastercard online or in stores that accept mobile wallets, within 6 months.",
      verbose:
        "Go to the card's redemption site, enter the code and accept the cardholder agreement to see the card number, expiry date and security code.",
    },
  }),
  product({
    productId: 2,
    productName: "Amazon UK",
    country: "GB",
    currency: "GBP",
    rate: 1.35,
    fee: 0.5,
    feePercent: 0,
    discountPercent: 0.7,
    denominations: [10, 20, 25, 50, 100],
    brand: { brandId: 2, brandName: "Amazon" },
    category: { id: 2, name: "Online Shopping" },
    logo: "https://cdn.reloadly.com/giftcards/simulated-amazon.png",
    redeem: AMAZON_REDEEM,
  }),
  product({
    productId: 3501,
    productName: "Steam UK",
    country: "GB",
    currency: "GBP",
    rate: 1.27,
    fee: 0.3,
    feePercent: 1,
    discountPercent: 0,
    denominations: { min: 5, max: 200 },
    brand: { brandId: 73, brandName: "Steam" },
    category: { id: 4, name: "Gaming" },
    logo: "https://cdn.reloadly.com/giftcards/simulated-steam.png",
    redeem: {
      concise: "Redeem the code in the Steam client: Games, Redeem a Steam Wallet Code.",
      verbose: "Sign in to Steam, open Games and choose Redeem a Steam Wallet Code, then enter the code. UK accounts only.",
    },
  }),
];

/**
 * What one card at `unitPrice` (recipient currency) costs in the account currency, or null when the price is not
 * one the product sells: a FIXED product's listed denominations, a RANGE product's min to max (R3 `unitPrice`).
 */
export function senderPrice(product: Product, unitPrice: number): number | null {
  if (product.denominationType === "FIXED") return product.fixedRecipientToSenderDenominationsMap?.[unitPrice.toFixed(2)] ?? null;
  const cents = Math.round(unitPrice * 100);
  if (Math.abs(cents - unitPrice * 100) > 1e-6) return null;
  if (unitPrice < product.minRecipientDenomination! || unitPrice > product.maxRecipientDenomination!) return null;
  return money(unitPrice * RATES.get(product.productId)!);
}
