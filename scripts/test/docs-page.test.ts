import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGateway, UpstreamPool } from "@docex/gateway";
import { CachedTokenVerifier, TokenVerifier } from "@docex/kit/auth";
import { SERVICE_NAMES, type ServiceName } from "@docex/kit/config";
import { ApiDescription, ClientAddressSigner, createHttpApp, dataOf, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { closeHttp, listen } from "@docex/kit/runtime";
import { TestIssuer, testGrpcIdentity } from "@docex/testkit";
import { expect } from "chai";
import { chromium } from "playwright-core";
import { z } from "zod";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The API reference page in a real browser: headless Chromium (Debian's package) loads
 * /api/v2/docs from the gateway, renders the endpoint groups, and opens one endpoint's schema.
 * Skipped where Chromium is not installed; CI installs it.
 */
describe("API reference page in headless Chromium", function () {
  this.timeout(60_000);
  let issuer: TestIssuer;
  let service: Server;
  let gateway: Server;
  let upstreams: UpstreamPool;

  before(async function () {
    if (!existsSync(CHROMIUM)) this.skip();
    issuer = await TestIssuer.start();
    const api = new ApiDescription("document");
    service = await listen(
      createHttpApp({
        logger: createLogger("document", "silent"),
        metrics: new Metrics("document", { defaultMetrics: false }),
        readiness: new Readiness(),
        api,
        routes: (router) => {
          api.route(
            router,
            {
              method: "post",
              path: "/api/v2/queues",
              operationId: "createQueue",
              summary: "Create a queue",
              tags: ["Queues"],
              body: z.object({ workspace_id: z.string(), name: z.string().min(1) }).strict(),
              responses: { 201: { description: "Created", schema: dataOf(z.object({ id: z.string(), name: z.string() })) } },
            },
            (_input, _req, res) => {
              res.status(201).json({ data: { id: "q", name: "n" } });
            },
          );
        },
      }),
      "127.0.0.1",
      0,
    );
    const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    upstreams = new UpstreamPool(Object.fromEntries(SERVICE_NAMES.map((name) => [name, url])) as Record<ServiceName, string>);
    gateway = await listen(
      createGateway({
        logger: createLogger("gateway", "silent"),
        metrics: new Metrics("gateway", { defaultMetrics: false }),
        readiness: new Readiness(),
        verifier: new CachedTokenVerifier(new TokenVerifier({ jwksUri: issuer.jwksUri, issuer: issuer.issuer, audience: issuer.audience })),
        upstreams,
        rateLimitPerMinute: 0,
        upstreamTimeoutMs: 5_000,
        clientAddresses: new ClientAddressSigner(testGrpcIdentity("gateway")),
      }),
      "127.0.0.1",
      0,
    );
  });

  after(async () => {
    if (gateway) await closeHttp(gateway, 500);
    upstreams?.destroy();
    if (service) await closeHttp(service, 500);
    await issuer?.stop();
  });

  it("loads, lists the endpoint groups, and shows an endpoint's request schema", async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      const outside: string[] = [];
      page.on("request", (request) => {
        if (!request.url().startsWith("http://127.0.0.1")) outside.push(request.url());
      });
      await page.goto(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}/api/v2/docs`);
      await page.getByText("docex — Document Extraction Service API").first().waitFor({ timeout: 20_000 });
      await page.locator("#operations-tag-Queues").waitFor();
      await page.locator("#operations-Queues-createQueue").click();
      await page.getByText("workspace_id").first().waitFor({ timeout: 10_000 });
      expect(outside, "the page fetched something from outside").to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });
});
