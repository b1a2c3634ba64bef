import { createContext, useContext } from "react";
import type { DocumentStatus } from "./api/types.ts";

export type Locale = "en" | "cs";

const en = {
  appName: "docex",
  signInTitle: "Sign in",
  email: "Email",
  password: "Password",
  signIn: "Sign in",
  totpTitle: "Two-step verification",
  totpCode: "Code from your authenticator app",
  verify: "Verify",
  back: "Back",
  signOut: "Sign out",
  wrongCredentials: "The email or password is not right.",
  wrongCode: "The code is not right or was used already.",
  tooManyTries: "Too many tries. Wait a minute and try again.",
  signInFailed: "Sign-in failed ({status}).",
  sessionExpired: "Your session ended. Sign in again.",
  sessionReused: "Your session was used elsewhere and has been ended for safety. Sign in again.",
  language: "Čeština",
  languageLabel: "Přepnout do češtiny",
  queues: "Queues",
  noQueues: "You can see no queues yet.",
  loading: "Loading…",
  loadFailed: "Could not load: {detail}",
  documents: "Documents",
  status: "Status",
  allStatuses: "All statuses",
  fileName: "File",
  invoiceId: "Invoice",
  supplier: "Supplier",
  totalDue: "Total due",
  created: "Received",
  noDocuments: "No documents.",
  page: "Page {page} of {pages}",
  previous: "Previous page",
  next: "Next page",
  upload: "Upload files",
  dropHere: "Drop PDF, image or XML files here, or",
  choose: "choose files",
  uploading: "Uploading {name}…",
  uploaded: "{name} uploaded.",
  uploadFailed: "{name} was not uploaded: {detail}",
  back_to_queue: "Back to the queue",
  fields: "Fields",
  confidence: "Confidence {value} %",
  lowConfidence: "low confidence",
  confirm: "Confirm",
  confirmHint: "Ctrl+Enter confirms",
  confirmed: "Confirmed: the document is {status}.",
  blocked: "The document cannot be confirmed: fix the errors shown at the fields.",
  saveFailed: "Not saved: {detail}",
  saved: "Saved",
  readOnly: "You may read this document but not change it.",
  notEditable: "In status {status} the document is not edited here.",
  original: "Original file",
  download: "Download the original",
  noFile: "This document has no file.",
  pagePreviewNote: "The original file as your browser shows it.",
  pageImage: "Page {page} of {pages}",
  pageUnavailable: "This page cannot be shown.",
  clickToFillHint: "Click a word on the page to fill the focused field with it (Shift+click adds it).",
  addRow: "Add a row",
  removeRow: "Remove row {row}",
  row: "Row {row}",
  documentMessages: "Messages",
  counts: "{count} to validate",
  workspace: "Workspace",
  whyWaiting: "Why this document waits for you",
  keptBecause: "Waits for a person: {reason}",
  approval: "Approval",
  stageOf: "Stage {stage} of {stages}",
  approvalsOf: "{count} of {needed} approvals",
  approve: "Approve",
  reject: "Reject",
  rejectQuestion: "Reject this document? Its approval ends and it moves to rejected.",
  rejectSure: "Yes, reject",
  cancel: "Cancel",
  approvedMoved: "Approved: the document is {status}.",
  approvedWaits: "Approved. The document stays in approval until its other approvers decide.",
  rejectedNotice: "Rejected.",
  decisionFailed: "Not decided: {detail}",
};

export type MessageKey = keyof typeof en;

