import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The Mini App's front end: built into dist/web, served by the service at /app/ (src/api/miniapp/static.ts).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/app/",
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    // No inline module preload polyfill: the page runs under a CSP without inline scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
