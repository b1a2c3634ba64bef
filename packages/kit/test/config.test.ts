import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { booleanFlag, ConfigError, loadConfig, serviceConfigSchema } from "../src/config.js";

const run = promisify(execFile);
const kitDir = fileURLToPath(new URL("..", import.meta.url));

describe("service configuration", () => {
  it("reads flags from the environment's text, and takes an already parsed configuration as it is", () => {
    const schema = serviceConfigSchema("register");
    const parsed = schema.parse({ MIGRATE_ONLY: "1", MIGRATE_ON_START: "false", PORT: "9999" });
    expect(parsed).to.include({ MIGRATE_ONLY: true, MIGRATE_ON_START: false, PORT: 9999 });
    expect(schema.parse(parsed)).to.deep.equal(parsed);
    expect(schema.parse({})).to.include({ MIGRATE_ONLY: false, MIGRATE_ON_START: true });
  });

  it("refuses a flag that is neither true nor false", () => {
    for (const value of ["yes", "TRUE", "", "2"]) expect(booleanFlag.safeParse(value).success, value).to.equal(false);
  });

  it("refuses GRPC_INSECURE=true with NODE_ENV=production, naming the variable; takes it elsewhere, and production with GRPC_TLS_DIR", () => {
    const schema = serviceConfigSchema("document");
    let refused: unknown;
    try {
      loadConfig(schema, { GRPC_INSECURE: "true", NODE_ENV: "production" });
    } catch (error) {
      refused = error;
    }
    expect(refused).to.be.instanceOf(ConfigError);
    expect((refused as ConfigError).problems).to.have.length(1);
    expect((refused as ConfigError).problems[0]).to.match(/^GRPC_INSECURE: must not be true with NODE_ENV=production/);
    expect(loadConfig(schema, { GRPC_INSECURE: "true", NODE_ENV: "development" }).GRPC_INSECURE).to.equal(true);
    expect(loadConfig(schema, { GRPC_INSECURE: "true" }).GRPC_INSECURE).to.equal(true);
    expect(loadConfig(schema, { GRPC_TLS_DIR: "/var/run/docex/grpc", NODE_ENV: "production" }).GRPC_INSECURE).to.equal(false);
  });

  it("a process started with GRPC_INSECURE=true and NODE_ENV=production exits 1 at start-up, saying why on stderr", async () => {
    const started = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'import { loadConfigOrExit, serviceConfigSchema } from "@docex/kit/config"; loadConfigOrExit(serviceConfigSchema("auth")); console.log("started");',
      ],
      { cwd: kitDir, env: { PATH: process.env.PATH, GRPC_INSECURE: "true", NODE_ENV: "production" }, timeout: 20_000 },
    ).then(
      () => ({ code: 0, stderr: "", stdout: "" }),
      (error: { code: number; stderr: string; stdout: string }) => error,
    );
    expect(started.code).to.equal(1);
    expect(started.stdout).to.not.include("started");
    expect(started.stderr).to.match(/GRPC_INSECURE: must not be true with NODE_ENV=production/);
  });
});
