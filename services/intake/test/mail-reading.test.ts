import { expect } from "chai";
import { zipSync } from "fflate";
import { readMail } from "../src/domain/mail-reading.js";
import { senderAllowed } from "../src/domain/sender-policy.js";
import { unpackZip, ZipRefusedError } from "../src/domain/zip-entries.js";
import { mimeMessage, pdf } from "./support/stack.js";

const LIMITS = { maxZipEntries: 10, maxFileBytes: 1024 * 1024, maxZipUnpackedBytes: 2 * 1024 * 1024 };

describe("reading a mail's files (unit)", () => {
  it("takes the PDFs inside a ZIP attachment in its place, leaves other entries out, and keeps an .isdocx whole", async () => {
    const zip = Buffer.from(zipSync({ "invoices/a.pdf": pdf("a"), "readme.txt": Buffer.from("hello"), "b.PDF": pdf("b") }));
    const isdocx = Buffer.from(zipSync({ "invoice.isdoc": Buffer.from("<Invoice/>") }));
    const mail = await readMail(
      mimeMessage({
        from: "a@b.test",
        to: "q.t@docex.test",
        subject: "zipped",
        messageId: "m1@b.test",
        attachments: [
          { name: "batch.zip", type: "application/zip", content: zip },
          { name: "e-invoice.isdocx", type: "application/octet-stream", content: isdocx },
          { name: "photo.gif", type: "image/gif", content: Buffer.from("GIF89a") },
        ],
      }),
      LIMITS,
    );
    expect(mail.files.map((file) => file.fileName)).to.deep.equal(["a.pdf", "b.PDF", "e-invoice.isdocx"]);
    expect(mail.files[0]!.content.equals(pdf("a"))).to.equal(true);
    expect(mail.skipped.map((file) => file.file_name)).to.deep.equal(["photo.gif"]);
    expect(mail).to.deep.include({ from: "a@b.test", subject: "zipped", messageId: "m1@b.test", identity: "id:m1@b.test" });
  });

  it("refuses a ZIP bomb by the bytes it actually unpacks, whatever its headers say, and one with too many entries", () => {
    // 8 MiB of zeros deflate to a few KiB; the headers are made to claim 100 bytes. The limit (1 MiB per entry) stops
    // the entry as soon as that much came out.
    const bomb = zipSync({ "bomb.pdf": new Uint8Array(8 * 1024 * 1024) }, { level: 1 });
    expect(bomb.length).to.be.below(100_000);
    const view = Buffer.from(bomb.buffer, bomb.byteOffset, bomb.length);
    view.writeUInt32LE(100, 22);
    view.writeUInt32LE(100, view.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 24);
    expect(() => unpackZip(bomb, () => true, { maxEntries: 10, maxEntryBytes: 1024 * 1024, maxTotalBytes: 2 * 1024 * 1024 })).to.throw(
      ZipRefusedError,
      /more than 1048576 bytes/,
    );
    const many = zipSync(Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`${index}.pdf`, pdf(String(index))])));
    expect(() => unpackZip(many, () => true, { maxEntries: 10, maxEntryBytes: 1024, maxTotalBytes: 1024 * 1024 })).to.throw(
      ZipRefusedError,
      /more than 10 entries/,
    );
  });

  it("skips a ZIP bomb attachment with its reason and takes the rest of the mail", async () => {
    const bomb = Buffer.from(zipSync({ "bomb.pdf": new Uint8Array(4 * 1024 * 1024) }, { level: 1 }));
    const mail = await readMail(
      mimeMessage({
        from: "a@b.test",
        to: "q.t@docex.test",
        subject: "bomb",
        attachments: [
          { name: "bomb.zip", type: "application/zip", content: bomb },
          { name: "real.pdf", type: "application/pdf", content: pdf("real") },
        ],
      }),
      LIMITS,
    );
    expect(mail.files.map((file) => file.fileName)).to.deep.equal(["real.pdf"]);
    expect(mail.skipped[0]).to.deep.include({ file_name: "bomb.zip" });
    expect(mail.skipped[0]!.reason).to.match(/^archive refused/);
    expect(mail.identity).to.match(/^sha256:[0-9a-f]{64}$/);
  });

  it("lets a sender in by address or whole domain (not subdomains); an empty list lets anyone in, a restricted one not the null sender", () => {
    const allowed = ["ap@supplier.test", "@partner.test"];
    expect(senderAllowed("AP@Supplier.test", allowed)).to.equal(true);
    expect(senderAllowed("other@supplier.test", allowed)).to.equal(false);
    expect(senderAllowed("anyone@partner.test", allowed)).to.equal(true);
    expect(senderAllowed("anyone@mail.partner.test", allowed)).to.equal(false);
    expect(senderAllowed("", allowed)).to.equal(false);
    expect(senderAllowed("", [])).to.equal(true);
  });
});
