import { randomBytes } from "node:crypto";

/** A one-page PDF with a text layer; random bytes in a comment make every copy a different file. */
export function samplePdf(): Buffer {
  return Buffer.from(
    `%PDF-1.4\n%${randomBytes(8).toString("hex")}\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n` +
      "2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj\n" +
      "3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200]>> endobj\n" +
      "trailer <</Root 1 0 R>>\n%%EOF\n",
  );
}

/** A 1×1 PNG. */
export function samplePng(): Buffer {
  return Buffer.concat([
    Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"),
    // Bytes after IEND are ignored by readers; they make each copy a different file.
    randomBytes(8),
  ]);
}

/** The start of a little-endian TIFF. */
export function sampleTiff(): Buffer {
  return Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]), randomBytes(64)]);
}

export function sampleXml(): Buffer {
  return Buffer.from(
    `\ufeff<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="http://isdoc.cz/namespace/2013"><ID>${randomBytes(4).toString("hex")}</ID></Invoice>\n`,
  );
}

/** A zip holding one stored file `name` (CRC left 0: only the container's shape matters here). */
export function sampleZip(name = "invoice.isdoc", content: Buffer = sampleXml()): Buffer {
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(local.length + fileName.length + content.length, 16);
  return Buffer.concat([local, fileName, content, central, fileName, end]);
}
