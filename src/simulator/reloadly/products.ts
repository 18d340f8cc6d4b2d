import type { FastifyInstance, FastifyRequest } from "fastify";
import { type Product, PRODUCTS } from "./catalogue.js";
import { page } from "./page.js";
import { hostPath, reloadlyError } from "./state.js";

// The catalogue calls (docs/providers/reloadly-giftcards.md, "Products"): GET /products (a page), GET
// /products/{productId}, GET /countries/{countryCode}/products (a bare array), with the documented filters.

interface Filters {
  productName?: string;
  countryCode?: string;
  includeRange?: string;
  includeFixed?: string;
  productCategoryId?: string;
}

function filtered(query: Filters): Product[] {
  const name = query.productName?.toLowerCase();
  return PRODUCTS.filter(
    (p) =>
      (!name || p.productName.toLowerCase().includes(name)) &&
      (!query.countryCode || p.country.isoName === query.countryCode.toUpperCase()) &&
      (query.includeRange !== "false" || p.denominationType !== "RANGE") &&
      (query.includeFixed !== "false" || p.denominationType !== "FIXED") &&
      (!query.productCategoryId || String(p.category.id) === query.productCategoryId),
  );
}

export const PRODUCT_NOT_FOUND = "The product was either not found or is no longer available, Please contact support";

export function productRoutes(app: FastifyInstance, prefix: string): void {
  const path = (request: FastifyRequest) => hostPath(request, prefix);

  app.get<{ Querystring: Filters & { page?: string; size?: string } }>("/products", async (request) => page(filtered(request.query), request.query));

  // R3 and R8 answer errorCode null; R7's 2024 answer names it PRODUCT_NOT_FOUND: the newer is followed.
  app.get<{ Params: { productId: string } }>("/products/:productId", async (request, reply) => {
    const product = PRODUCTS.find((p) => String(p.productId) === request.params.productId);
    return product ?? reloadlyError(reply, 400, path(request), PRODUCT_NOT_FOUND, "PRODUCT_NOT_FOUND");
  });

  app.get<{ Params: { countryCode: string }; Querystring: Filters }>("/countries/:countryCode/products", async (request, reply) => {
    const code = request.params.countryCode;
    if (!/^[A-Za-z]{2}$/.test(code))
      return reloadlyError(reply, 404, path(request), "Country not found and/or not currently supported", "COUNTRY_NOT_SUPPORTED");
    const products = filtered({ ...request.query, countryCode: code });
    if (products.length) return products;
    // R7 (2024) answers 404 where R8 (2021) answered 400: the newer is followed.
    return reloadlyError(
      reply,
      404,
      path(request),
      "No products were found for the given country code. For a list of valid country codes visit https://www.nationsonline.org/oneworld/country_code_list.htm",
    );
  });
}
