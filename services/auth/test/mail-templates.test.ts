import { MAIL_TEMPLATES } from "@docex/events";
import { expect } from "chai";
import { mailLanguage, renderMail } from "../src/mail/templates.js";

describe("mail templates", () => {
  it("reads Czech for cs and cs_CZ and English otherwise", () => {
    expect(["cs", "cs_CZ", "en", "en_GB", null, "de"].map(mailLanguage)).to.deep.equal(["cs", "cs", "en", "en", "en", "en"]);
  });

  for (const template of MAIL_TEMPLATES) {
    it(`renders ${template} in both languages with its secret and lifetime`, () => {
      const content = { link: "https://app/x?token=T0KEN", token: "T0KEN", pin: "123456", expiresInMinutes: 15, organizationName: "Acme" };
      for (const language of ["en", "cs"] as const) {
        const mail = renderMail(template, language, content);
        expect(mail.subject).to.be.a("string").that.is.not.empty;
        expect(mail.text).to.include(template === "onboarding_pin" ? "123456" : "token=T0KEN");
        expect(mail.text).to.include("15");
      }
    });
  }
});
