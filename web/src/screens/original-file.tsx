import { useEffect, useState } from "react";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";

/**
 * The original file, fetched with the session's token and shown from a blob: URL — a PDF in the browser's own viewer,
 * an image as an image — with a download link. Shown for a document without pages (an XML e-invoice); the others show
 * their page images (page-view.tsx).
 */
export function OriginalFile({ documentId, fileName }: { documentId: string; fileName: string }) {
  const { api } = useServices();
  const { t } = useI18n();
  const [file, setFile] = useState<{ url: string; type: string } | null | undefined>();

  useEffect(() => {
    let url: string | undefined;
    let live = true;
    void api
      .GET("/api/v2/documents/{document_id}/file", { params: { path: { document_id: documentId } }, parseAs: "blob" })
      .then(({ data, response }) => {
        if (!live) return;
        if (!data) return setFile(null);
        url = URL.createObjectURL(data as Blob);
        setFile({ url, type: response.headers.get("content-type") ?? "" });
      })
      .catch(() => live && setFile(null));
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [api, documentId]);

  if (file === undefined) return <p aria-live="polite">{t("loading")}</p>;
  if (file === null) return <p>{t("noFile")}</p>;
  return (
    <div className="original" data-file-ready="true">
      <p>
        <a href={file.url} download={fileName}>
          {t("download")}
        </a>
      </p>
      {file.type.startsWith("image/") ? (
        <img src={file.url} alt={fileName} />
      ) : file.type === "application/pdf" ? (
        <>
          <iframe src={file.url} title={`${t("original")}: ${fileName}`} />
          <p className="hint">{t("pagePreviewNote")}</p>
        </>
      ) : null}
    </div>
  );
}
