import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { NotFoundError } from "@docex/kit/errors";
import express, { type Router } from "express";

export const APP_PATH = "/app";

/**
 * The app's policy: its own scripts, styles and API only. No inline script or style, nothing from another origin;
 * `blob:` for the original file the app fetches with the token and shows in a frame; never framed by another site.
 */
export const APP_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src blob:",
  "object-src blob:",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const require = createRequire(import.meta.url);

/** The built app of the `@docex/web` workspace (web/dist), or undefined where it is not installed or not built. */
export function defaultWebAppDirectory(): string | undefined {
  try {
    const directory = path.join(path.dirname(require.resolve("@docex/web/package.json")), "dist");
    return existsSync(path.join(directory, "index.html")) ? directory : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The validation workspace at /app/: hashed assets cached for a year as immutable, every other path under /app/
 * answered with index.html (never cached, so a deploy is seen at the next load) for the app's own routing.
 * Without a built app, /app/ is 404 `app_not_built` and the API works as before.
 */
export function webAppRouter(directory: string | undefined): Router {
  const router = express.Router();
  router.use(APP_PATH, (_req, res, next) => {
    res.setHeader("content-security-policy", APP_CONTENT_SECURITY_POLICY);
    res.setHeader("x-content-type-options", "nosniff");
    res.setHeader("referrer-policy", "no-referrer");
    next();
  });
  if (!directory) {
    router.use(APP_PATH, (_req, _res, next) => next(new NotFoundError("The app is not built: run `npm run build`.", "app_not_built")));
    return router;
  }
  const index = path.join(directory, "index.html");
  router.use(
    `${APP_PATH}/assets`,
    express.static(path.join(directory, "assets"), { index: false, immutable: true, maxAge: "365d" }),
    (_req: express.Request, _res: express.Response, next: express.NextFunction) =>
      next(new NotFoundError("No such asset.", "asset_not_found")),
  );
  // Unhashed files of the app's root (the icon): an hour; index.html is never served from here.
  router.use(APP_PATH, express.static(directory, { index: false, maxAge: "1h", setHeaders: refuseHtmlCaching }));
  router.get(`${APP_PATH}{/*rest}`, (req, res) => {
    if (req.path === APP_PATH) return res.redirect(301, `${APP_PATH}/${req.originalUrl.slice(APP_PATH.length)}`);
    res.setHeader("cache-control", "no-cache");
    res.sendFile(index, { cacheControl: false });
  });
  return router;
}

function refuseHtmlCaching(res: express.Response, file: string): void {
  if (file.endsWith(".html")) res.setHeader("cache-control", "no-cache");
}
