import type { ExtractionFormat, ExtractionResult, InvoiceFieldKey, LineItemRow, TaxDetailRow } from "./types.js";
import { czechAccountOfIban, formatAmount, formatQuantity, normalizeCzechAccount, normalizeDate } from "./validators.js";
import { children, text, type XmlNode } from "./xml.js";

const EXACT = 100;
const SOURCE = "builtin:einvoice" as const;

/** Which e-invoice standard a parsed XML document is, from its root element (and CII's guideline id). */
export function einvoiceFormatOf(root: Record<string, XmlNode>): "isdoc" | "ubl" | "cii" | "xrechnung" | "zugferd1" | undefined {
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
  const zugferd1 = root.CrossIndustryDocument;
  if (typeof zugferd1 === "object" && zugferd1 !== null && children(zugferd1, "HeaderExchangedDocument").length) return "zugferd1";
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

/** A VAT breakdown row from its three printed parts; none when the entry gives neither base nor tax. */
function taxRow(rate: string | undefined, base: string | undefined, tax: string | undefined): TaxDetailRow[] {
  const row: TaxDetailRow = { rate: quantity(rate), base: amount(base), tax: amount(tax) };
  if (row.base === undefined && row.tax === undefined) return [];
  return [Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined)) as TaxDetailRow];
}

function result(format: ExtractionFormat, values: Fields, rows: LineItemRow[], taxRows: TaxDetailRow[] = []): ExtractionResult {
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
    ...(taxRows.length ? { taxDetails: { rows: taxRows, confidence: EXACT, source: SOURCE } } : {}),
    messages: [],
  };
}

/**
 * What kind of document an e-invoice is, from its type code (UNTDID 1001 for UBL and CII, ISDOC's DocumentType): an
 * invoice, a credit note, a debit note, an advance invoice. Amounts stay as the document gives them: EN 16931 prints a
 * credit note's amounts positive and lets its type say that they are credited, and the kind travels with them.
 */
const UNTDID_KINDS: Record<string, string> = {
  "380": "invoice",
  "384": "corrected_invoice",
  "389": "self_billed_invoice",
  "381": "credit_note",
  "261": "credit_note",
  "383": "debit_note",
  "386": "advance_invoice",
  "751": "invoice",
};
const ISDOC_KINDS: Record<string, string> = {
  "1": "invoice",
  "2": "credit_note",
  "3": "debit_note",
  "4": "advance_invoice",
  "5": "advance_invoice",
  "6": "credit_note",
  "7": "simplified_invoice",
};
const kindOf = (code: string | undefined, kinds: Record<string, string>, otherwise: string) =>
  code === undefined ? otherwise : (kinds[code.trim()] ?? otherwise);

function iban(value: string | undefined): string | undefined {
  return value?.replace(/\s/g, "").toUpperCase();
}

/** ISDOC 6 (`Invoice` in the isdoc.cz namespace). */
export function readIsdoc(invoice: XmlNode, format: ExtractionFormat = "isdoc"): ExtractionResult {
  const supplier = children(invoice, "AccountingSupplierParty")[0];
  const party = children(supplier, "Party")[0];
  const buyer = children(children(invoice, "AccountingCustomerParty")[0], "Party")[0];
  // Several Payment entries (a deposit and the rest, or one per account) are common: each value is taken from the
  // first entry that has it, so that a first entry without an account does not hide the second's.
  const payments = children(children(invoice, "PaymentMeans")[0], "Payment");
  const payment = payments[0];
  const detailsOf = payments.map((entry) => children(entry, "Details")[0]).filter((entry) => entry !== undefined);
  const firstOf = (name: string) => detailsOf.map((entry) => text(entry, name)).find((value) => value !== undefined);
  const details = detailsOf.find((entry) => text(entry, "IBAN") ?? text(entry, "ID")) ?? detailsOf[0];
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
      document_type: kindOf(text(invoice, "DocumentType"), ISDOC_KINDS, "invoice"),
      issue_date: normalizeDate(text(invoice, "IssueDate") ?? ""),
      due_date: normalizeDate(firstOf("PaymentDueDate") ?? ""),
      total_due: amount(text(monetary, "PayableAmount") ?? text(payment, "PaidAmount")),
      currency: text(invoice, "ForeignCurrencyCode") ?? text(invoice, "LocalCurrencyCode"),
      iban: iban(text(details, "IBAN")),
      bank_account: account,
      variable_symbol: firstOf("VariableSymbol"),
      supplier_name: text(party, "PartyName", "Name"),
      supplier_tax_id: text(party, "PartyTaxScheme", "CompanyID"),
      supplier_register_id: text(party, "PartyIdentification", "ID"),
      buyer_name: text(buyer, "PartyName", "Name"),
      buyer_tax_id: text(buyer, "PartyTaxScheme", "CompanyID"),
      total_without_tax: amount(text(monetary, "TaxExclusiveAmount")),
      total_tax: amount(text(invoice, "TaxTotal", "TaxAmount")),
    },
    rows,
    children(children(invoice, "TaxTotal")[0], "TaxSubTotal").flatMap((entry) =>
      taxRow(text(entry, "TaxCategory", "Percent"), text(entry, "TaxableAmount"), text(entry, "TaxAmount")),
    ),
  );
}

