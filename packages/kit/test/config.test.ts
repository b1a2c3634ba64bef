import { expect } from "chai";
import { booleanFlag, serviceConfigSchema } from "../src/config.js";

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
});
