import { type FormEvent, useEffect, useRef, useState } from "react";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";
import { FormError, TotpCodeInput, useFormWork } from "./sign-in-parts.tsx";

/** Email and password; then, for an account with two-step verification, the code of its authenticator app. */
export function SignInScreen({ notice }: { notice?: string | undefined }) {
  const { session } = useServices();
  const { t } = useI18n();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [step, setStep] = useState<"password" | "totp">("password");
  const { busy, error, setError, work } = useFormWork();
  const [linkSent, setLinkSent] = useState<string | undefined>();
  const codeInput = useRef<HTMLInputElement>(null);
  const emailInput = useRef<HTMLInputElement>(null);

  // The first input of each step takes the focus: the screen has nothing else to do.
  useEffect(() => {
    (step === "totp" ? codeInput : emailInput).current?.focus();
  }, [step]);

  const failed = () => setError(t("signInFailed", { status: "—" }));

  const submit = (event: FormEvent) => {
    event.preventDefault();
    return work(async () => {
      const outcome = await session.signIn(email, password, step === "totp" ? code.trim() : undefined);
      if (outcome.kind === "totp_required") {
        if (step === "totp") setError(t("wrongCode"));
        setStep("totp");
        setCode("");
      } else if (outcome.kind === "refused") {
        setError(
          outcome.status === 429
            ? t("tooManyTries")
            : outcome.status === 401 || outcome.status === 400
              ? t(step === "totp" ? "wrongCode" : "wrongCredentials")
              : t("signInFailed", { status: outcome.status }),
        );
      }
    }, failed);
  };

  /** A sign-in link by mail instead of the password (POST /auth/magic-link); the answer never says whether the email is known. */
  const sendLink = async () => {
    setError(undefined);
    setLinkSent(undefined);
    if (!email.trim()) {
      setError(t("emailFirst"));
      emailInput.current?.focus();
      return;
    }
    await work(async () => {
      const answer = await session.requestMagicLink(email);
      if (answer.sent) setLinkSent(t("linkSent", { email: email.trim() }));
      else setError(answer.status === 429 ? t("tooManyTries") : t("signInFailed", { status: answer.status }));
    }, failed);
  };

  return (
    <section className="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">{step === "totp" ? t("totpTitle") : t("signInTitle")}</h1>
      {notice && <p className="notice">{notice}</p>}
      <form onSubmit={submit} noValidate>
        {step === "password" ? (
          <>
            <label htmlFor="email">{t("email")}</label>
            <input
              id="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              ref={emailInput}
            />
            <label htmlFor="password">{t("password")}</label>
            <input
              id="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </>
        ) : (
          <TotpCodeInput id="totp" value={code} onChange={setCode} inputRef={codeInput} />
        )}
        <FormError error={error} />
        <div className="actions">
          {step === "totp" && (
            <button type="button" className="secondary" onClick={() => setStep("password")}>
              {t("back")}
            </button>
          )}
          <button type="submit" disabled={busy}>
            {step === "totp" ? t("verify") : t("signIn")}
          </button>
        </div>
        {step === "password" && (
          <div className="actions">
            <button type="button" className="link" disabled={busy} onClick={() => void sendLink()}>
              {t("sendLink")}
            </button>
          </div>
        )}
        {linkSent && (
          <p className="info" role="status">
            {linkSent}
          </p>
        )}
      </form>
    </section>
  );
}
