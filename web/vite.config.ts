import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";

/** The files a browser gets as text: each written beside itself as `.br` and `.gz`. */
const TEXT = /\.(?:html|js|css|svg|json|txt)$/;

/**
 * Compressed once at build, at the highest levels (brotli 11, gzip 9), so the service sends them as they are
 * (@fastify/static's `preCompressed`, chosen by Accept-Encoding) and never compresses per request. A compressed
 * twin not smaller than its file is not written: the file is sent as it is.
 */
function precompress(): Plugin {
  return {
    name: "precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle).filter((file) => TEXT.test(file))) {
        const path = join(options.dir!, name);
        const file = readFileSync(path);
        const twins: Array<[string, Buffer]> = [
          [
            ".br",
            brotliCompressSync(file, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: file.length,
              },
            }),
          ],
          [".gz", gzipSync(file, { level: constants.Z_BEST_COMPRESSION })],
        ];
        for (const [extension, compressed] of twins) if (compressed.length < file.length) writeFileSync(path + extension, compressed);
      }
    },
  };
}

// The Mini App's front end: built into dist/web, served by the service at /app/ (src/api/miniapp/static.ts).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/app/",
  plugins: [precompress()],
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    // No inline module preload polyfill: the page runs under a CSP without inline scripts.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    // The compression's second or so (brotli at 11) is the build's by design: no warning that a plugin took it.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
