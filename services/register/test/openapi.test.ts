import { createHttpApp, describedRoutes, mountedRoutes, Readiness } from "@docex/kit/http";
import { createLogger } from "@docex/kit/logger";
import { Metrics } from "@docex/kit/metrics";
import { expect } from "chai";
import type { RegisterCatalog } from "../src/domain/register-catalog.js";
import type { RegisterUploads } from "../src/domain/uploads.js";
import { registerHttp } from "../src/http/routes.js";

describe("register service OpenAPI description", () => {
  // The routes are only mounted, never called: the domain is not needed.
  const http = registerHttp(
    { uploads: {} as RegisterUploads, catalog: {} as RegisterCatalog },
    { verify: () => Promise.reject(new Error("not called")) },
  );
  const app = createHttpApp({
    logger: createLogger("register", "silent"),
    metrics: new Metrics("register", { defaultMetrics: false }),
    readiness: new Readiness(),
    api: http.api,
    routes: http.routes,
  });

  it("describes every mounted /api/v2 route and nothing else", () => {
    const mounted = mountedRoutes(app).filter((route) => route.includes(" /api/v2/"));
    expect(mounted).to.have.members(describedRoutes(http.api));
    expect(mounted).to.have.length(3);
  });

  it("gives every operation an id, a summary, tags, a 2xx answer, and the upload its body and 50 MiB-sized problems", () => {
    const { paths } = http.api.openApi();
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods) as Array<{
        operationId: string;
        summary: string;
        tags: string[];
        responses: object;
      }>) {
        expect(operation.operationId).to.be.a("string");
        expect(operation.summary).to.be.a("string");
        expect(operation.tags).to.deep.equal(["Registers"]);
        expect(Object.keys(operation.responses).some((status) => status.startsWith("2"))).to.equal(true);
      }
    }
    const upload = paths["/api/v2/registers"]?.post as {
      requestBody: { content: Record<string, { schema: { type: string; minItems: number } }> };
      responses: object;
    };
    expect(upload.requestBody.content["application/json"]?.schema).to.include({ type: "array", minItems: 1 });
    expect(upload.responses).to.include.keys(["201", "400", "401", "403", "404", "409", "413"]);
  });
});
