import { z } from "zod";

// JSON Schemas (draft 2020-12) of Reloadly's Gift Cards API answers, written down from its published documents as
// docs/providers/reloadly-giftcards.md cites them (the ids R1 to R10 are that file's "Sources"):
//   R3  Reloadly/reloadly-api-documentation @ c774a73, openapi/components/schemas/{authentication,giftcards}/…
//   R6  Reloadly/reloadly-sdk-java @ bb0d890: GiftcardProduct, GiftcardTransaction, GiftcardInfo, Page, APIError
//   R7  recorded real answers in ubiquity/pay.ubq.fi @ eba963d~1, tests/fixtures/…
//   R4, R5  the balance (gift-card OpenAPI accounts-balance.yaml; Reloadly's blog)
// Objects are closed (additionalProperties: false): an answer may hold only what a published source shows. A field
// only the newer sources show (R7, R9) is optional; what every source shows is required. The test of the simulator
// (test/simulator/reloadly.test.ts) checks each answer against these.

type Schema = Record<string, unknown>;
type JsonSchema = Parameters<typeof z.fromJSONSchema>[0];

const string = { type: "string" };
const integer = { type: "integer" };
const number = { type: "number" };
const boolean = { type: "boolean" };
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
/** Reloadly's `yyyy-MM-dd HH:mm:ss` (R3 examples, R6, R7). */
const time = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$" };

function object(required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return { type: "object", required: Object.keys(required), properties: { ...required, ...optional }, additionalProperties: false };
}

/** POST https://auth.reloadly.com/oauth/token, 200 (R3 AccessTokenResponse200; R2; R6 fixture). */
const token = object({
  access_token: { type: "string", pattern: "^[\\w-]+\\.[\\w-]+\\.[\\w-]+$" },
  scope: string,
  expires_in: integer,
  token_type: string,
});

/** Every error (R3 401/400 schemas, R6 APIError). */
const error = object({
  timeStamp: time,
  message: string,
  path: string,
  errorCode: nullable(string),
  infoLink: nullable(string),
  details: { type: "array" },
});

/** A URL or representation the host has not got: the framework's body (R3 404 examples). */
const frameworkError = object({ timeStamp: time, status: integer, error: string, message: string, path: string });

const brand = object({ brandId: integer, brandName: string });

/** A product (R3 schema/examples, R6 GiftcardProduct, R7 2024 production answer). */
const product = object(
  {
    productId: integer,
    productName: string,
    global: boolean,
    senderFee: number,
    discountPercentage: number,
    denominationType: { enum: ["FIXED", "RANGE"] },
    recipientCurrencyCode: { type: "string", pattern: "^[A-Z]{3}$" },
    minRecipientDenomination: nullable(number),
    maxRecipientDenomination: nullable(number),
    senderCurrencyCode: { type: "string", pattern: "^[A-Z]{3}$" },
    minSenderDenomination: nullable(number),
    maxSenderDenomination: nullable(number),
    fixedRecipientDenominations: { type: "array", items: number },
    fixedSenderDenominations: nullable({ type: "array", items: number }),
    // The object form of R5, the R6 fixture and R7 (R3 types it as an array of one-key objects).
    fixedRecipientToSenderDenominationsMap: nullable({ type: "object", additionalProperties: number }),
    logoUrls: { type: "array", items: string },
    brand,
    country: object({ isoName: { type: "string", pattern: "^[A-Z]{2}$" }, name: string, flagUrl: string }),
    redeemInstruction: object({ concise: string, verbose: string }),
  },
  {
    status: string, // R7, R9
    supportsPreOrder: boolean, // R7
    senderFeePercentage: number, // R7, R9
    metadata: nullable({ type: "object" }), // R7
    category: object({ id: integer, name: string }), // R7, R9
    additionalRequirements: object({ userIdRequired: boolean }), // R7, R9
  },
);

/** Spring's page (R6 Page, fixture products_paged_unfiltered_response.json; R7). */
const sort = object({ sorted: boolean, unsorted: boolean, empty: boolean });
const page = (item: Schema) =>
  object({
    content: { type: "array", items: item },
    pageable: object({ sort, pageNumber: integer, pageSize: integer, offset: integer, paged: boolean, unpaged: boolean }),
    totalPages: integer,
    last: boolean,
    totalElements: integer,
    sort,
    first: boolean,
    numberOfElements: integer,
    size: integer,
    number: integer,
    empty: boolean,
  });

/** The answer of POST /orders and of the transaction reports (R3 OrderAGiftCardResponse200, R6 GiftcardTransaction, R7). */
const transaction = object(
  {
    transactionId: integer,
    amount: number,
    discount: number,
    currencyCode: string,
    fee: number,
    smsFee: number,
    recipientEmail: nullable(string),
    recipientPhone: nullable(string),
    customIdentifier: string,
    // R6 GiftCardTransactionStatus
    status: { enum: ["SUCCESSFUL", "PENDING", "PROCESSING", "FAILED", "REFUNDED"] },
    transactionCreatedTime: time,
    product: object({
      productId: integer,
      productName: string,
      countryCode: string,
      quantity: integer,
      unitPrice: number,
      totalPrice: number,
      currencyCode: string,
      brand,
    }),
  },
  {
    totalFee: number, // R7, R9
    preOrdered: boolean, // R7, R9
    balanceInfo: object({ oldBalance: number, newBalance: number, cost: number, currencyCode: string, currencyName: string, updatedAt: time }), // R7, R9
  },
);

/** GET /orders/transactions/{id}/cards: one element per card (R6 GiftcardInfo and fixture, R7 production fixture). */
const cards = { type: "array", items: object({ cardNumber: string, pinCode: string }) };

/** GET /accounts/balance (R4 accounts-balance.yaml, R5, R3 schema). */
const balance = object({ balance: number, currencyCode: string, currencyName: string, updatedAt: time });

export const RELOADLY_SCHEMAS = {
  token,
  error,
  frameworkError,
  product,
  productPage: page(product),
  productList: { type: "array", items: product },
  transaction,
  transactionPage: page(transaction),
  cards,
  balance,
} as const;

const validators = Object.fromEntries(
  Object.entries(RELOADLY_SCHEMAS).map(([name, schema]) => [
    name,
    z.fromJSONSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", ...schema } as JsonSchema),
  ]),
) as Record<keyof typeof RELOADLY_SCHEMAS, z.ZodType>;

/** The problems of `value` against the published shape `name`: [] when it conforms. */
export function reloadlyProblems(name: keyof typeof RELOADLY_SCHEMAS, value: unknown): string[] {
  const result = validators[name].safeParse(value);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
}
