import { defineConfig } from "vitest/config";
import MochaSummaryReporter from "./test/mocha-summary-reporter.ts";

/**
 * Served by the gateway at /app/: every asset under /app/assets/ with a content hash in its name (cached for a year),
 * index.html without inline script (the gateway's Content-Security-Policy forbids it).
 */
export default defineConfig({
  base: "/app/",
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: { proxy: { "/api": process.env.DOCEX_URL ?? "http://127.0.0.1:8080" } },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    testTimeout: 10_000,
    reporters: ["default", new MochaSummaryReporter()],
  },
});
