import { createRequire } from "node:module";
import path from "node:path";
import { getDocument, type PDFDocumentProxy } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { TextItem } from "./page-text.js";
import { UnreadableFileError } from "./types.js";

const require = createRequire(import.meta.url);
/** pdf.js reads the metrics of the 14 standard fonts from its own package, never from anywhere the file names. */
const STANDARD_FONTS = `${path.join(path.dirname(require.resolve("pdfjs-dist/package.json")), "standard_fonts")}/`;

export interface OpenedPdf {
  pages: number;
  /** Text items of pages `first` (1 by default) to `last`, y from the top of each page. */
  text(last: number, first?: number): Promise<TextItem[]>;
  /** Sizes in points of pages `first` (1 by default) to `last`, from their boxes (nothing is rendered). */
  pageSizes(last: number, first?: number): Promise<{ width: number; height: number }[]>;
  close(): Promise<void>;
}

/** Opens a PDF with pdf.js: no scripts, no network, no system fonts; password-protected files are refused. */
export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  const task = getDocument({
    data: bytes.slice(),
    enableXfa: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWorkerFetch: false,
    standardFontDataUrl: STANDARD_FONTS,
    verbosity: 0,
    stopAtErrors: false,
    // Objects beyond this many pixels are not decoded; text extraction never needs them.
    maxImageSize: 4096 * 4096,
    isOffscreenCanvasSupported: false,
  });
  let document: PDFDocumentProxy;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    const name = (error as { name?: string }).name;
    if (name === "PasswordException") throw new UnreadableFileError("The PDF is encrypted with a password; it cannot be read.");
    throw new UnreadableFileError(`The PDF cannot be read (${(error as Error).message || name || "damaged file"}).`);
  }
  return {
    pages: document.numPages,
    async text(last: number, first = 1) {
      const items: TextItem[] = [];
      for (let number = first; number <= Math.min(last, document.numPages); number += 1) {
        const page = await document.getPage(number);
        const viewport = page.getViewport({ scale: 1 });
        const content = await page.getTextContent();
        for (const item of content.items) {
          if (!("str" in item) || item.str.trim() === "") continue;
          const [a, b, , , e, f] = item.transform as number[];
          const fontHeight = Math.hypot(a as number, b as number) || item.height;
          items.push({
            text: item.str,
            x: e as number,
            y: viewport.height - (f as number) - fontHeight,
            width: item.width,
            height: fontHeight,
            page: number,
          });
        }
        page.cleanup();
      }
      return items;
    },
    async pageSizes(last: number, first = 1) {
      const sizes: { width: number; height: number }[] = [];
      for (let number = first; number <= Math.min(last, document.numPages); number += 1) {
        const { width, height } = (await document.getPage(number)).getViewport({ scale: 1 });
        sizes.push({ width, height });
      }
      return sizes;
    },
    close: () => task.destroy(),
  };
}
