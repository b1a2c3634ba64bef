import { createRequire } from "node:module";
import express, { type Router } from "express";
import type { OpenApiAggregator } from "./openapi.js";

const require = createRequire(import.meta.url);
const swaggerUiDirectory: string = (require("swagger-ui-dist") as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

export const OPENAPI_PATH = "/api/v2/openapi.json";
export const DOCS_PATH = "/api/v2/docs";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>docex API reference</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/reference.js"></script>
</body>
</html>
`;

const start = `window.ui = SwaggerUIBundle({ url: "${OPENAPI_PATH}", dom_id: "#swagger-ui", deepLinking: true, docExpansion: "list" });\n`;

/** The merged OpenAPI document and an API reference page, served by the gateway itself, with no asset from the internet. */
export function apiDocsRouter(openApi: OpenApiAggregator): Router {
  const router = express.Router();
  router.get(OPENAPI_PATH, async (_req, res) => {
    res.json(await openApi.document());
  });
  router.get(DOCS_PATH, (_req, res) => {
    res.type("html").send(page);
  });
  router.get(`${DOCS_PATH}/reference.js`, (_req, res) => {
    res.type("application/javascript").send(start);
  });
  router.use(`${DOCS_PATH}/assets`, express.static(swaggerUiDirectory, { index: false }));
  return router;
}
