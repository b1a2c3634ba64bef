import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { z } from "zod";
import * as protos from "../src/index.js";
import { approvalRouteJson, jsonText, readJsonText, toJsonText } from "../src/index.js";

const PROTO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Every `string <name>_json = N;` of the .proto files, with the contract its comment names. */
function jsonFields(): { field: string; contract: string | undefined }[] {
  return readdirSync(PROTO_DIR)
    .filter((name) => name.endsWith(".proto"))
    .flatMap((name) => {
      const lines = readFileSync(path.join(PROTO_DIR, name), "utf8").split("\n");
      return lines.flatMap((line, index) => {
        const field = /^\s*string (\w+_json) = \d+;/.exec(line)?.[1];
        if (!field) return [];
        const contract = /\/\/ Contract: (\w+) of src\/json-fields\.ts\./.exec(lines[index - 1] ?? "")?.[1];
        return [{ field: `${name} ${field}`, contract }];
      });
    });
}

describe("the *_json fields' contracts (src/json-fields.ts)", () => {
  it("every *_json field of the .proto files names a zod schema this package exports", () => {
    const fields = jsonFields();
    expect(fields.length).to.be.greaterThan(20);
    const missing = fields.filter(({ contract }) => !contract || !((protos as Record<string, unknown>)[contract] instanceof z.ZodType));
    expect(missing, "fields without a contract").to.deep.equal([]);
  });

  it("reads empty text as the default, and names the field when the text is not JSON or not of the shape", () => {
    const request = z.object({ approval_route_json: jsonText(approvalRouteJson.nullable(), null) });
    expect(request.parse({ approval_route_json: "" })).to.deep.equal({ approval_route_json: null });
    const notJson = request.safeParse({ approval_route_json: "{stages" });
    expect(notJson.error?.issues[0]?.path).to.deep.equal(["approval_route_json"]);
    const badStage = request.safeParse({ approval_route_json: JSON.stringify({ stages: [], stage: 0 }) });
    expect(badStage.error?.issues[0]?.path).to.deep.equal(["approval_route_json", "stages"]);
    expect(() => readJsonText(approvalRouteJson, { stages: [], stage: 0 }, "{", "approval_route_json")).to.throw(/approval_route_json/);
  });

  it("lets a receiver read a route a newer sender extended, and writes what it reads", () => {
    const route = { stages: [{ approver_ids: ["7f1c9a52-3c2e-4c55-9a0e-1d2b3c4d5e6f"], min_approvals: 1 }], stage: 0 };
    const text = JSON.stringify({ ...route, deadline: "2026-12-31" });
    expect(readJsonText(approvalRouteJson, route, text, "approval_route_json")).to.deep.equal(route);
    expect(JSON.parse(toJsonText(approvalRouteJson, route))).to.deep.equal(route);
  });
});
