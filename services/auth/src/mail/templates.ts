import type { MailTemplate } from "@docex/events";

export type MailLanguage = "en" | "cs";

/** `cs` and `cs_CZ` read Czech; every other locale (and none) English. */
export function mailLanguage(locale: string | null | undefined): MailLanguage {
  return locale === "cs" || locale === "cs_CZ" ? "cs" : "en";
}

export interface MailContent {
  /** The link that carries the token, for magic links, resets and invitations. */
  link?: string;
  /** The token itself, for clients that take it pasted rather than followed. */
  token?: string;
  pin?: string;
  expiresInMinutes: number;
  organizationName?: string;
  invitedBy?: string;
  /** An invitation to someone who has a password already: the link accepts it rather than setting one. */
  acceptOnly?: boolean;
}

/** "15 minutes", "7 days": invitations last days, the other tokens minutes. */
function lifetime(minutes: number, language: MailLanguage): string {
  if (minutes < 2 * 24 * 60) return language === "cs" ? `${minutes} minut` : `${minutes} minutes`;
  const days = Math.round(minutes / (24 * 60));
  return language === "cs" ? `${days} dní` : `${days} days`;
}

export interface RenderedMail {
  subject: string;
  text: string;
}

type Renderer = (content: MailContent) => RenderedMail;

const en: Record<MailTemplate, Renderer> = {
  magic_link: ({ link, token, expiresInMinutes }) => ({
    subject: "Your docex sign-in link",
    text: [
      "Hello,",
      "",
      "use this link to sign in to docex:",
      link,
      "",
      `Or enter this sign-in token: ${token}`,
      "",
      `The link works once and expires in ${expiresInMinutes} minutes. If you did not ask for it, ignore this mail.`,
    ].join("\n"),
  }),
  password_reset: ({ link, token, expiresInMinutes }) => ({
    subject: "Reset your docex password",
    text: [
      "Hello,",
      "",
      "use this link to choose a new docex password:",
      link,
      "",
      `Or enter this token: ${token}`,
      "",
      `The link works once and expires in ${expiresInMinutes} minutes. If you did not ask for it, your password stays as it is.`,
    ].join("\n"),
  }),
  onboarding_pin: ({ pin, expiresInMinutes }) => ({
    subject: "Your docex verification code",
    text: [
      "Welcome to docex,",
      "",
      `your verification code is ${pin}`,
      "",
      `Enter it to finish signing up. It expires in ${expiresInMinutes} minutes.`,
      "If you did not sign up, ignore this mail.",
    ].join("\n"),
  }),
  invitation: ({ link, token, expiresInMinutes, organizationName, invitedBy, acceptOnly }) => ({
    subject: organizationName ? `You are invited to ${organizationName} on docex` : "You are invited to docex",
    text: [
      "Hello,",
      "",
      `${invitedBy || "A colleague"} invited you to ${organizationName || "their organization"} on docex.`,
      acceptOnly ? "You join only if you accept; accept here:" : "Choose your password here; that accepts the invitation:",
      link,
      "",
      `Or enter this invitation token: ${token}`,
      "",
      `The invitation expires in ${lifetime(expiresInMinutes, "en")}. If you do not want to join, ignore this mail.`,
    ].join("\n"),
  }),
};

const cs: Record<MailTemplate, Renderer> = {
  magic_link: ({ link, token, expiresInMinutes }) => ({
    subject: "Váš odkaz pro přihlášení do docex",
    text: [
      "Dobrý den,",
      "",
      "pro přihlášení do docex použijte tento odkaz:",
      link,
      "",
      `Nebo zadejte tento přihlašovací token: ${token}`,
      "",
      `Odkaz lze použít jednou a platí ${expiresInMinutes} minut. Pokud jste o něj nežádali, e-mail ignorujte.`,
    ].join("\n"),
  }),
  password_reset: ({ link, token, expiresInMinutes }) => ({
    subject: "Obnovení hesla do docex",
    text: [
      "Dobrý den,",
      "",
      "nové heslo do docex si zvolíte na tomto odkazu:",
      link,
      "",
      `Nebo zadejte tento token: ${token}`,
      "",
      `Odkaz lze použít jednou a platí ${expiresInMinutes} minut. Pokud jste o něj nežádali, vaše heslo zůstává beze změny.`,
    ].join("\n"),
  }),
  onboarding_pin: ({ pin, expiresInMinutes }) => ({
    subject: "Váš ověřovací kód docex",
    text: [
      "Vítejte v docex,",
      "",
      `váš ověřovací kód je ${pin}`,
      "",
      `Zadáním kódu dokončíte registraci. Kód platí ${expiresInMinutes} minut.`,
      "Pokud jste se neregistrovali, e-mail ignorujte.",
    ].join("\n"),
  }),
  invitation: ({ link, token, expiresInMinutes, organizationName, invitedBy, acceptOnly }) => ({
    subject: organizationName ? `Pozvánka do ${organizationName} v docex` : "Pozvánka do docex",
    text: [
      "Dobrý den,",
      "",
      `${invitedBy || "Kolega"} vás zve do ${organizationName || "své organizace"} v docex.`,
      acceptOnly
        ? "Členem se stanete, jen pokud pozvánku přijmete; přijmout ji můžete zde:"
        : "Heslo si zvolíte zde; tím pozvánku přijmete:",
      link,
      "",
      `Nebo zadejte tento token pozvánky: ${token}`,
      "",
      `Pozvánka platí ${lifetime(expiresInMinutes, "cs")}. Pokud se připojit nechcete, e-mail ignorujte.`,
    ].join("\n"),
  }),
};

export function renderMail(template: MailTemplate, language: MailLanguage, content: MailContent): RenderedMail {
  return (language === "cs" ? cs : en)[template](content);
}
