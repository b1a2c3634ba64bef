import type { ExtractionFormat, ExtractionResult, InvoiceFieldKey, LineItemRow } from "./types.js";
import { czechAccountOfIban, formatAmount, formatQuantity, normalizeCzechAccount, normalizeDate } from "./validators.js";
import { children, text, type XmlNode } from "./xml.js";

const EXACT = 100;
const SOURCE = "builtin:einvoice" as const;

/** Which e-invoice standard a parsed XML document is, from its root element (and CII's guideline id). */
export function einvoiceFormatOf(root: Record<string, XmlNode>): "isdoc" | "ubl" | "cii" | "xrechnung" | undefined {
  // Namespace prefixes are dropped by the parser; the two `Invoice` roots differ in elements only one standard has.
  const invoice = root.Invoice;
  if (typeof invoice === "object" && invoice !== null) {
    const has = (name: string) => (invoice as Record<string, unknown>)[name] !== undefined;
    if (has("LocalCurrencyCode") || has("InvoiceLines") || has("DocumentType")) return "isdoc";
    if (has("DocumentCurrencyCode") || has("InvoiceLine") || has("AccountingSupplierParty")) return "ubl";
    return undefined;
  }
  const creditNote = root.CreditNote;
  if (typeof creditNote === "object" && creditNote !== null) return "ubl";
  const cii = root.CrossIndustryInvoice;
  if (typeof cii === "object" && cii !== null) {
    const guideline = text(cii, "ExchangedDocumentContext", "GuidelineSpecifiedDocumentContextParameter", "ID") ?? "";
    return /xrechnung/i.test(guideline) ? "xrechnung" : "cii";
  }
  return undefined;
}

function attributeValue(node: XmlNode, name: string): string | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const value = (node as Record<string, unknown>)[`@${name}`];
  return value === undefined ? undefined : String(value);
}

type Fields = Partial<Record<InvoiceFieldKey, string | undefined>>;

function amount(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? formatAmount(number) : undefined;
}

function quantity(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? formatQuantity(number) : undefined;
}

function inclTax(net: string | undefined, rate: string | undefined): string | undefined {
  if (net === undefined) return undefined;
  const base = Number(net);
  const percent = rate === undefined ? 0 : Number(rate);
  if (!Number.isFinite(base) || !Number.isFinite(percent)) return undefined;
  return formatAmount(Math.round(base * (100 + percent)) / 100);
}

function result(format: ExtractionFormat, values: Fields, rows: LineItemRow[]): ExtractionResult {
  const fields: ExtractionResult["fields"] = {};
  if (values.iban && !values.bank_account) values.bank_account = czechAccountOfIban(values.iban);
  for (const [key, value] of Object.entries(values) as [InvoiceFieldKey, string | undefined][]) {
    if (value !== undefined && value !== "") fields[key] = { value, confidence: EXACT, source: SOURCE };
  }
  const cleanRows = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined)) as LineItemRow);
  return {
    format,
    fields,
    ...(cleanRows.length ? { lineItems: { rows: cleanRows, confidence: EXACT, source: SOURCE } } : {}),
    messages: [],
  };
}

function iban(value: string | undefined): string | undefined {
  return value?.replace(/\s/g, "").toUpperCase();
}

/** ISDOC 6 (`Invoice` in the isdoc.cz namespace). */
export function readIsdoc(invoice: XmlNode, format: ExtractionFormat = "isdoc"): ExtractionResult {
  const supplier = children(invoice, "AccountingSupplierParty")[0];
  const party = children(supplier, "Party")[0];
  const payment = children(children(invoice, "PaymentMeans")[0], "Payment")[0];
  const details = children(payment, "Details")[0];
  const accountId = text(details, "ID");
  const bankCode = text(details, "BankCode");
  const account = accountId && bankCode ? (normalizeCzechAccount(`${accountId}/${bankCode}`) ?? `${accountId}/${bankCode}`) : undefined;
  const rows = children(children(invoice, "InvoiceLines")[0], "InvoiceLine").map(
    (line): LineItemRow => ({
      activity: text(line, "Item", "Description") ?? text(line, "Note"),
      quantity: quantity(text(line, "InvoicedQuantity")),
      unit_price: amount(text(line, "UnitPrice")),
      vat_rate: quantity(text(line, "ClassifiedTaxCategory", "Percent")),
      total_incl_tax: amount(text(line, "LineExtensionAmountTaxInclusive")),
    }),
  );
  const monetary = children(invoice, "LegalMonetaryTotal")[0];
  return result(
    format,
    {
      invoice_id: text(invoice, "ID"),
      issue_date: normalizeDate(text(invoice, "IssueDate") ?? ""),
      due_date: normalizeDate(text(details, "PaymentDueDate") ?? ""),
      total_due: amount(text(monetary, "PayableAmount") ?? text(payment, "PaidAmount")),
      currency: text(invoice, "ForeignCurrencyCode") ?? text(invoice, "LocalCurrencyCode"),
      iban: iban(text(details, "IBAN")),
      bank_account: account,
      variable_symbol: text(details, "VariableSymbol"),
      supplier_name: text(party, "PartyName", "Name"),
      supplier_tax_id: text(party, "PartyTaxScheme", "CompanyID"),
      supplier_register_id: text(party, "PartyIdentification", "ID"),
    },
    rows,
  );
}

