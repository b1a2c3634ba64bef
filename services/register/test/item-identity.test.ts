import { expect } from "chai";
import { itemIdOf } from "../src/domain/item-identity.js";

describe("item ids", () => {
  const register = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";

  it("are RFC 9562 version 3 UUIDs of the value in the register's namespace", () => {
    // The DNS namespace of RFC 9562 with name "www.example.com": its published version 3 UUID.
    expect(itemIdOf(register, "www.example.com")).to.equal("5df41881-3aed-3515-88a7-2f4a814cf09e");
  });

  it("differ between values and between registers, and repeat for the same pair", () => {
    const other = "00000000-0000-4000-8000-000000000001";
    expect(itemIdOf(register, "A")).to.equal(itemIdOf(register, "A"));
    expect(itemIdOf(register, "A")).not.to.equal(itemIdOf(register, "B"));
    expect(itemIdOf(register, "A")).not.to.equal(itemIdOf(other, "A"));
  });
});
