/**
 * Trains the extraction engine's confidence model and measures how well it is calibrated.
 *
 *   npm run build && node bench/dist/calibrate.js [--write] [--plot bench/calibration.png]
 *
 * Labelled data: the text PDFs of `../shared/corpus` (every hybrid read with its XML ignored, plus the hand-labelled
 * real invoice), read from their text layer, and the same pages rasterized by pdftoppm at 200 and 110 dpi and read by
 * OCR: a labelled scan of a layout nobody here wrote. Only the **development half** (bench/real-corpus's split by the
 * SHA-256 of the file name) trains the model; the **held-out half** measures it. A value counts when the truth has one
 * and the engine gave one (right = 1, wrong = 0); values given where the truth has none are left out (the page may
 * print what the XML lacks).
 *
 * The model is a logistic regression over each value's evidence (label strength, where the value stood, checksums,
 * agreement with other fields, whose party it is, OCR word confidence, the field's kind, text layer or OCR), with a
 * Gaussian prior on the weights (L2, λ = 1). `--write` writes its weights to
 * services/extraction/src/engine/confidence-model.ts. The report: a reliability table per half (values per confidence
 * bin, their mean confidence and how many were right), the expected calibration error (10 equal bins), wrong values
 * among those at confidence ≥ 90, and with `--plot` a reliability diagram (PNG, drawn by Debian's Chromium).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { DEFAULT_LIMITS, type ExtractionResult, extractInvoice, type Features, featuresOf, probabilityOf } from "@docex/extraction/engine";
import { halfOf, judgeEntry, type Truth, truths } from "@docex/testkit/real-corpus";

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const CORPUS = path.resolve(process.env.DOCEX_CORPUS_DIR ?? path.join(root, "../shared/corpus/files"));
const MODEL_FILE = path.join(root, "services/extraction/src/engine/confidence-model.ts");
const args = process.argv.slice(2);
const write = args.includes("--write");
const plot = args.includes("--plot") ? path.resolve(args[args.indexOf("--plot") + 1] ?? "bench/calibration.png") : undefined;
/** Text PDFs, each page once (pdf_text_stripped are the same pages as their facturx_pdf originals). */
const CATEGORIES = new Set(["facturx_pdf:text", "zugferd1_pdf:text", "pdf_text_real"]);
const OCR_DPIS = [200, 110];
const LAMBDA = 1;
/** The model learns from every value read: the engine's threshold (which leaves the unsure ones empty) is off here. */
const EVERY_VALUE = { ...DEFAULT_LIMITS, minConfidence: 0 };

interface Sample {
  half: "dev" | "held-out";
  reading: "text" | `ocr@${number}`;
  file: string;
  field: string;
  features: Features;
  right: 0 | 1;
}

/** The values of one reading that the truth can judge, with their features. */
function samplesOf(entry: Truth, result: ExtractionResult, reading: Sample["reading"]): Sample[] {
  const half = halfOf(entry.file);
  return judgeEntry(entry, result).flatMap((judged) => {
    if (judged.verdict !== "right" && judged.verdict !== "wrong") return [];
    const read = judged.field === "line_items" ? result.lineItems : result.fields[judged.field as keyof ExtractionResult["fields"]];
    if (!read?.evidence) return [];
    const features = featuresOf(judged.field, read.source, read.evidence);
    return [{ half, reading, file: path.basename(entry.file), field: judged.field, features, right: judged.verdict === "right" ? 1 : 0 }];
  });
}