/** UBL 2.1 Invoice / CreditNote, PEPPOL BIS Billing 3.0 included. */
export function readUbl(invoice: XmlNode, creditNote = false): ExtractionResult {
  const party = children(children(invoice, "AccountingSupplierParty")[0], "Party")[0];
  const buyer = children(children(invoice, "AccountingCustomerParty")[0], "Party")[0];
  // The first payment means that names an account (BT-84); a document may list a card or cash first.
  const allMeans = children(invoice, "PaymentMeans");
  const means = allMeans.find((entry) => text(entry, "PayeeFinancialAccount", "ID")) ?? allMeans[0];
  const currency = text(invoice, "DocumentCurrencyCode");
  // BT-31 is the VAT registration only: a tax number of another scheme (a German Steuernummer, BT-32) is not one.
  const vatOf = (of: XmlNode) =>
    text(
      children(of, "PartyTaxScheme").find((scheme) => /^VAT$/i.test(text(scheme, "TaxScheme", "ID") ?? "")),
      "CompanyID",
    );
  // BT-110 is the tax total in the document's currency; a second TaxTotal may give it in the accounting currency.
  const taxTotal =
    children(invoice, "TaxTotal").find((total) => attributeValue(children(total, "TaxAmount")[0], "currencyID") === currency) ??
    children(invoice, "TaxTotal")[0];
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
      document_type: kindOf(
        text(invoice, "InvoiceTypeCode") ?? text(invoice, "CreditNoteTypeCode"),
        UNTDID_KINDS,
        creditNote ? "credit_note" : "invoice",
      ),
      issue_date: normalizeDate(text(invoice, "IssueDate") ?? ""),
      due_date: normalizeDate(text(invoice, "DueDate") ?? text(invoice, "PaymentMeans", "PaymentDueDate") ?? ""),
      total_due: amount(text(invoice, "LegalMonetaryTotal", "PayableAmount")),
      currency,
      iban: iban(text(means, "PayeeFinancialAccount", "ID")),
      variable_symbol: text(means, "PaymentID"),
      // BT-27, the seller's legal name; the trading name (BT-28, PartyName) only where no legal name is given.
      supplier_name: text(party, "PartyLegalEntity", "RegistrationName") ?? text(party, "PartyName", "Name"),
      supplier_tax_id: vatOf(party),
      // BT-30, the legal registration; PartyIdentification (BT-29) is an identifier of any scheme, not a register's.
      supplier_register_id: text(party, "PartyLegalEntity", "CompanyID"),
      buyer_name: text(buyer, "PartyLegalEntity", "RegistrationName") ?? text(buyer, "PartyName", "Name"),
      buyer_tax_id: vatOf(buyer),
      total_without_tax: amount(text(invoice, "LegalMonetaryTotal", "TaxExclusiveAmount")),
      total_tax: amount(text(taxTotal, "TaxAmount")),
    },
    rows,
    children(taxTotal, "TaxSubtotal").flatMap((entry) =>
      taxRow(text(entry, "TaxCategory", "Percent"), text(entry, "TaxableAmount"), text(entry, "TaxAmount")),
    ),
  );
}

/** A CII party's VAT id (BT-31/BT-48: a tax registration of scheme VA); a tax number (FC) is not one. */
function ciiVatId(party: XmlNode): string | undefined {
  const registration = children(party, "SpecifiedTaxRegistration").find(
    (entry) => attributeValue(children(entry, "ID")[0], "schemeID") === "VA",
  );
  return text(registration, "ID");
}

/** The tax total in the invoice's currency (BT-110), where the document also gives it in its accounting currency. */
function taxInCurrency(totals: XmlNode[], currency: string | undefined): string | undefined {
  const inCurrency = totals.find((total) => attributeValue(total, "currencyID") === currency) ?? totals[0];
  return text(inCurrency);
}

/** Where CII keeps what is read: D16B's element names, and ZUGFeRD 1.0's for the same terms. */
interface CrossIndustryNames {
  document: string;
  transaction: string;
  agreement: string;
  settlement: string;
  summation: string;
  lineAgreement: string;
  lineDelivery: string;
  lineSettlement: string;
  lineSummation: string;
  ratePercent: string;
}

/** UN/CEFACT Cross Industry Invoice D16B (EN 16931, XRechnung, the XML of Factur-X / ZUGFeRD 2.x). */
const CII_NAMES: CrossIndustryNames = {
  document: "ExchangedDocument",
  transaction: "SupplyChainTradeTransaction",
  agreement: "ApplicableHeaderTradeAgreement",
  settlement: "ApplicableHeaderTradeSettlement",
  summation: "SpecifiedTradeSettlementHeaderMonetarySummation",
  lineAgreement: "SpecifiedLineTradeAgreement",
  lineDelivery: "SpecifiedLineTradeDelivery",
  lineSettlement: "SpecifiedLineTradeSettlement",
  lineSummation: "SpecifiedTradeSettlementLineMonetarySummation",
  ratePercent: "RateApplicablePercent",
};

