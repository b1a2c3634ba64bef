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
  invitation: ({ link, token, expiresInMinutes, organizationName, invitedBy }) => ({
    subject: organizationName ? `You are invited to ${organizationName} on docex` : "You are invited to docex",
    text: [
      "Hello,",
      "",
      `${invitedBy || "A colleague"} invited you to ${organizationName || "their organization"} on docex.`,
      "Choose your password here:",
      link,
      "",
      `Or enter this invitation token: ${token}`,
      "",
      `The link expires in ${expiresInMinutes} minutes; after that, use "Forgot password" with this address.`,
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
  invitation: ({ link, token, expiresInMinutes, organizationName, invitedBy }) => ({
    subject: organizationName ? `Pozvánka do ${organizationName} v docex` : "Pozvánka do docex",
    text: [
      "Dobrý den,",
      "",
      `${invitedBy || "Kolega"} vás zve do ${organizationName || "své organizace"} v docex.`,
      "Heslo si zvolíte zde:",
      link,
      "",
      `Nebo zadejte tento token pozvánky: ${token}`,
      "",
      `Odkaz platí ${expiresInMinutes} minut; potom použijte „Zapomenuté heslo“ s touto adresou.`,
    ].join("\n"),
  }),
};

export function renderMail(template: MailTemplate, language: MailLanguage, content: MailContent): RenderedMail {
  return (language === "cs" ? cs : en)[template](content);
}
