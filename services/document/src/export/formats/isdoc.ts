import { type Invoice, money, netTotal, requireFields, roundCents, taxTotal } from "../invoice.js";
import { defined, xmlDocument } from "./xml.js";

const ISDOC_NAMESPACE = "http://isdoc.cz/namespace/2013";

/** ISDOC's amounts and rates: a number as the standard writes it, undefined stays out. */
const amount = (value: number | undefined) => (value === undefined ? undefined : money(value));
const plain = (value: number | undefined) => (value === undefined ? undefined : String(value));

function party(name: string | undefined, taxId: string | undefined, registerId: string | undefined) {
  return {
    Party: defined({
      PartyIdentification: { ID: registerId ?? "" },
      PartyName: { Name: name ?? "" },
      PostalAddress: { StreetName: "", BuildingNumber: "", CityName: "", PostalZone: "", Country: { IdentificationCode: "", Name: "" } },
      PartyTaxScheme: taxId ? { CompanyID: taxId, TaxScheme: "VAT" } : undefined,
    }),
  };
}

/** A Czech account `[prefix-]number/bank` split as ISDOC's Details take it. */
function czechAccount(account: string | undefined): { ID: string; BankCode: string } | undefined {
  const match = account ? /^\s*((?:\d{1,6}-)?\d{2,10})\s*\/\s*(\d{4})\s*$/.exec(account) : null;
  return match ? { ID: match[1]!, BankCode: match[2]! } : undefined;
}

/**
 * ISDOC 6.0.2 (the Czech e-invoice standard): the received invoice as its supplier would have issued it. Amounts are
 * in the invoice's currency, written as ISDOC's local currency (rate 1): the document carries one currency only.
 */
export function isdocInvoice(invoice: Invoice): Buffer {
  requireFields("ISDOC", invoice, { invoiceId: "invoice_id", issueDate: "issue_date", totalDue: "total_due" });
  const net = netTotal(invoice);
  const tax = taxTotal(invoice);
  const account = czechAccount(invoice.bankAccount);
  return xmlDocument({
    Invoice: {
      "@xmlns": ISDOC_NAMESPACE,
      "@version": "6.0.2",
      DocumentType: "1",
      ID: invoice.invoiceId,
      UUID: uuidOfDocument(invoice.documentId),
      IssueDate: invoice.issueDate,
      TaxPointDate: invoice.taxableSupplyDate,
      VATApplicable: "true",
      ElectronicPossibilityAgreementReference: "",
      LocalCurrencyCode: invoice.currency ?? "CZK",
      CurrRate: "1",
      RefCurrRate: "1",
      AccountingSupplierParty: party(invoice.supplierName, invoice.supplierTaxId, invoice.supplierRegisterId),
      AccountingCustomerParty: party(invoice.buyerName, invoice.buyerTaxId, undefined),
      InvoiceLines: {
        InvoiceLine: invoice.lines.map((line, index) => {
          const gross =
            line.totalInclTax ?? (line.net === undefined ? undefined : roundCents((line.net * (100 + (line.vatRate ?? 0))) / 100));
          return defined({
            ID: String(index + 1),
            InvoicedQuantity: line.quantity === undefined ? undefined : { "@unitCode": "ks", "#text": plain(line.quantity) },
            LineExtensionAmount: amount(line.net) ?? "0.00",
            LineExtensionAmountTaxInclusive: amount(gross) ?? "0.00",
            LineExtensionTaxAmount: amount(gross !== undefined && line.net !== undefined ? roundCents(gross - line.net) : 0),
            UnitPrice: amount(line.unitPrice) ?? "0.00",
            UnitPriceTaxInclusive:
              amount(line.unitPrice === undefined ? undefined : roundCents((line.unitPrice * (100 + (line.vatRate ?? 0))) / 100)) ?? "0.00",
            ClassifiedTaxCategory: { Percent: plain(line.vatRate ?? 0), VATCalculationMethod: "0" },
            Item: { Description: line.activity ?? "" },
          });
        }),
      },
      TaxTotal: {
        TaxSubTotal: invoice.taxes.map((summary) => ({
          TaxableAmount: money(summary.base),
          TaxAmount: money(summary.tax),
          TaxInclusiveAmount: money(roundCents(summary.base + summary.tax)),
          AlreadyClaimedTaxableAmount: "0.00",
          AlreadyClaimedTaxAmount: "0.00",
          AlreadyClaimedTaxInclusiveAmount: "0.00",
          DifferenceTaxableAmount: money(summary.base),
          DifferenceTaxAmount: money(summary.tax),
          DifferenceTaxInclusiveAmount: money(roundCents(summary.base + summary.tax)),
          TaxCategory: { Percent: plain(summary.rate) },
        })),
        TaxAmount: money(tax),
      },
      LegalMonetaryTotal: {
        TaxExclusiveAmount: money(net),
        TaxInclusiveAmount: money(roundCents(net + tax)),
        AlreadyClaimedTaxExclusiveAmount: "0.00",
        AlreadyClaimedTaxInclusiveAmount: "0.00",
        DifferenceTaxExclusiveAmount: money(net),
        DifferenceTaxInclusiveAmount: money(roundCents(net + tax)),
        PayableRoundingAmount: "0.00",
        PaidDepositsAmount: "0.00",
        PayableAmount: money(invoice.totalDue!),
      },
      PaymentMeans: {
        Payment: {
          PaidAmount: money(invoice.totalDue!),
          PaymentMeansCode: "42",
          // The schema's Details need the due date and the whole bank account group (ID, BankCode, Name, IBAN, BIC, in
          // this order; empty where unknown); without a due date there are none.
          Details: invoice.dueDate
            ? defined({
                PaymentDueDate: invoice.dueDate,
                ID: account?.ID ?? "",
                BankCode: account?.BankCode ?? "",
                Name: "",
                IBAN: invoice.iban ?? "",
                BIC: "",
                VariableSymbol: invoice.variableSymbol,
              })
            : undefined,
        },
      },
    },
  });
}

/** ISDOC wants a UUID of the invoice: the document's (upper case, as ISDOC writes it). */
function uuidOfDocument(documentId: string): string {
  return documentId.toUpperCase();
}