/**
 * ZUGFeRD 1.0 (`CrossIndustryDocument` of urn:ferd:CrossIndustryDocument:invoice:1p0), the XML of PDFs from 2014
 * to 2019 that are still sent: the same terms as CII under their 1.0 names.
 */
const ZUGFERD1_NAMES: CrossIndustryNames = {
  document: "HeaderExchangedDocument",
  transaction: "SpecifiedSupplyChainTradeTransaction",
  agreement: "ApplicableSupplyChainTradeAgreement",
  settlement: "ApplicableSupplyChainTradeSettlement",
  summation: "SpecifiedTradeSettlementMonetarySummation",
  lineAgreement: "SpecifiedSupplyChainTradeAgreement",
  lineDelivery: "SpecifiedSupplyChainTradeDelivery",
  lineSettlement: "SpecifiedSupplyChainTradeSettlement",
  lineSummation: "SpecifiedTradeSettlementMonetarySummation",
  ratePercent: "ApplicablePercent",
};

function readCrossIndustry(invoice: XmlNode, names: CrossIndustryNames, format: ExtractionFormat): ExtractionResult {
  const transaction = children(invoice, names.transaction)[0];
  const agreement = children(transaction, names.agreement)[0];
  const seller = children(agreement, "SellerTradeParty")[0];
  const buyer = children(agreement, "BuyerTradeParty")[0];
  const settlement = children(transaction, names.settlement)[0];
  const currency = text(settlement, "InvoiceCurrencyCode");
  const rows = children(transaction, "IncludedSupplyChainTradeLineItem").map((line): LineItemRow => {
    const lineSettlement = children(line, names.lineSettlement)[0];
    const rate = text(lineSettlement, "ApplicableTradeTax", names.ratePercent);
    return {
      activity: text(line, "SpecifiedTradeProduct", "Name"),
      quantity: quantity(text(line, names.lineDelivery, "BilledQuantity")),
      unit_price: amount(text(line, names.lineAgreement, "NetPriceProductTradePrice", "ChargeAmount")),
      vat_rate: quantity(rate),
      total_incl_tax: inclTax(text(lineSettlement, names.lineSummation, "LineTotalAmount"), rate),
    };
  });
  const summation = children(settlement, names.summation)[0];
  const accounts = children(settlement, "SpecifiedTradeSettlementPaymentMeans").map((means) =>
    text(means, "PayeePartyCreditorFinancialAccount", "IBANID"),
  );
  return result(
    format,
    {
      invoice_id: text(invoice, names.document, "ID"),
      document_type: kindOf(text(invoice, names.document, "TypeCode"), UNTDID_KINDS, "invoice"),
      issue_date: normalizeDate(text(invoice, names.document, "IssueDateTime", "DateTimeString") ?? ""),
      due_date: normalizeDate(text(settlement, "SpecifiedTradePaymentTerms", "DueDateDateTime", "DateTimeString") ?? ""),
      total_due: amount(text(summation, "DuePayableAmount") ?? text(summation, "GrandTotalAmount")),
      currency,
      iban: iban(accounts.find((account) => account !== undefined)),
      variable_symbol: text(settlement, "PaymentReference"),
      supplier_name: text(seller, "Name"),
      supplier_tax_id: ciiVatId(seller),
      supplier_register_id: text(seller, "SpecifiedLegalOrganization", "ID"),
      buyer_name: text(buyer, "Name"),
      buyer_tax_id: ciiVatId(buyer),
      total_without_tax: amount(text(summation, "TaxBasisTotalAmount")),
      total_tax: amount(taxInCurrency(children(summation, "TaxTotalAmount"), currency)),
    },
    rows,
    children(settlement, "ApplicableTradeTax").flatMap((entry) =>
      taxRow(text(entry, names.ratePercent), text(entry, "BasisAmount"), text(entry, "CalculatedAmount")),
    ),
  );
}

export function readCii(invoice: XmlNode, format: ExtractionFormat): ExtractionResult {
  return readCrossIndustry(invoice, CII_NAMES, format);
}

export function readZugferd1(document: XmlNode): ExtractionResult {
  return readCrossIndustry(document, ZUGFERD1_NAMES, "zugferd1");
}

/** Reads a parsed XML e-invoice of any supported standard; undefined when the XML is none of them. */
export function readEinvoice(root: Record<string, XmlNode>, container?: "isdocx" | "pdf"): ExtractionResult | undefined {
  const format = einvoiceFormatOf(root);
  if (format === "isdoc") return readIsdoc(root.Invoice, container === "isdocx" ? "isdocx" : container === "pdf" ? "pdf_isdoc" : "isdoc");
  if (format === "ubl") return root.Invoice ? readUbl(root.Invoice) : readUbl(root.CreditNote, true);
  if (format === "cii" || format === "xrechnung") return readCii(root.CrossIndustryInvoice, container === "pdf" ? "facturx" : format);
  if (format === "zugferd1") return readZugferd1(root.CrossIndustryDocument);
  return undefined;
}
