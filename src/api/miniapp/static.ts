import { existsSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import fp from "fastify-plugin";

const MINIAPP_PAGE = "/app/";

/**
 * The page's policy: its own scripts and styles only (no inline script, no eval), calls to this service only,
 * images from anywhere over HTTPS (avatars, gift previews); framed by Telegram's web client.
 */
const MINIAPP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self' https://web.telegram.org https://*.telegram.org",
].join("; ");

/**
 * The page and its assets are public and never rate-limited: a page load fetches several files, and counting them
 * in the per-address bucket that sign-in shares starved sign-in (70 loads a minute met 429). Must be registered
 * before the rate limiter: its onRoute hook reads a route's config as the route is added, before any hook of the
 * page's own scope runs.
 */
export const publicMiniAppPage = fp(
  (app: FastifyInstance, _options: object, done: () => void) => {
    app.addHook("onRoute", (route) => {
      if (!route.url.startsWith(MINIAPP_PAGE)) return;
      route.config = { ...(route.config as object), public: true, rateLimit: false } as typeof route.config;
    });
    done();
  },
  { name: "public-miniapp-page", fastify: "5.x" },
);

/**
 * Serves the Mini App's built front end (`npm run build` writes it to dist/web) at /app/: no key (the page signs
 * in by Telegram's init data), the strict CSP, hashed assets cached for a year and the page itself revalidated
 * (its ETag and Last-Modified). Each text file is sent as the build compressed it (its `.br` or `.gz` twin, chosen
 * by Accept-Encoding, with Vary: Accept-Encoding), as it is to a client that takes neither. Nothing is served
 * when it has not been built.
 */
export const miniAppPage: FastifyPluginAsync<{ root?: string }> = async (scope, { root = join(process.cwd(), "dist", "web") }) => {
  if (!existsSync(join(root, "index.html"))) return;
  // Public and never limited (publicMiniAppPage); hidden from the OpenAPI document.
  scope.addHook("onRoute", (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  scope.addHook("onSend", async (_request, reply) => {
    reply.header("content-security-policy", MINIAPP_CSP);
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
  });
  await scope.register(fastifyStatic, {
    root,
    prefix: MINIAPP_PAGE,
    index: ["index.html"],
    preCompressed: true,
    setHeaders(response, path) {
      // Everything Vite writes under assets/ is named by its content's hash (`[name]-[hash]`): never changed in place.
      response.header("cache-control", path.includes(join("web", "assets")) ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });
};