async function collect(): Promise<Sample[]> {
  const samples: Sample[] = [];
  const scratch = await mkdtemp(path.join(tmpdir(), "docex-calibrate-"));
  try {
    for (const entry of await truths(CORPUS, CATEGORIES)) {
      const file = path.join(CORPUS, entry.file);
      const bytes = new Uint8Array(await readFile(file));
      const fileName = path.basename(entry.file);
      // A hybrid whose XML is another invoice than its page has no truth for its page (as bench/real-corpus).
      const whole = await extractInvoice({ bytes, fileName });
      if (whole.messages.some((message) => /describes another invoice/.test(message.message))) continue;
      const text = await extractInvoice({ bytes, fileName, pagesOnly: true }, EVERY_VALUE);
      samples.push(...samplesOf(entry, text, "text"));
      for (const dpi of OCR_DPIS) {
        const out = path.join(scratch, `${fileName}-${dpi}`);
        await run("pdftoppm", ["-r", String(dpi), "-png", "-f", "1", "-l", "1", "-singlefile", file, out], { timeout: 60_000 });
        const image = new Uint8Array(await readFile(`${out}.png`));
        const scanned = await extractInvoice({ bytes: image, fileName: `${fileName}.png` }, EVERY_VALUE);
        samples.push(...samplesOf(entry, scanned, `ocr@${dpi}`));
      }
      process.stderr.write(".");
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  process.stderr.write("\n");
  return samples;
}

/** Maximum a posteriori logistic regression (Gaussian prior on every weight but the bias) by Newton's method. */
function train(samples: Sample[]): Record<string, number> {
  const names = [...new Set(samples.flatMap((sample) => Object.keys(sample.features)))].sort();
  const index = new Map(names.map((name, i) => [name, i]));
  const rows = samples.map((sample) => {
    const row = new Float64Array(names.length);
    for (const [name, value] of Object.entries(sample.features)) row[index.get(name) as number] = value;
    return row;
  });
  const w = new Float64Array(names.length);
  for (let iteration = 0; iteration < 50; iteration++) {
    const gradient = new Float64Array(names.length);
    const hessian = names.map(() => new Float64Array(names.length));
    rows.forEach((row, r) => {
      let z = 0;
      for (let i = 0; i < row.length; i++) z += (w[i] as number) * (row[i] as number);
      const p = 1 / (1 + Math.exp(-z));
      const error = p - (samples[r] as Sample).right;
      const weight = p * (1 - p);
      for (let i = 0; i < row.length; i++) {
        const xi = row[i] as number;
        if (xi === 0) continue;
        gradient[i] = (gradient[i] as number) + error * xi;
        for (let j = 0; j < row.length; j++)
          (hessian[i] as Float64Array)[j] = ((hessian[i] as Float64Array)[j] as number) + weight * xi * (row[j] as number);
      }
    });
    names.forEach((name, i) => {
      if (name === "bias") return;
      gradient[i] = (gradient[i] as number) + LAMBDA * (w[i] as number);
      (hessian[i] as Float64Array)[i] = ((hessian[i] as Float64Array)[i] as number) + LAMBDA;
    });
    const step = solve(hessian, gradient);
    let size = 0;
    for (let i = 0; i < w.length; i++) {
      w[i] = (w[i] as number) - (step[i] as number);
      size = Math.max(size, Math.abs(step[i] as number));
    }
    if (size < 1e-9) break;
  }
  return Object.fromEntries(names.map((name, i) => [name, Math.round((w[i] as number) * 10_000) / 10_000]));
}

/** Solves A x = b by Gaussian elimination with partial pivoting (A is small and positive definite). */
function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++)
      if (Math.abs((m[row] as number[])[col] as number) > Math.abs((m[pivot] as number[])[col] as number)) pivot = row;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const lead = (m[col] as number[])[col] as number;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = ((m[row] as number[])[col] as number) / lead;
      for (let k = col; k <= n; k++)
        (m[row] as number[])[k] = ((m[row] as number[])[k] as number) - factor * ((m[col] as number[])[k] as number);
    }
  }
  return Float64Array.from(m.map((row, i) => (row[n] as number) / (row[i] as number)));
}

const BINS = [
  [0, 50],
  [50, 70],
  [70, 80],
  [80, 90],
  [90, 95],
  [95, 100],
] as const;

interface Scored {
  confidence: number;
  right: 0 | 1;
}

/** Expected calibration error over 10 equal-width bins, in percentage points. */
function ece(scored: Scored[]): number {
  let error = 0;
  for (let bin = 0; bin < 10; bin++) {
    const inBin = scored.filter((value) => Math.min(9, Math.floor(value.confidence / 10)) === bin);
    if (!inBin.length) continue;
    const meanConfidence = inBin.reduce((sum, value) => sum + value.confidence, 0) / inBin.length;
    const accuracy = (100 * inBin.reduce((sum, value) => sum + value.right, 0)) / inBin.length;
    error += (inBin.length / scored.length) * Math.abs(meanConfidence - accuracy);
  }
  return error;
}

function reliability(label: string, scored: Scored[]): string[] {
  const lines = [
    `${label}: ${scored.length} values, ECE ${ece(scored).toFixed(1)} points`,
    "",
    "| confidence | values | mean confidence | right |",
    "|---|---:|---:|---:|",
  ];
  for (const [low, high] of BINS) {
    const inBin = scored.filter(
      (value) => value.confidence >= low && (value.confidence < high || (high === 100 && value.confidence <= 100)),
    );
    if (!inBin.length) {
      lines.push(`| ${low}–${high} | 0 | – | – |`);
      continue;
    }
    const mean = inBin.reduce((sum, value) => sum + value.confidence, 0) / inBin.length;
    const right = inBin.reduce((sum, value) => sum + value.right, 0);
    lines.push(`| ${low}–${high} | ${inBin.length} | ${mean.toFixed(1)} | ${((100 * right) / inBin.length).toFixed(1)} % (${right}) |`);
  }
  const sure = scored.filter((value) => value.confidence >= 90);
  lines.push("", `wrong among confidence ≥ 90: ${sure.filter((value) => !value.right).length} of ${sure.length}`, "");
  return lines;
}

