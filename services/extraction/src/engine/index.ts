export { annotationsFor, type ExtractedAnnotation } from "./annotations.js";
export {
  type Evidence,
  type Features,
  featuresOf,
  MIN_CONFIDENCE,
  probabilityOf,
  type TableEvidence,
  withholdUnsure,
} from "./confidence.js";
export { extractInvoice, sniffKind } from "./engine.js";
export { ocrAvailable } from "./ocr.js";
export { ExtractionPool, type ExtractionPoolOptions } from "./pool.js";
export { type FoundPaymentQr, paymentQrInImage } from "./qr.js";
export * from "./types.js";
export * from "./validators.js";