const cs: Record<MessageKey, string> = {
  appName: "docex",
  signInTitle: "Přihlášení",
  email: "E-mail",
  password: "Heslo",
  signIn: "Přihlásit se",
  totpTitle: "Dvoufázové ověření",
  totpCode: "Kód z ověřovací aplikace",
  verify: "Ověřit",
  back: "Zpět",
  signOut: "Odhlásit se",
  wrongCredentials: "E-mail nebo heslo nesouhlasí.",
  wrongCode: "Kód nesouhlasí nebo už byl použit.",
  tooManyTries: "Příliš mnoho pokusů. Počkejte minutu a zkuste to znovu.",
  signInFailed: "Přihlášení selhalo ({status}).",
  sessionExpired: "Vaše přihlášení skončilo. Přihlaste se znovu.",
  sessionReused: "Vaše přihlášení bylo použito jinde a z bezpečnostních důvodů ukončeno. Přihlaste se znovu.",
  language: "English",
  languageLabel: "Switch to English",
  queues: "Fronty",
  noQueues: "Zatím nevidíte žádnou frontu.",
  loading: "Načítá se…",
  loadFailed: "Nepodařilo se načíst: {detail}",
  documents: "Dokumenty",
  status: "Stav",
  allStatuses: "Všechny stavy",
  fileName: "Soubor",
  invoiceId: "Faktura",
  supplier: "Dodavatel",
  totalDue: "K úhradě",
  created: "Přijato",
  noDocuments: "Žádné dokumenty.",
  page: "Strana {page} z {pages}",
  previous: "Předchozí strana",
  next: "Další strana",
  upload: "Nahrát soubory",
  dropHere: "Sem přetáhněte soubory PDF, obrázky nebo XML, nebo",
  choose: "vyberte soubory",
  uploading: "Nahrává se {name}…",
  uploaded: "{name} nahrán.",
  uploadFailed: "{name} se nepodařilo nahrát: {detail}",
  back_to_queue: "Zpět do fronty",
  fields: "Pole",
  confidence: "Jistota {value} %",
  lowConfidence: "nízká jistota",
  confirm: "Potvrdit",
  confirmHint: "Ctrl+Enter potvrdí",
  confirmed: "Potvrzeno: dokument je ve stavu {status}.",
  blocked: "Dokument nelze potvrdit: opravte chyby vyznačené u polí.",
  saveFailed: "Neuloženo: {detail}",
  saved: "Uloženo",
  readOnly: "Dokument můžete číst, ale ne měnit.",
  notEditable: "Ve stavu {status} se dokument zde neupravuje.",
  original: "Původní soubor",
  download: "Stáhnout původní soubor",
  noFile: "Dokument nemá soubor.",
  pagePreviewNote: "Původní soubor, jak jej zobrazí váš prohlížeč.",
  pageImage: "Strana {page} z {pages}",
  pageUnavailable: "Tuto stranu nelze zobrazit.",
  clickToFillHint: "Kliknutím na slovo na stránce jím vyplníte pole, ve kterém je kurzor (Shift+klik je přidá).",
  addRow: "Přidat řádek",
  removeRow: "Odebrat řádek {row}",
  row: "Řádek {row}",
  documentMessages: "Zprávy",
  counts: "{count} ke kontrole",
  workspace: "Pracovní prostor",
  whyWaiting: "Proč dokument čeká na kontrolu",
  keptBecause: "Čeká na kontrolu: {reason}",
  approval: "Schvalování",
  stageOf: "Fáze {stage} z {stages}",
  approvalsOf: "schváleno {count} z {needed}",
  approve: "Schválit",
  reject: "Zamítnout",
  rejectQuestion: "Zamítnout tento dokument? Schvalování skončí a dokument bude zamítnut.",
  rejectSure: "Ano, zamítnout",
  cancel: "Zrušit",
  approvedMoved: "Schváleno: dokument je ve stavu {status}.",
  approvedWaits: "Schváleno. Dokument zůstává ve schvalování, dokud nerozhodnou ostatní schvalovatelé.",
  rejectedNotice: "Zamítnuto.",
  decisionFailed: "Nerozhodnuto: {detail}",
};

const STATUS_NAMES: Record<Locale, Record<DocumentStatus, string>> = {
  en: {
    received: "received",
    extracting: "extracting",
    extraction_failed: "extraction failed",
    to_validate: "to validate",
    in_approval: "in approval",
    ready_to_export: "ready to export",
    exporting: "exporting",
    exported: "exported",
    export_failed: "export failed",
    postponed: "postponed",
    rejected: "rejected",
    deleted: "deleted",
  },
  cs: {
    received: "přijat",
    extracting: "vytěžuje se",
    extraction_failed: "vytěžení selhalo",
    to_validate: "ke kontrole",
    in_approval: "ve schvalování",
    ready_to_export: "připraven k exportu",
    exporting: "exportuje se",
    exported: "exportován",
    export_failed: "export selhal",
    postponed: "odložen",
    rejected: "zamítnut",
    deleted: "smazán",
  },
};

const catalogs: Record<Locale, Record<MessageKey, string>> = { en, cs };

/** Czech for a browser or account that prefers it (cs, cs-CZ, cs_CZ), English otherwise. */
export function localeFrom(preferences: readonly (string | undefined)[]): Locale {
  for (const preference of preferences) {
    if (!preference) continue;
    const language = preference.toLowerCase().split(/[-_]/)[0];
    if (language === "cs") return "cs";
    if (language === "en") return "en";
  }
  return "en";
}

export interface Translator {
  locale: Locale;
  t(key: MessageKey, values?: Record<string, string | number>): string;
  status(status: string): string;
  number(value: number): string;
  date(iso: string): string;
}

export function translator(locale: Locale): Translator {
  const numbers = new Intl.NumberFormat(locale === "cs" ? "cs-CZ" : "en-GB", { maximumFractionDigits: 2 });
  const dates = new Intl.DateTimeFormat(locale === "cs" ? "cs-CZ" : "en-GB", { dateStyle: "medium", timeStyle: "short" });
  return {
    locale,
    t: (key, values) => catalogs[locale][key].replace(/\{(\w+)\}/g, (whole, name: string) => String(values?.[name] ?? whole)),
    status: (status) => STATUS_NAMES[locale][status as DocumentStatus] ?? status,
    number: (value) => numbers.format(value),
    date: (iso) => dates.format(new Date(iso)),
  };
}

export const I18nContext = createContext<Translator>(translator("en"));
export const useI18n = () => useContext(I18nContext);
