import { type Invoice, money, netTotal, requireFields, roundCents, taxTotal } from "../invoice.js";
import { defined, xmlDocument } from "./xml.js";

const PEPPOL_CUSTOMIZATION = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0";
const PEPPOL_PROFILE = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0";

/** EN 16931's VAT category of a rate: S (standard) above zero, Z (zero rated) at zero. */
const categoryOf = (rate: number) => (rate > 0 ? "S" : "Z");

function party(name: string | undefined, taxId: string | undefined, registerId: string | undefined) {
  return {
    "cac:Party": defined({
      "cac:PostalAddress": { "cac:Country": { "cbc:IdentificationCode": countryOf(taxId) } },
      "cac:PartyTaxScheme": taxId ? { "cbc:CompanyID": taxId, "cac:TaxScheme": { "cbc:ID": "VAT" } } : undefined,
      "cac:PartyLegalEntity": defined({ "cbc:RegistrationName": name ?? "", "cbc:CompanyID": registerId }),
    }),
  };
}

/** The country of a VAT id's prefix (CZ12345678), Czech otherwise: PEPPOL wants a country for every party. */
function countryOf(taxId: string | undefined): string {
  const prefix = taxId ? /^([A-Z]{2})/.exec(taxId.toUpperCase())?.[1] : undefined;
  return prefix ?? "CZ";
}

/**
 * UBL 2.1 Invoice as PEPPOL BIS Billing 3.0 has it: the received invoice as its supplier's e-invoice (the supplier
 * is AccountingSupplierParty, the buyer the customer). Line net amounts are worked out from the document's line
 * totals including tax; its tax breakdown is tax_details, else the lines grouped by rate.
 */
export function ublInvoice(invoice: Invoice): Buffer {
  requireFields("UBL", invoice, { invoiceId: "invoice_id", issueDate: "issue_date", currency: "currency", totalDue: "total_due" });
  const currency = invoice.currency!;
  const amount = (value: number) => ({ "@currencyID": currency, "#text": money(value) });
  const net = netTotal(invoice);
  const tax = taxTotal(invoice);
  return xmlDocument({
    Invoice: defined({
      "@xmlns": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
      "@xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
      "@xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
      "cbc:CustomizationID": PEPPOL_CUSTOMIZATION,
      "cbc:ProfileID": PEPPOL_PROFILE,
      "cbc:ID": invoice.invoiceId,
      "cbc:IssueDate": invoice.issueDate,
      "cbc:DueDate": invoice.dueDate,
      "cbc:InvoiceTypeCode": "380",
      "cbc:TaxPointDate": invoice.taxableSupplyDate,
      "cbc:DocumentCurrencyCode": currency,
      "cbc:BuyerReference": invoice.invoiceId,
      "cac:AccountingSupplierParty": party(invoice.supplierName, invoice.supplierTaxId, invoice.supplierRegisterId),
      "cac:AccountingCustomerParty": party(invoice.buyerName, invoice.buyerTaxId, undefined),
      "cac:PaymentMeans": invoice.iban
        ? defined({
            "cbc:PaymentMeansCode": "58",
            "cbc:PaymentID": invoice.variableSymbol,
            "cac:PayeeFinancialAccount": { "cbc:ID": invoice.iban },
          })
        : undefined,
      "cac:TaxTotal": {
        "cbc:TaxAmount": amount(tax),
        "cac:TaxSubtotal": invoice.taxes.map((summary) => ({
          "cbc:TaxableAmount": amount(summary.base),
          "cbc:TaxAmount": amount(summary.tax),
          "cac:TaxCategory": {
            "cbc:ID": categoryOf(summary.rate),
            "cbc:Percent": String(summary.rate),
            "cac:TaxScheme": { "cbc:ID": "VAT" },
          },
        })),
      },
      "cac:LegalMonetaryTotal": {
        "cbc:LineExtensionAmount": amount(roundCents(invoice.lines.reduce((sum, line) => sum + (line.net ?? 0), 0))),
        "cbc:TaxExclusiveAmount": amount(net),
        "cbc:TaxInclusiveAmount": amount(roundCents(net + tax)),
        "cbc:PayableAmount": amount(invoice.totalDue!),
      },
      "cac:InvoiceLine": invoice.lines.map((line, index) =>
        defined({
          "cbc:ID": String(index + 1),
          "cbc:InvoicedQuantity": { "@unitCode": "C62", "#text": String(line.quantity ?? 1) },
          "cbc:LineExtensionAmount": amount(line.net ?? 0),
          "cac:Item": {
            "cbc:Name": line.activity ?? "",
            "cac:ClassifiedTaxCategory": {
              "cbc:ID": categoryOf(line.vatRate ?? 0),
              "cbc:Percent": String(line.vatRate ?? 0),
              "cac:TaxScheme": { "cbc:ID": "VAT" },
            },
          },
          "cac:Price": { "cbc:PriceAmount": amount(line.unitPrice ?? line.net ?? 0) },
        }),
      ),
    }),
  });
}
