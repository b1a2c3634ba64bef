import { type MouseEvent, useEffect, useRef, useState } from "react";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";
import { OriginalFile } from "./original-file.tsx";

/** Where a field's value was read: API.md's `position` (fractions of the page from its top-left corner). */
export interface FieldBox {
  key: string;
  label: string;
  page: number;
  box: number[];
}

/** A word of a page (GET …/words): its text and box, fractions of the page as `position.box`. */
export interface Word {
  text: string;
  box: number[];
}

interface PageState {
  page: number;
  width: number;
  height: number;
  /** A blob: URL of the page image fetched with the session's token; undefined while it loads, null when refused. */
  image?: string | null;
  words?: Word[];
}

/** Widths asked of the pages API: steps, so that screens of similar sizes share the server's drawn images. */
const WIDTH_STEP = 400;
const MAX_WIDTH = 2_000;

function imageWidth(pane: HTMLElement | null): number {
  const css = pane?.clientWidth || 600;
  const pixels = css * (globalThis.devicePixelRatio || 1);
  return Math.min(MAX_WIDTH, Math.max(WIDTH_STEP, Math.ceil(pixels / WIDTH_STEP) * WIDTH_STEP));
}

/** The word under a point of the page (fractions), with a little slack around small words. */
function wordAt(words: readonly Word[], x: number, y: number): Word | undefined {
  const slack = 0.002;
  return words.find(
    ({ box: [left = 0, top = 0, right = 0, bottom = 0] }) =>
      x >= left - slack && x <= right + slack && y >= top - slack && y <= bottom + slack,
  );
}

const boxStyle = ([left = 0, top = 0, right = 0, bottom = 0]: number[]) => ({
  left: `${left * 100}%`,
  top: `${top * 100}%`,
  width: `${(right - left) * 100}%`,
  height: `${(bottom - top) * 100}%`,
});

interface PageViewProps {
  documentId: string;
  fileName: string;
  /** The boxes of the fields' values; the active one is drawn strong and scrolled to. */
  boxes: FieldBox[];
  active?: string;
  /** A word clicked on a page (Shift: to be added to the value); undefined when no field takes it. */
  onWord?: (word: Word, page: number, append: boolean) => void;
}

/**
 * The document's pages as images (GET /documents/{id}/pages/{n}), with a box around each field's value and the
 * active field's box highlighted and scrolled into view; a click on a word of a page (GET …/words) gives it to the
 * focused field (click-to-fill). Pressing on a page never takes the focus from the field being filled. A document
 * without pages (an XML e-invoice) shows its original file instead.
 */
export function PageView({ documentId, fileName, boxes, active, onWord }: PageViewProps) {
  const { api } = useServices();
  const { t } = useI18n();
  const pane = useRef<HTMLDivElement>(null);
  const [pages, setPages] = useState<PageState[] | undefined>();
  const [hovered, setHovered] = useState<{ page: number; word: Word } | undefined>();

  useEffect(() => {
    let live = true;
    const urls: string[] = [];
    const width = imageWidth(pane.current);
    const path = { document_id: documentId };
    const update = (page: number, change: Partial<PageState>) =>
      live && setPages((current) => current?.map((state) => (state.page === page ? { ...state, ...change } : state)));
    const image = (page: number) =>
      api
        .GET("/api/v2/documents/{document_id}/pages/{page}", {
          params: { path: { ...path, page: String(page) }, query: { width } },
          parseAs: "blob",
        })
        .then(({ data }) => {
          if (!data) return null;
          const url = URL.createObjectURL(data as Blob);
          urls.push(url);
          return url;
        })
        .catch(() => null);
    const words = (page: number) =>
      api
        .GET("/api/v2/documents/{document_id}/pages/{page}/words", { params: { path: { ...path, page: String(page) } } })
        .then(({ data }) => (data?.data ?? []) as Word[])
        .catch(() => [] as Word[]);
    // The first page's image is asked for with the list, not after it: it is what a person looks at first.
    const first = image(1);
    void api
      .GET("/api/v2/documents/{document_id}/pages", { params: { path } })
      .then(async ({ data }) => {
        if (!live) return;
        const listed = (data?.data ?? []).map((page) => ({ page: page.page, width: page.width, height: page.height }));
        setPages(listed);
        for (const { page } of listed) {
          void (page === 1 ? first : image(page)).then((url) => update(page, { image: url }));
          void words(page).then((found) => update(page, { words: found }));
        }
      })
      .catch(() => live && setPages([]));
    return () => {
      live = false;
      for (const url of urls) URL.revokeObjectURL(url);
    };
  }, [api, documentId]);

  useEffect(() => {
    if (!active) return;
    pane.current?.querySelector(`[data-box="${CSS.escape(active)}"]`)?.scrollIntoView?.({ block: "nearest", inline: "nearest" });
  }, [active]);

  const pointAt = (event: MouseEvent<HTMLElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    return { x: (event.clientX - rect.left) / rect.width, y: (event.clientY - rect.top) / rect.height };
  };
  const wordOf = (state: PageState, event: MouseEvent<HTMLElement>) => {
    const { x, y } = pointAt(event);
    return wordAt(state.words ?? [], x, y);
  };

  return (
    <div className="pages" ref={pane}>
      {pages === undefined && <p aria-live="polite">{t("loading")}</p>}
      {pages !== undefined && pages.length === 0 && <OriginalFile documentId={documentId} fileName={fileName} />}
      {pages?.map((state) => (
        // biome-ignore lint/a11y/noStaticElementInteractions: click-to-fill is a pointer shortcut; every field is typed into with the keyboard
        // biome-ignore lint/a11y/useKeyWithClickEvents: as above, the keyboard fills fields by typing
        <div
          key={state.page}
          className={`page${onWord ? " fillable" : ""}`}
          style={{ aspectRatio: `${state.width} / ${state.height}` }}
          data-page={state.page}
          data-page-ready={state.image ? "true" : undefined}
          data-words-ready={state.words ? "true" : undefined}
          // Pressing on the page keeps the focus in the field being filled.
          onMouseDown={(event) => event.preventDefault()}
          onMouseMove={(event) => {
            const word = wordOf(state, event);
            setHovered(word ? { page: state.page, word } : undefined);
          }}
          onMouseLeave={() => setHovered(undefined)}
          onClick={(event) => {
            const word = wordOf(state, event);
            if (word && onWord) onWord(word, state.page, event.shiftKey);
          }}
        >
          {state.image ? (
            <img src={state.image} alt={t("pageImage", { page: state.page, pages: pages.length })} draggable={false} />
          ) : (
            <p className="page-placeholder">{state.image === null ? t("pageUnavailable") : t("loading")}</p>
          )}
          {boxes
            .filter((box) => box.page === state.page)
            .map((box) => (
              <div
                key={box.key}
                className={`value-box${box.key === active ? " active" : ""}`}
                style={boxStyle(box.box)}
                data-box={box.key}
                title={box.label}
                aria-hidden="true"
              />
            ))}
          {hovered?.page === state.page && onWord && <div className="word-box" style={boxStyle(hovered.word.box)} aria-hidden="true" />}
        </div>
      ))}
      {pages !== undefined && pages.length > 0 && onWord && <p className="hint">{t("clickToFillHint")}</p>}
    </div>
  );
}
