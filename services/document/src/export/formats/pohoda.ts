import { type Invoice, type InvoiceLine, money, netTotal, requireFields, roundCents, type TaxSummary, taxTotal } from "../invoice.js";
import { defined, xmlDocument } from "./xml.js";

const NS = "http://www.stormware.cz/schema/version_2";

/** Pohoda's name of a Czech VAT rate (its `typ:vatRateType`); the percentage is written beside it. */
function rateType(rate: number): "none" | "third" | "low" | "high" {
  if (rate <= 0) return "none";
  if (rate === 10) return "third";
  if (rate < 20) return "low";
  return "high";
}

function account(bankAccount: string | undefined) {
  const match = bankAccount ? /^\s*((?:\d{1,6}-)?\d{2,10})\s*\/\s*(\d{4})\s*$/.exec(bankAccount) : null;
  return match ? { "typ:accountNo": match[1], "typ:bankCode": match[2] } : undefined;
}

/** The summary's amounts per Pohoda rate type: price (base) and priceVAT (tax) of none, low, third and high. */
function summaryAmounts(taxes: readonly TaxSummary[]) {
  const of = (type: ReturnType<typeof rateType>) => taxes.filter((tax) => rateType(tax.rate) === type);
  const sum = (list: TaxSummary[], part: "base" | "tax") => roundCents(list.reduce((total, tax) => total + tax[part], 0));
  const none = of("none");
  return defined({
    "typ:priceNone": none.length ? money(sum(none, "base")) : undefined,
    ...Object.fromEntries(
      (["low", "third", "high"] as const).flatMap((type) => {
        const list = of(type);
        if (!list.length) return [];
        const name = type === "low" ? "Low" : type === "third" ? "3" : "High";
        return [
          [`typ:price${name}`, money(sum(list, "base"))],
          [`typ:price${name}VAT`, money(sum(list, "tax"))],
          [`typ:price${name}Sum`, money(roundCents(sum(list, "base") + sum(list, "tax")))],
        ];
      }),
    ),
  });
}

function item(line: InvoiceLine, foreign: boolean) {
  const rate = line.vatRate ?? 0;
  const net = line.net ?? 0;
  const gross = line.totalInclTax ?? roundCents((net * (100 + rate)) / 100);
  const prices = {
    "typ:unitPrice": money(line.unitPrice ?? net),
    "typ:price": money(net),
    "typ:priceVAT": money(roundCents(gross - net)),
    "typ:priceSum": money(gross),
  };
  return {
    "inv:text": line.activity ?? "",
    "inv:quantity": String(line.quantity ?? 1),
    "inv:payVAT": "false",
    "inv:rateVAT": rateType(rate),
    "inv:percentVAT": String(rate),
    [foreign ? "inv:foreignCurrency" : "inv:homeCurrency"]: prices,
  };
}

/**
 * Pohoda XML (Stormware's data pack, version 2): the document as a received invoice (`inv:invoiceType`
 * receivedInvoice) with its supplier as the partner, its lines and the VAT summary by Pohoda's rate types.
 * An invoice in another currency than CZK carries its amounts as foreignCurrency.
 */
export function pohodaInvoice(invoice: Invoice): Buffer {
  requireFields("Pohoda", invoice, { invoiceId: "invoice_id", issueDate: "issue_date", totalDue: "total_due" });
  const foreign = invoice.currency !== undefined && invoice.currency !== "CZK";
  const summary = summaryAmounts(invoice.taxes);
  return xmlDocument({
    "dat:dataPack": {
      "@xmlns:dat": `${NS}/data.xsd`,
      "@xmlns:inv": `${NS}/invoice.xsd`,
      "@xmlns:typ": `${NS}/type.xsd`,
      "@version": "2.0",
      "@id": invoice.documentId,
      "@ico": (invoice.buyerTaxId ?? "").replace(/^[A-Z]{2}/i, ""),
      "@application": "docex",
      "@note": "Received invoice exported by docex",
      "dat:dataPackItem": {
        "@version": "2.0",
        "@id": invoice.documentId,
        "inv:invoice": {
          "@version": "2.0",
          "inv:invoiceHeader": defined({
            "inv:invoiceType": "receivedInvoice",
            "inv:symVar": invoice.variableSymbol,
            "inv:originalDocument": invoice.invoiceId,
            "inv:date": invoice.issueDate,
            "inv:dateTax": invoice.taxableSupplyDate ?? invoice.issueDate,
            "inv:dateDue": invoice.dueDate,
            "inv:text": `Invoice ${invoice.invoiceId}${invoice.supplierName ? ` from ${invoice.supplierName}` : ""}`,
            "inv:partnerIdentity": {
              "typ:address": defined({
                "typ:company": invoice.supplierName,
                "typ:ico": invoice.supplierRegisterId,
                "typ:dic": invoice.supplierTaxId,
              }),
            },
            "inv:paymentType": { "typ:paymentType": "draft" },
            "inv:paymentAccount": account(invoice.bankAccount),
          }),
          "inv:invoiceDetail": { "inv:invoiceItem": invoice.lines.map((line) => item(line, foreign)) },
          "inv:invoiceSummary": {
            "inv:roundingDocument": "none",
            ...(foreign
              ? {
                  "inv:foreignCurrency": {
                    "typ:currency": { "typ:ids": invoice.currency },
                    "typ:rate": "1",
                    "typ:amount": "1",
                    "typ:priceSum": money(invoice.totalDue!),
                  },
                }
              : { "inv:homeCurrency": { ...summary, "typ:round": { "typ:priceRound": money(roundedAway(invoice)) } } }),
          },
        },
      },
    },
  });
}

/** What the total due differs from base plus tax by (a rounding on the invoice). */
function roundedAway(invoice: Invoice): number {
  return roundCents(invoice.totalDue! - netTotal(invoice) - taxTotal(invoice));
}
