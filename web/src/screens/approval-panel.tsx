import { useEffect, useRef, useState } from "react";
import { problemOf } from "../api/client.ts";
import type { DocumentDto } from "../api/types.ts";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";

/** The approval route of a document in approval: its current stage, and what the signed-in approver may decide. */
export function approvalOf(document: DocumentDto, me: string | undefined) {
  const approval = document.approval;
  if (document.status !== "in_approval" || !approval) return undefined;
  const stage = approval.stages[approval.current_stage - 1];
  const approvers = stage?.approver_ids ?? document.approvers;
  const decided = stage?.approvals.some((approval) => approval.user_id === me) ?? false;
  return {
    stage: approval.current_stage,
    stages: approval.stages.length,
    approvals: stage?.approvals.length ?? 0,
    needed: stage?.min_approvals ?? 1,
    /** An assigned approver of the current stage who has not approved it yet. */
    mayDecide: me !== undefined && approvers.includes(me) && !decided,
  };
}

/**
 * The stage of a document in approval ("Stage 1 of 2"), and Approve and Reject for an assigned approver of that
 * stage (POST /documents/{id}/approve, /reject). Rejecting asks first: it ends the route.
 */
export function ApprovalPanel({
  document,
  mayApprove,
  onDecided,
}: {
  document: DocumentDto;
  /** False for a role that never approves (a viewer), whatever the route names. */
  mayApprove: boolean;
  onDecided(document: DocumentDto, notice: string): void;
}) {
  const { api, session } = useServices();
  const { t, status } = useI18n();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const sure = useRef<HTMLButtonElement>(null);
  const rejectButton = useRef<HTMLButtonElement>(null);
  const route = approvalOf(document, session.claims?.sub);
  const mayDecide = mayApprove && route?.mayDecide === true;

  useEffect(() => {
    if (asking) sure.current?.focus();
  }, [asking]);

  if (!route) return null;

  const decide = async (verb: "approve" | "reject") => {
    setBusy(true);
    setError(undefined);
    try {
      const path = verb === "approve" ? "/api/v2/documents/{document_id}/approve" : "/api/v2/documents/{document_id}/reject";
      const { data, error: refused, response } = await api.POST(path, { params: { path: { document_id: document.id } } });
      if (!data) {
        setError(t("decisionFailed", { detail: problemOf(refused, response.status).detail || String(response.status) }));
        return;
      }
      const after = data.data as DocumentDto;
      const notice =
        verb === "reject"
          ? t("rejectedNotice")
          : after.status === "in_approval"
            ? t("approvedWaits")
            : t("approvedMoved", { status: status(after.status) });
      setAsking(false);
      onDecided(after, notice);
    } finally {
      setBusy(false);
    }
  };

  const cancel = () => {
    setAsking(false);
    rejectButton.current?.focus();
  };

  return (
    <section className="approval" aria-labelledby="approval-title">
      <h2 id="approval-title">{t("approval")}</h2>
      <p data-testid="approval-stage">
        {t("stageOf", { stage: route.stage, stages: route.stages })} · {t("approvalsOf", { count: route.approvals, needed: route.needed })}
      </p>
      {mayDecide && !asking && (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void decide("approve")}>
            {t("approve")}
          </button>
          <button type="button" className="secondary danger" disabled={busy} ref={rejectButton} onClick={() => setAsking(true)}>
            {t("reject")}
          </button>
        </div>
      )}
      {mayDecide && asking && (
        <fieldset
          className="confirm-reject"
          onKeyDown={(event) => {
            if (event.key === "Escape") cancel();
          }}
        >
          <legend>{t("rejectQuestion")}</legend>
          <div className="actions">
            <button type="button" className="danger" disabled={busy} ref={sure} onClick={() => void decide("reject")}>
              {t("rejectSure")}
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={cancel}>
              {t("cancel")}
            </button>
          </div>
        </fieldset>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