/** UBL 2.1 Invoice / CreditNote, PEPPOL BIS Billing 3.0 included. */
export function readUbl(invoice: XmlNode): ExtractionResult {
  const party = children(children(invoice, "AccountingSupplierParty")[0], "Party")[0];
  const means = children(invoice, "PaymentMeans")[0];
  const taxScheme = children(party, "PartyTaxScheme").find((scheme) => (text(scheme, "TaxScheme", "ID") ?? "VAT") === "VAT");
  const lines = [...children(invoice, "InvoiceLine"), ...children(invoice, "CreditNoteLine")];
  const rows = lines.map((line): LineItemRow => {
    const rate = text(line, "Item", "ClassifiedTaxCategory", "Percent");
    return {
      activity: text(line, "Item", "Name") ?? text(line, "Item", "Description"),
      quantity: quantity(text(line, "InvoicedQuantity") ?? text(line, "CreditedQuantity")),
      unit_price: amount(text(line, "Price", "PriceAmount")),
      vat_rate: quantity(rate),
      total_incl_tax: inclTax(text(line, "LineExtensionAmount"), rate),
    };
  });
  return result(
    "ubl",
    {
      invoice_id: text(invoice, "ID"),
      issue_date: normalizeDate(text(invoice, "IssueDate") ?? ""),
      due_date: normalizeDate(text(invoice, "DueDate") ?? text(invoice, "PaymentMeans", "PaymentDueDate") ?? ""),
      total_due: amount(text(invoice, "LegalMonetaryTotal", "PayableAmount")),
      currency: text(invoice, "DocumentCurrencyCode"),
      iban: iban(text(means, "PayeeFinancialAccount", "ID")),
      variable_symbol: text(means, "PaymentID"),
      supplier_name: text(party, "PartyName", "Name") ?? text(party, "PartyLegalEntity", "RegistrationName"),
      supplier_tax_id: text(taxScheme, "CompanyID"),
      supplier_register_id: text(party, "PartyLegalEntity", "CompanyID") ?? text(party, "PartyIdentification", "ID"),
    },
    rows,
  );
}

/** UN/CEFACT Cross Industry Invoice D16B (EN 16931, XRechnung, the XML of Factur-X / ZUGFeRD 2.x). */
export function readCii(invoice: XmlNode, format: ExtractionFormat): ExtractionResult {
  const transaction = children(invoice, "SupplyChainTradeTransaction")[0];
  const seller = children(children(transaction, "ApplicableHeaderTradeAgreement")[0], "SellerTradeParty")[0];
  const settlement = children(transaction, "ApplicableHeaderTradeSettlement")[0];
  const vatRegistration =
    children(seller, "SpecifiedTaxRegistration").find(
      (registration) => attributeValue(children(registration, "ID")[0], "schemeID") === "VA",
    ) ?? children(seller, "SpecifiedTaxRegistration")[0];
  const rows = children(transaction, "IncludedSupplyChainTradeLineItem").map((line): LineItemRow => {
    const lineSettlement = children(line, "SpecifiedLineTradeSettlement")[0];
    const rate = text(lineSettlement, "ApplicableTradeTax", "RateApplicablePercent");
    return {
      activity: text(line, "SpecifiedTradeProduct", "Name"),
      quantity: quantity(text(line, "SpecifiedLineTradeDelivery", "BilledQuantity")),
      unit_price: amount(text(line, "SpecifiedLineTradeAgreement", "NetPriceProductTradePrice", "ChargeAmount")),
      vat_rate: quantity(rate),
      total_incl_tax: inclTax(text(lineSettlement, "SpecifiedTradeSettlementLineMonetarySummation", "LineTotalAmount"), rate),
    };
  });
  const summation = children(settlement, "SpecifiedTradeSettlementHeaderMonetarySummation")[0];
  return result(
    format,
    {
      invoice_id: text(invoice, "ExchangedDocument", "ID"),
      issue_date: normalizeDate(text(invoice, "ExchangedDocument", "IssueDateTime", "DateTimeString") ?? ""),
      due_date: normalizeDate(text(settlement, "SpecifiedTradePaymentTerms", "DueDateDateTime", "DateTimeString") ?? ""),
      total_due: amount(text(summation, "DuePayableAmount") ?? text(summation, "GrandTotalAmount")),
      currency: text(settlement, "InvoiceCurrencyCode"),
      iban: iban(text(settlement, "SpecifiedTradeSettlementPaymentMeans", "PayeePartyCreditorFinancialAccount", "IBANID")),
      variable_symbol: text(settlement, "PaymentReference"),
      supplier_name: text(seller, "Name"),
      supplier_tax_id: text(vatRegistration, "ID"),
      supplier_register_id: text(seller, "SpecifiedLegalOrganization", "ID"),
    },
    rows,
  );
}

/** Reads a parsed XML e-invoice of any supported standard; undefined when the XML is none of them. */
export function readEinvoice(root: Record<string, XmlNode>, container?: "isdocx" | "pdf"): ExtractionResult | undefined {
  const format = einvoiceFormatOf(root);
  if (format === "isdoc") return readIsdoc(root.Invoice, container === "isdocx" ? "isdocx" : container === "pdf" ? "pdf_isdoc" : "isdoc");
  if (format === "ubl") return readUbl(root.Invoice ?? root.CreditNote);
  if (format === "cii" || format === "xrechnung") return readCii(root.CrossIndustryInvoice, container === "pdf" ? "facturx" : format);
  return undefined;
}
