import { randomUUID } from "node:crypto";
import { actorOf } from "@docex/kit/auth";
import { parseInput } from "@docex/kit/validation";
import type { Request, RequestHandler } from "express";
import type { Documents } from "../domain/documents.js";
import type { Quotas } from "../domain/quotas.js";
import type { KeptFiles } from "../files/kept-files.js";
import { type KeptUpload, receiveMultipartFile, receiveRawFile, type UploadSink } from "../files/upload-body.js";
import type { UploadSlots } from "../files/upload-slots.js";
import { documentDto } from "./dto.js";
import { defaultFileName } from "./file-http.js";
import { uploadFormFields } from "./schemas.js";

export interface StreamedUploadSettings {
  maxFileBytes: number;
  /** See UploadSink.spoolDir. */
  spoolDir: string;
}

/** Reads and drops what is left of a request body; past `maxBytes` or `timeoutMs` the connection is cut instead. */
function drain(req: Request, maxBytes: number, timeoutMs: number): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", count);
      resolve();
    };
    const count = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) {
        req.destroy();
        done();
      }
    };
    const timer = setTimeout(() => {
      req.destroy();
      done();
    }, timeoutMs);
    req.on("data", count);
    req.once("end", done);
    req.once("close", done);
    req.once("error", done);
    req.resume();
  });
}

/**
 * multipart/form-data and raw bodies of POST /queues/{queue_id}/documents: the caller's right to add documents is
 * checked, a slot of the uploads in flight taken (429 past the bounds) and the quotas looked at before a byte is read; the file then streams
 * into the store under the new document's id (size limit, SHA-256, type by its first bytes), and the document is
 * written. Whatever fails after the bytes were kept removes them. JSON bodies go on to the operation's own handler.
 */
export function streamedUpload(
  domain: { documents: Documents; files: KeptFiles; slots: UploadSlots; quotas: Pick<Quotas, "precheck"> },
  settings: StreamedUploadSettings,
): RequestHandler {
  const { documents, files, slots, quotas } = domain;
  return (req, res, next) => {
    if (req.body !== undefined) return next();
    const actor = actorOf(req);
    const queueRef = String(req.params.queue_id ?? "");
    const id = randomUUID();
    let release: (() => void) | undefined;
    let kept: KeptUpload | undefined;
    (async () => {
      const { queue } = await documents.uploadTarget(actor, queueRef);
      release = slots.take(queue.organizationId);
      // What the quotas already rule out is refused before the body is read; the upload's transaction decides.
      const declared = Number(req.headers["content-length"] ?? Number.NaN);
      await quotas.precheck(queue.organizationId, Number.isSafeInteger(declared) && declared > 0 ? declared : 0);
      const sink: UploadSink = { store: files.store, key: id, maxBytes: settings.maxFileBytes, spoolDir: settings.spoolDir };
      const multipart = /^multipart\/form-data\b/i.test(req.headers["content-type"] ?? "");
      const queryName = typeof req.query.file_name === "string" ? req.query.file_name : undefined;
      const { file, fields } = multipart
        ? await receiveMultipartFile(req, sink)
        : { file: await receiveRawFile(req, sink, queryName), fields: {} };
      kept = file;
      const form = parseInput(uploadFormFields, {
        file_name: fields.fileName || file.fileName || defaultFileName(file.contentType),
        ...(fields.annotations === undefined ? {} : { annotations: fields.annotations }),
        ...(fields.confidence === undefined || fields.confidence === "" ? {} : { confidence: fields.confidence }),
      });
      const document = await documents.upload(actor, queueRef, {
        id,
        fileName: form.file_name,
        file: { size: file.size, sha256: file.sha256, contentType: file.contentType },
        annotations: form.annotations ?? [],
        confidence: form.confidence ?? null,
      });
      res
        .status(201)
        .location(`/api/v2/documents/${document.id}`)
        .json({ data: documentDto(document) });
    })()
      .catch(async (error: unknown) => {
        release?.();
        if (kept) await files.store.delete(id).catch(() => undefined);
        // Answering before the body is read makes a proxy in front (the gateway) fail with a broken pipe instead
        // of passing the answer on: read the rest first, up to a bound, then answer.
        await drain(req, 2 * settings.maxFileBytes + 1024 * 1024, 30_000);
        next(error);
      })
      .finally(() => release?.());
  };
}
