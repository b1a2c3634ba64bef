import { type RefObject, useEffect, useRef, useState } from "react";
import { useI18n } from "../i18n.ts";
import { navigate } from "../router.ts";

/** A mailed link's token out of the address at once, when the screen opens: it must not stay in the history or be sent on. */
export function useTokenHidden(path: string) {
  const hidden = useRef(false);
  useEffect(() => {
    // Once, also under React's development double effects.
    if (hidden.current) return;
    hidden.current = true;
    history.replaceState(null, "", path);
  }, [path]);
}

/** A link to the app's start (the queues, or the sign-in when there is no session), replacing this screen in the history. */
export function StartLink({ label }: { label: string }) {
  return (
    <p>
      <a
        href="/app/"
        onClick={(event) => {
          event.preventDefault();
          navigate({ screen: "queues" }, true);
        }}
      >
        {label}
      </a>
    </p>
  );
}

/** The six-digit code of an authenticator app (two-step verification). */
export function TotpCodeInput({
  id,
  value,
  onChange,
  inputRef,
}: {
  id: string;
  value: string;
  onChange: (code: string) => void;
  inputRef: RefObject<HTMLInputElement | null>;
}) {
  const { t } = useI18n();
  return (
    <>
      <label htmlFor={id}>{t("totpCode")}</label>
      <input
        id={id}
        ref={inputRef}
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]{6}"
        maxLength={6}
        required
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </>
  );
}

/** What went wrong with the form, announced to screen readers; nothing when nothing did. */
export function FormError({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

/**
 * A form's state while it talks to the API: `busy` (its buttons wait) and the `error` it shows. `work` clears the
 * error, runs `action` busy, and on a failure of the call itself runs `failed` (without it, the failure is thrown).
 */
export function useFormWork() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const work = async (action: () => Promise<void>, failed?: () => void) => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      if (!failed) throw caught;
      failed();
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, work };
}

/** The form's one button. */
export function SubmitButton({ busy, label }: { busy: boolean; label: string }) {
  return (
    <div className="actions">
      <button type="submit" disabled={busy}>
        {label}
      </button>
    </div>
  );
}
