/**
 * Supplier layouts learned from one validation (issue 36, item 7), on the real corpus's text PDFs: each file is taken as
 * a supplier's first invoice, its true values typed by a person (no positions) and confirmed; the places learned are
 * then read on the same layout again, as printed and moved down the page by 2 % (a second invoice of the layout whose
 * header grew a line). Counts the fields read back right, wrong and not found, per half of the corpus.
 *
 *   npm run build && node bench/dist/layout-memory.js
 *
 * A second invoice with other values is not in the corpus (no supplier sends two); this measures how well a place and
 * its anchor find a value again on real layouts, the part of the aim ("a supplier's second invoice of an unseen layout,
 * after one validated correction of the first: ≥ 98 % of fields right") that real files can show.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_ANNOTATION_SCHEMA, type SchemaField } from "@docex/annotations";
import { extractInvoice, type PageWord } from "@docex/extraction/engine";
import { type LayoutPlace, placesOf, readPlaces } from "@docex/extraction/layout-memory";
import { FIELDS, halfOf, judge, type Term, truths } from "@docex/testkit/real-corpus";

const here = path.dirname(fileURLToPath(import.meta.url));
const CORPUS = path.resolve(process.env.DOCEX_CORPUS_DIR ?? path.join(here, "../../../shared/corpus/files"));
const SCHEMA: SchemaField[] = [...DEFAULT_ANNOTATION_SCHEMA];
/** The terms a person types into the header fields (line items are a table: not learned as places). */
const TERMS = (Object.keys(FIELDS) as Term[]).filter((term) => term !== "line_count");
const CATEGORIES = new Set(["facturx_pdf:text", "zugferd1_pdf:text", "pdf_text_real"]);

const moved = (pages: Map<number, PageWord[]>, dy: number) =>
  new Map(
    [...pages].map(([page, words]) => [
      page,
      words.map((word) => ({ ...word, box: [word.box[0], word.box[1] + dy, word.box[2], word.box[3] + dy] as PageWord["box"] })),
    ]),
  );

if (!existsSync(CORPUS)) {
  console.log(`layout-memory: skipped, no corpus at ${CORPUS} (set DOCEX_CORPUS_DIR)`);
} else {
  const tally = new Map<string, { right: number; wrong: number; missing: number; placed: number; typed: number }>();
  for (const entry of await truths(CORPUS, CATEGORIES)) {
    const bytes = new Uint8Array(await readFile(path.join(CORPUS, entry.file)));
    const whole = await extractInvoice({ bytes, fileName: path.basename(entry.file) });
    if (whole.messages.some((message) => /describes another invoice/.test(message.message))) continue;
    const read = await extractInvoice({ bytes, fileName: path.basename(entry.file), pagesOnly: true });
    const pages = new Map((read.pages ?? []).flatMap((page) => (page.words?.length ? [[page.page, page.words] as const] : [])));
    const typed = TERMS.flatMap((term) => {
      const value = entry.truth[term];
      return value === null || value === undefined || value === "" ? [] : [{ key: FIELDS[term], value: String(value) }];
    });
    const places: LayoutPlace[] = placesOf(SCHEMA, typed, pages).map((place) => ({ ...place, confirmed: 1, missed: 0 }));
    for (const [variant, words] of [
      ["as printed", pages],
      ["moved down 2 %", moved(pages, 0.02)],
    ] as const) {
      const key = `${halfOf(entry.file)} | ${variant}`;
      const counts = tally.get(key) ?? { right: 0, wrong: 0, missing: 0, placed: 0, typed: 0 };
      tally.set(key, counts);
      const again = new Map(readPlaces(SCHEMA, places, words).map((annotation) => [annotation.key, annotation.value]));
      for (const term of TERMS) {
        const expected = entry.truth[term];
        if (expected === null || expected === undefined || expected === "") continue;
        counts.typed += 1;
        if (!places.some((place) => place.fieldKey === FIELDS[term])) continue;
        counts.placed += 1;
        const verdict = judge(
          term,
          expected,
          [...((entry.truth[`${term}_alternatives`] as unknown[] | undefined) ?? [])],
          again.get(FIELDS[term]),
        );
        if (verdict === "right") counts.right += 1;
        else if (verdict === "missing") counts.missing += 1;
        else counts.wrong += 1;
        // The development half's misses, to look at (the held-out half is for measuring).
        if (process.argv.includes("--wrong") && verdict !== "right" && halfOf(entry.file) === "dev" && variant === "as printed") {
          const place = places.find((candidate) => candidate.fieldKey === FIELDS[term]);
          console.log(
            `${path.basename(entry.file)} ${term}: expected ${String(expected)}, read ${again.get(FIELDS[term])} (anchor ${place?.anchor})`,
          );
        }
      }
    }
  }
  const percent = (part: number, whole: number) => (whole ? `${((100 * part) / whole).toFixed(1)} %` : "–");
  console.log("| half | layout | values typed | found on the page | read back right | wrong | not found |");
  console.log("|---|---|---:|---:|---:|---:|---:|");
  for (const [key, counts] of [...tally].sort())
    console.log(
      `| ${key} | ${counts.typed} | ${counts.placed} | ${percent(counts.right, counts.placed)} | ${percent(counts.wrong, counts.placed)} | ${percent(counts.missing, counts.placed)} |`,
    );
}
