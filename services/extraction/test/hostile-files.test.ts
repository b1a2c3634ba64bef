import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  attachmentBombPdf,
  attributeHeavyXml,
  type BadFile,
  badInvoiceFiles,
  buildInvoiceCorpus,
  type CorpusDocument,
  hugeImagePng,
  hugePagePdf,
} from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { PDFDocument } from "pdf-lib";
import { ocrAvailable, ocrDpi } from "../src/engine/ocr.js";
import { ExtractionPool } from "../src/engine/pool.js";

/** Process ids whose process group is `group` (the reader and the OCR programs it started). */
async function processesOfGroup(group: number): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // pid (comm) state ppid pgrp …: comm may hold spaces, so fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === group) found.push(Number(entry));
  }
  return found;
}

describe("extraction engine: hostile files end within seconds in a reader of their own, and the pool keeps serving", function () {
  this.timeout(180_000);
  const MEMORY_MB = 192;
  let tmpRoot: string;
  let pool: ExtractionPool;
  let good: CorpusDocument;

  before(async () => {
    tmpRoot = await mkdtemp(path.join(os.tmpdir(), "docex-pool-test-"));
    process.env.DOCEX_TEST_SECRET = "must-not-reach-a-reader";
    pool = new ExtractionPool({ size: 1, timeoutMs: 20_000, maxMemoryMb: MEMORY_MB, tmpRoot, limits: { maxPages: 5 } });
    [good] = (await buildInvoiceCorpus({ einvoices: 0, textPdfs: 1, offset: 40 })) as [CorpusDocument];
  });
  after(async () => {
    delete process.env.DOCEX_TEST_SECRET;
    await pool?.close();
    await rm(tmpRoot, { recursive: true, force: true });
  });

  async function readsTheGoodFile() {
    const result = await pool.extract({ bytes: good.bytes });
    expect(result.stopped, "a good file after a hostile one").to.equal(undefined);
    expect(result.fields.invoice_id?.value).to.equal(good.expected.fields.invoice_id);
  }

  it("reads a 1 MiB PDF whose factur-x.xml inflates to 1 GiB only up to the XML cap, says so, and reads the page's text", async () => {
    const bomb = await attachmentBombPdf();
    expect(bomb.length).to.be.below(1.5 * 1024 * 1024);
    await readsTheGoodFile();
    const started = Date.now();
    const result = await pool.extract({ bytes: bomb });
    expect(Date.now() - started).to.be.below(5_000);
    expect(result.stopped).to.equal(undefined);
    expect(result.messages[0]?.message).to.match(/factur-x\.xml was not read: it inflates to more than 10485760 bytes/);
    expect(result.fields.invoice_id?.value).to.equal("BOMB-1");
  });

  it("stops a reader whose file needs more than the memory cap (a page's content stream of 256 MiB), and reads the next file", async () => {
    const [bomb] = (await badInvoiceFiles()).filter((file) => file.name === "bomb.pdf") as [BadFile];
    const [before] = pool.readerPids();
    const started = Date.now();
    const result = await pool.extract({ bytes: bomb.bytes });
    expect(Date.now() - started).to.be.below(20_000);
    expect(result.stopped).to.equal(true);
    expect(result.format).to.equal("unreadable");
    expect(result.messages[0]?.message).to.match(new RegExp(`more than ${MEMORY_MB} MB of memory`));
    expect(pool.readerPids()).not.to.include(before);
    // The service process never held the inflated bytes.
    expect(process.memoryUsage().rss).to.be.below(1024 * 1024 * 1024);
    await readsTheGoodFile();
  });

  it("gives readers none of the service's environment (no secret reaches a file's reader or its OCR programs)", async () => {
    for (const pid of pool.readerPids()) {
      const environment = (await readFile(`/proc/${pid}/environ`, "utf8")).split("\0");
      expect(environment.some((entry) => entry.startsWith("DOCEX_TEST_SECRET="))).to.equal(false);
      expect(environment.some((entry) => entry.startsWith("DATABASE_URL=") || entry.startsWith("NATS_TOKEN="))).to.equal(false);
    }
  });

  it("rasterizes a page of square metres within the pixel cap (a 200-inch page is not rendered at 200 dpi)", async function () {
    expect(ocrDpi({ width: 595, height: 842 }, 25_000_000)).to.equal(200);
    expect(ocrDpi({ width: 14_400, height: 14_400 }, 25_000_000)).to.equal(undefined);
    expect(ocrDpi({ width: 2_384, height: 3_370 }, 25_000_000)).to.be.within(50, 199);
    if (!(await ocrAvailable())) this.skip();
    await readsTheGoodFile();
    const started = Date.now();
    const result = await pool.extract({ bytes: await hugePagePdf() });
    expect(Date.now() - started).to.be.below(10_000);
    expect(result.stopped).to.equal(undefined);
    expect(result.messages.map((message) => message.message).join(" ")).to.match(/no text/i);
  });

  it("refuses an image whose header declares 10 billion pixels before any decoder sees it", async function () {
    if (!(await ocrAvailable())) this.skip();
    const result = await pool.extract({ bytes: hugeImagePng() });
    expect(result.messages[0]?.message).to.match(/10000 million pixels, more than the 25 million/);
  });

  it("refuses attribute-heavy XML in well under a second of parsing", async () => {
    const started = Date.now();
    const result = await pool.extract({ bytes: attributeHeavyXml() });
    expect(Date.now() - started).to.be.below(5_000);
    expect(result.messages[0]?.message).to.match(/more than 64 attributes/);
    await readsTheGoodFile();
  });

  it("kills a reader past its deadline together with the OCR programs it started, and removes their temporary files", async function () {
    if (!(await ocrAvailable())) this.skip();
    const ownRoot = await mkdtemp(path.join(os.tmpdir(), "docex-pool-test-"));
    const slow = new ExtractionPool({
      size: 1,
      timeoutMs: 1_200,
      maxMemoryMb: MEMORY_MB,
      tmpRoot: ownRoot,
      limits: { ocrTimeoutMs: 60_000 },
    });
    try {
      // Ten scanned pages: tesseract is busy with them far past the 1.2 s deadline, whatever the machine.
      const [scan] = (await buildInvoiceCorpus({ einvoices: 0, textPdfs: 0, scans: 2, offset: 41 })).filter(
        (document) => document.format === "scan_pdf",
      ) as [CorpusDocument];
      if (!scan) this.skip();
      const source = await PDFDocument.load(scan.bytes);
      const tenPages = await PDFDocument.create();
      for (let page = 0; page < 10; page += 1) tenPages.addPage((await tenPages.copyPages(source, [0]))[0]);
      await eventuallyReady(slow);
      const [reader] = slow.readerPids() as [number];
      const entries = (await readdir(ownRoot)).filter((entry) => entry.startsWith("docex-reader-"));
      expect(entries.length).to.be.greaterThan(0);
      let sawOcrPrograms = false;
      const watching = setInterval(() => {
        void processesOfGroup(reader).then((group) => {
          if (group.length > 1) sawOcrPrograms = true;
        });
      }, 50);
      const result = await slow.extract({ bytes: await tenPages.save() }).finally(() => clearInterval(watching));
      expect(sawOcrPrograms, "pdftoppm or tesseract ran in the reader's group").to.equal(true);
      expect(result.stopped).to.equal(true);
      expect(result.messages[0]?.message).to.match(/took longer than 1 s/);
      // The whole group is gone: the reader and any pdftoppm or tesseract it had running.
      const deadline = Date.now() + 5_000;
      while ((await processesOfGroup(reader)).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await processesOfGroup(reader)).to.deep.equal([]);
      const leftOf = async () => (await readdir(ownRoot)).filter((entry) => entries.includes(entry));
      while ((await leftOf()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await leftOf()).to.deep.equal([]);
    } finally {
      await slow.close();
      await rm(ownRoot, { recursive: true, force: true });
    }
  });

  it("restarts a reader that dies before it is ready after a delay that doubles, never in a loop", async () => {
    const broken = path.join(tmpRoot, "broken-reader.mjs");
    await writeFile(broken, "process.exit(3);\n");
    const delays: number[] = [];
    const failing = new ExtractionPool({
      size: 1,
      timeoutMs: 5_000,
      maxMemoryMb: MEMORY_MB,
      tmpRoot,
      readerPath: broken,
      onStartFailed: (delay) => delays.push(delay),
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // 250, 500, 1,000 ms: three or four restarts in two seconds (a loop would have made hundreds).
      expect(delays.length).to.be.within(2, 4);
      expect(delays.slice(0, 3)).to.deep.equal([250, 500, 1_000].slice(0, Math.min(3, delays.length)));
    } finally {
      await failing.close();
    }
  });

  it("sweeps the temporary directories of readers of an earlier run at start, and leaves those of a live one", async () => {
    const stale = path.join(tmpRoot, `docex-reader-${process.pid}-deadbeef-1`);
    const foreign = path.join(tmpRoot, "docex-reader-999999999-deadbeef-1");
    const live = path.join(tmpRoot, `docex-reader-${process.ppid}-deadbeef-1`);
    for (const directory of [stale, foreign, live]) {
      await mkdir(directory, { recursive: true });
      await writeFile(path.join(directory, "page-1.png"), "x");
    }
    expect(await pool.sweep()).to.equal(2);
    const left = await readdir(tmpRoot);
    expect(left).to.include(path.basename(live));
    expect(left).not.to.include(path.basename(stale));
    expect(left).not.to.include(path.basename(foreign));
    await rm(live, { recursive: true, force: true });
  });
});

async function eventuallyReady(pool: ExtractionPool): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (pool.readerPids().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}
