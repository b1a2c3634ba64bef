import { type FormEvent, useEffect, useRef, useState } from "react";
import { useServices } from "../context.ts";
import { useI18n } from "../i18n.ts";
import { navigate } from "../router.ts";
import { FormError, StartLink, SubmitButton, TotpCodeInput, useFormWork, useTokenHidden } from "./sign-in-parts.tsx";

/**
 * Where a mailed sign-in link opens the app (`/app/auth/magic-login?token=`): the token is taken out of the address
 * at once (it must not stay in the history or be sent on), exchanged for a session (POST /auth/magic-login), and the
 * queues are shown. An account with two-step verification gives its code first; a used or expired link says so.
 */
export function MagicLoginScreen({ token }: { token: string }) {
  const { session } = useServices();
  const { t } = useI18n();
  const [step, setStep] = useState<"signing_in" | "totp" | "refused">(token ? "signing_in" : "refused");
  const [code, setCode] = useState("");
  const { busy, error, setError, work } = useFormWork();
  const started = useRef(false);
  useTokenHidden("/app/auth/magic-login");
  const codeInput = useRef<HTMLInputElement>(null);

  const exchange = async (totp?: string) => {
    const outcome = await session.magicLogin(token, totp);
    if (outcome.kind === "signed_in") navigate({ screen: "queues" }, true);
    else if (outcome.kind === "totp_required") {
      if (totp) setError(t("wrongCode"));
      setStep("totp");
    } else if (outcome.status === 429) {
      setError(t("tooManyTries"));
      if (!totp) setStep("refused");
    } else setStep("refused");
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the link's token is exchanged once, when the screen opens
  useEffect(() => {
    // Once, also under React's development double effects: the token is single-use.
    if (started.current) return;
    started.current = true;
    if (token) void exchange().catch(() => setStep("refused"));
  }, []);

  useEffect(() => {
    if (step === "totp") codeInput.current?.focus();
  }, [step]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    return work(() => exchange(code.trim()));
  };

  return (
    <section className="sign-in" aria-labelledby="magic-title">
      <h1 id="magic-title">{step === "totp" ? t("totpTitle") : t("magicTitle")}</h1>
      {step === "signing_in" && <p aria-live="polite">{t("magicSigningIn")}</p>}
      {step === "refused" && (
        <>
          <p role="alert">{error ?? t("magicRefused")}</p>
          <StartLink label={t("magicAgain")} />
        </>
      )}
      {step === "totp" && (
        <form onSubmit={submit} noValidate>
          <TotpCodeInput id="magic-totp" value={code} onChange={setCode} inputRef={codeInput} />
          <FormError error={error} />
          <SubmitButton busy={busy} label={t("verify")} />
        </form>
      )}
    </section>
  );
}