/** A reliability diagram: bins of 10 points, each half's accuracy against its mean confidence, dot area by count. */
function diagram(halves: { label: string; colour: string; scored: Scored[] }[]): string {
  const size = 480;
  const pad = 56;
  const scale = (value: number) => pad + ((size - 2 * pad) * value) / 100;
  const y = (value: number) => size - scale(value);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${size / 2}" y="24" text-anchor="middle" font-size="15">docex confidence: reliability (text PDFs and their scans)</text>`,
    `<line x1="${scale(0)}" y1="${y(0)}" x2="${scale(100)}" y2="${y(100)}" stroke="#999" stroke-dasharray="4 4"/>`,
    `<rect x="${scale(0)}" y="${y(100)}" width="${scale(100) - scale(0)}" height="${y(0) - y(100)}" fill="none" stroke="#333"/>`,
  ];
  for (let tick = 0; tick <= 100; tick += 20) {
    parts.push(`<text x="${scale(tick)}" y="${y(0) + 18}" text-anchor="middle">${tick}</text>`);
    parts.push(`<text x="${scale(0) - 8}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`);
  }
  parts.push(`<text x="${size / 2}" y="${size - 12}" text-anchor="middle">confidence given (%)</text>`);
  parts.push(`<text x="16" y="${size / 2}" text-anchor="middle" transform="rotate(-90 16 ${size / 2})">values right (%)</text>`);
  halves.forEach(({ label, colour, scored }, row) => {
    const points: string[] = [];
    for (let bin = 0; bin < 10; bin++) {
      const inBin = scored.filter((value) => Math.min(9, Math.floor(value.confidence / 10)) === bin);
      if (!inBin.length) continue;
      const mean = inBin.reduce((sum, value) => sum + value.confidence, 0) / inBin.length;
      const accuracy = (100 * inBin.reduce((sum, value) => sum + value.right, 0)) / inBin.length;
      points.push(`${scale(mean)},${y(accuracy)}`);
      parts.push(
        `<circle cx="${scale(mean)}" cy="${y(accuracy)}" r="${(2 + Math.sqrt(inBin.length)).toFixed(1)}" fill="${colour}" fill-opacity="0.6"/>`,
      );
    }
    parts.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${colour}"/>`);
    parts.push(`<circle cx="${pad + 12}" cy="${pad + 8 + row * 18}" r="5" fill="${colour}"/>`);
    parts.push(
      `<text x="${pad + 22}" y="${pad + 12 + row * 18}">${label}: ECE ${ece(scored).toFixed(1)} points, ${scored.length} values</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n");
}

async function drawPng(svg: string, file: string): Promise<void> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage({ viewport: { width: 480, height: 480 } });
    await page.setContent(`<html><body style="margin:0">${svg}</body></html>`);
    await page.screenshot({ path: file, clip: { x: 0, y: 0, width: 480, height: 480 } });
  } finally {
    await browser.close();
  }
}

if (!existsSync(CORPUS)) {
  console.log(`calibrate: skipped, no corpus at ${CORPUS} (set DOCEX_CORPUS_DIR)`);
} else {
  const samples = await collect();
  const dev = samples.filter((sample) => sample.half === "dev");
  const heldOut = samples.filter((sample) => sample.half === "held-out");
  const weights = train(dev);
  const scoredBy = (model: Readonly<Record<string, number>>, chosen: Sample[]): Scored[] =>
    chosen.map((sample) => ({
      confidence: Math.max(1, Math.min(99, Math.round(100 * probabilityOf(sample.features, model)))),
      right: sample.right,
    }));
  const files = (chosen: Sample[]) => new Set(chosen.map((sample) => sample.file)).size;
  const trainedOn = `${dev.length} values of ${files(dev)} development-half text PDFs of ../shared/corpus, read from the text layer and as scans at ${OCR_DPIS.join(" and ")} dpi`;
  console.log(`trained on ${trainedOn}; measured on ${heldOut.length} values of ${files(heldOut)} held-out files\n`);
  console.log("weights:", JSON.stringify(weights));
  console.log("");
  for (const [label, chosen] of [
    ["development half (trained on)", dev],
    ["held-out half", heldOut],
    ["held-out half, text layer", heldOut.filter((sample) => sample.reading === "text")],
    ["held-out half, scans", heldOut.filter((sample) => sample.reading !== "text")],
  ] as const)
    console.log(reliability(label, scoredBy(weights, chosen)).join("\n"));
  if (write) {
    const model = `// Written by bench/src/calibrate.ts (\`node bench/dist/calibrate.js --write\`): do not edit by hand.
// Trained on ${trainedOn}.
export const CONFIDENCE_MODEL = {
  trainedOn: ${JSON.stringify(trainedOn)},
  weights: {
${Object.entries(weights)
  .map(([name, weight]) => `    ${name}: ${weight},`)
  .join("\n")}
  } as Readonly<Record<string, number>>,
};
`;
    await writeFile(MODEL_FILE, model);
    console.log(`wrote ${path.relative(root, MODEL_FILE)}`);
  }
  if (plot) {
    const svg = diagram([
      { label: "development half", colour: "#1f77b4", scored: scoredBy(weights, dev) },
      { label: "held-out half", colour: "#d62728", scored: scoredBy(weights, heldOut) },
    ]);
    await drawPng(svg, plot);
    console.log(`wrote ${path.relative(root, plot)}`);
  }
}
