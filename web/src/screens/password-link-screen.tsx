import { type FormEvent, useEffect, useState } from "react";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";
import { navigate } from "../router.ts";
import { FormError, StartLink, SubmitButton, useFormWork, useTokenHidden } from "./sign-in-parts.tsx";

const PASSWORD_MIN = 10;

/**
 * Where a mailed reset or invitation link opens the app (`/app/auth/change-password?token=`): the person sees whose
 * password it sets (GET /auth/password-change-token), chooses one, and is signed in (POST /auth/change-password).
 */
export function SetPasswordScreen({ token }: { token: string }) {
  const { api, session } = useServices();
  const { t } = useI18n();
  const [link, setLink] = useState<{ email: string; purpose: string } | null | undefined>(token ? undefined : null);
  const [password, setPassword] = useState("");
  const { busy, error, setError, work } = useFormWork();
  useTokenHidden("/app/auth/change-password");

  useEffect(() => {
    if (!token) return;
    let live = true;
    void api
      .GET("/api/v2/auth/password-change-token", { params: { query: { token } } })
      .then(({ data }) => live && setLink(data ? { email: data.data.email, purpose: data.data.purpose } : null))
      .catch(() => live && setLink(null));
    return () => {
      live = false;
    };
  }, [api, token]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password.length < PASSWORD_MIN) {
      setError(t("passwordTooShort", { min: PASSWORD_MIN }));
      return;
    }
    await work(async () => {
      const outcome = await session.setPassword(token, password);
      if (outcome.kind === "signed_in") navigate({ screen: "queues" }, true);
      else if (outcome.kind === "refused" && outcome.status === 429) setError(t("tooManyTries"));
      else if (outcome.kind === "refused" && outcome.status === 400) setError(t("passwordTooShort", { min: PASSWORD_MIN }));
      else setLink(null);
    });
  };

  return (
    <section className="sign-in" aria-labelledby="set-password-title">
      <h1 id="set-password-title">{t("setPasswordTitle")}</h1>
      {link === undefined && <p aria-live="polite">{t("loading")}</p>}
      {link === null && (
        <>
          <p role="alert">{t("linkRefused")}</p>
          <StartLink label={t("toSignIn")} />
        </>
      )}
      {link && (
        <form onSubmit={submit} noValidate>
          <p>{t(link.purpose === "invitation" ? "setPasswordInvited" : "setPasswordReset", { email: link.email })}</p>
          <label htmlFor="new-password">{t("newPassword")}</label>
          <input
            id="new-password"
            type="password"
            autoComplete="new-password"
            minLength={PASSWORD_MIN}
            required
            aria-describedby="new-password-hint"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            // biome-ignore lint/a11y/noAutofocus: the one thing this screen asks for
            autoFocus
          />
          <p className="hint" id="new-password-hint">
            {t("passwordHint", { min: PASSWORD_MIN })}
          </p>
          <FormError error={error} />
          <SubmitButton busy={busy} label={t("setPassword")} />
        </form>
      )}
    </section>
  );
}

/**
 * Where a mailed invitation of a person who has a password opens the app (`/app/auth/accept-invitation?token=`):
 * joining is the person's decision, so it takes a click (POST /auth/accept-invitation), then the sign-in.
 */
export function AcceptInvitationScreen({ token }: { token: string }) {
  const { api, session } = useServices();
  const { t } = useI18n();
  const [state, setState] = useState<"asking" | "accepted" | "refused">(token ? "asking" : "refused");
  const [busy, setBusy] = useState(false);
  useTokenHidden("/app/auth/accept-invitation");

  const accept = async () => {
    setBusy(true);
    try {
      const { data } = await api.POST("/api/v2/auth/accept-invitation", { body: { token } });
      setState(data ? "accepted" : "refused");
    } catch {
      setState("refused");
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="sign-in" aria-labelledby="invitation-title">
      <h1 id="invitation-title">{t("invitationTitle")}</h1>
      {state === "asking" && (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => void accept()}>
            {t("acceptInvitation")}
          </button>
        </div>
      )}
      {state === "accepted" && (
        <>
          <p role="status">{t("invitationAccepted")}</p>
          {session.signedIn ? <StartLink label={t("queues")} /> : <StartLink label={t("toSignIn")} />}
        </>
      )}
      {state === "refused" && (
        <>
          <p role="alert">{t("linkRefused")}</p>
          <StartLink label={t("toSignIn")} />
        </>
      )}
    </section>
  );
}
