import { useEffect, useMemo, useRef, useState } from "react";
import type { SignOutReason } from "./api/session.ts";
import { type Services, ServicesContext } from "./context.ts";
import { I18nContext, type Locale, localeFrom, translator } from "./i18n.ts";
import { followLink, usePlace } from "./router.ts";
import { DocumentScreen } from "./screens/document-screen.tsx";
import { MagicLoginScreen } from "./screens/magic-login-screen.tsx";
import { AcceptInvitationScreen, SetPasswordScreen } from "./screens/password-link-screen.tsx";
import { QueueScreen } from "./screens/queue-screen.tsx";
import { QueuesScreen } from "./screens/queues-screen.tsx";
import { SignInScreen } from "./screens/sign-in-screen.tsx";

const LOCALE_KEY = "docex.locale";

function initialLocale(): Locale {
  const chosen = localStorage.getItem(LOCALE_KEY);
  if (chosen === "cs" || chosen === "en") return chosen;
  return localeFrom(navigator.languages ?? [navigator.language]);
}

/** The app: sign-in until there is a session, then the screen of the current path under /app/. */
export function App({ services }: { services: Services }) {
  const { session } = services;
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const [signedIn, setSignedIn] = useState(session.signedIn);
  const place = usePlace();
  // A sign-in or password link starts a session of its own: the tab's earlier one is not resumed under it.
  const [resuming, setResuming] = useState(!session.signedIn && place.screen !== "magic_login" && place.screen !== "set_password");
  const [endedBecause, setEndedBecause] = useState<SignOutReason | undefined>();
  const i18n = useMemo(() => translator(locale), [locale]);

  useEffect(
    () =>
      session.subscribe((reason) => {
        setSignedIn(session.signedIn);
        setEndedBecause(reason);
        // The account's language, when the token names one and the user has not chosen here.
        const accountLocale = session.claims?.ui_locale;
        if (accountLocale && !localStorage.getItem(LOCALE_KEY)) setLocale(localeFrom([accountLocale]));
      }),
    [session],
  );
  const resumeOnOpen = useRef(resuming);
  useEffect(() => {
    if (session.signedIn || !resumeOnOpen.current) return;
    void session.resume().finally(() => setResuming(false));
  }, [session]);
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const switchLocale = () => {
    const next = locale === "cs" ? "en" : "cs";
    localStorage.setItem(LOCALE_KEY, next);
    setLocale(next);
  };

  return (
    <I18nContext.Provider value={i18n}>
      <ServicesContext.Provider value={services}>
        <header className="bar">
          <a className="brand" href="/app/" onClick={(event) => followLink(event, { screen: "queues" })}>
            docex
          </a>
          <span className="spacer" />
          <button
            type="button"
            className="link"
            lang={locale === "cs" ? "en" : "cs"}
            aria-label={i18n.t("languageLabel")}
            onClick={switchLocale}
          >
            {i18n.t("language")}
          </button>
          {signedIn && (
            <button type="button" className="link" onClick={() => void session.signOut()}>
              {i18n.t("signOut")}
            </button>
          )}
        </header>
        <main id="main">
          {place.screen === "magic_login" ? (
            <MagicLoginScreen token={place.token} />
          ) : place.screen === "set_password" ? (
            <SetPasswordScreen token={place.token} />
          ) : place.screen === "accept_invitation" ? (
            <AcceptInvitationScreen token={place.token} />
          ) : resuming ? (
            <p aria-live="polite">{i18n.t("loading")}</p>
          ) : !signedIn ? (
            <SignInScreen
              notice={
                endedBecause === "reused" ? i18n.t("sessionReused") : endedBecause === "expired" ? i18n.t("sessionExpired") : undefined
              }
            />
          ) : place.screen === "queue" ? (
            <QueueScreen key={place.queueId} place={place} />
          ) : place.screen === "documents" ? (
            <QueueScreen key="all documents" place={place} />
          ) : place.screen === "document" ? (
            <DocumentScreen key={place.documentId} documentId={place.documentId} />
          ) : (
            <QueuesScreen />
          )}
        </main>
      </ServicesContext.Provider>
    </I18nContext.Provider>
  );
}
