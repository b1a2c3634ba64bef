import { NotFoundError, ValidationError } from "@docex/kit/errors";
import type { RegisterClient } from "@docex/protos";
import { expect } from "chai";
import { RegisterHarness } from "./support/register-harness.js";

describe("gRPC LookupItems (document and membership are in-process test doubles)", () => {
  let harness: RegisterHarness;
  let client: RegisterClient;
  let organization: string;
  let registerId: string;

  before(async () => {
    harness = await RegisterHarness.start();
    client = harness.grpcClient();
    organization = harness.organization();
    const owner = harness.member(organization, "owner");
    const answer = await harness.upload(owner.token, [
      {
        queue_id: harness.queue(organization).id,
        method: "replace",
        name: "Suppliers",
        items: [
          { value: "A", label: "Alpha", name: "Alpha Ltd", register_id: "123", tax_id: "CZ123", data: { iban: "CZ65" } },
          { value: "B" },
          { value: "C", label: "Gamma" },
        ],
      },
    ]);
    registerId = answer.body.data[0].id;
  });

  after(async () => {
    client?.close();
    await harness?.stop();
  });

  it("answers the items found in the order asked, once each, and the values missing", async () => {
    const answer = await client.lookupItems({
      register_id: registerId,
      organization_id: organization,
      values: ["C", "nope", "A", "C", "a"],
    });
    expect(answer.items.map((item) => item.value)).to.deep.equal(["C", "A"]);
    expect(answer.missing).to.deep.equal(["nope", "a"]);
    const alpha = answer.items[1]!;
    expect(alpha).to.deep.include({ label: "Alpha", name: "Alpha Ltd", register_id: "123", tax_id: "CZ123" });
    expect(JSON.parse(alpha.data_json)).to.deep.equal({ iban: "CZ65" });
    expect(answer.items[0]).to.deep.include({ name: "", register_id: "", tax_id: "", data_json: "{}" });

    const page = await harness.call("GET", `/registers/${registerId}/items`, { token: harness.member(organization, "viewer").token });
    expect(page.body.data.find((item: { value: string }) => item.value === "A").id).to.equal(alpha.id);
  });

  it("answers NOT_FOUND for a register of another organization, an unknown register and a malformed id", async () => {
    for (const request of [
      { register_id: registerId, organization_id: harness.organization(), values: ["A"] },
      { register_id: "00000000-0000-4000-8000-000000000000", organization_id: organization, values: ["A"] },
      { register_id: "nope", organization_id: organization, values: ["A"] },
    ]) {
      const error = await client.lookupItems(request).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).to.be.instanceOf(NotFoundError);
    }
  });

  it("answers INVALID_ARGUMENT without an organization", async () => {
    const error = await client
      .lookupItems({ register_id: registerId, organization_id: "", values: ["A"] })
      .catch((failure: unknown) => failure);
    expect(error).to.be.instanceOf(ValidationError);
  });
});
