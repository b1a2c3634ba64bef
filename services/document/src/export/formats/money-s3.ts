import { type Invoice, money, netTotal, requireFields, roundCents, type TaxSummary, taxTotal } from "../invoice.js";
import { defined, xmlDocument } from "./xml.js";

/**
 * Money S3's VAT summary keeps the reduced rate under `…5` and the basic one under `…22` (the names of the rates when
 * the format was made); zero-rated bases go to Zaklad0.
 */
function vatSummary(taxes: readonly TaxSummary[]) {
  const sum = (list: TaxSummary[], part: "base" | "tax") => roundCents(list.reduce((total, tax) => total + tax[part], 0));
  const zero = taxes.filter((tax) => tax.rate <= 0);
  const reduced = taxes.filter((tax) => tax.rate > 0 && tax.rate < 20);
  const basic = taxes.filter((tax) => tax.rate >= 20);
  return {
    Zaklad0: money(sum(zero, "base")),
    Zaklad5: money(sum(reduced, "base")),
    Zaklad22: money(sum(basic, "base")),
    DPH5: money(sum(reduced, "tax")),
    DPH22: money(sum(basic, "tax")),
  };
}

/**
 * Money S3's XML import (MoneyData, list SeznamFaktPrij): the document as a received invoice (FaktPrij) with the
 * supplier as the partner (DodOdb), the VAT summary, and its lines (Polozka, prices without VAT).
 */
export function moneyS3Invoice(invoice: Invoice): Buffer {
  requireFields("Money S3", invoice, { invoiceId: "invoice_id", issueDate: "issue_date", totalDue: "total_due" });
  const foreign = invoice.currency !== undefined && invoice.currency !== "CZK";
  return xmlDocument({
    MoneyData: {
      "@ICAgendy": (invoice.buyerTaxId ?? "").replace(/^[A-Z]{2}/i, ""),
      "@KodAgendy": "",
      "@HospRokOd": "",
      "@HospRokDo": "",
      "@description": "Received invoices exported by docex",
      "@ExpZkratka": "_FP+FV",
      "@ExpDate": new Date().toISOString().slice(0, 10),
      "@ExpTime": new Date().toISOString().slice(11, 19),
      "@VyberZaznamu": "0",
      SeznamFaktPrij: {
        FaktPrij: defined({
          Doklad: invoice.invoiceId,
          Popis: `Invoice ${invoice.invoiceId}${invoice.supplierName ? ` from ${invoice.supplierName}` : ""}`,
          PrijatDokl: invoice.invoiceId,
          DatUcPr: invoice.issueDate,
          DatVyst: invoice.issueDate,
          DatSplat: invoice.dueDate,
          DatPln: invoice.taxableSupplyDate ?? invoice.issueDate,
          VarSymbol: invoice.variableSymbol,
          SouhrnDPH: vatSummary(invoice.taxes),
          Celkem: money(invoice.totalDue!),
          Valuty: foreign ? { Mena: { Kod: invoice.currency, Mnozstvi: "1", Kurs: "1" }, Celkem: money(invoice.totalDue!) } : undefined,
          DodOdb: defined({
            ObchNazev: invoice.supplierName,
            FaktNazev: invoice.supplierName,
            ICO: invoice.supplierRegisterId,
            DIC: invoice.supplierTaxId,
          }),
          Ucet: invoice.bankAccount,
          IBAN: invoice.iban,
          Polozka: invoice.lines.map((line) =>
            defined({
              Popis: line.activity ?? "",
              PocetMJ: String(line.quantity ?? 1),
              Cena: money(line.unitPrice ?? line.net ?? 0),
              SazbaDPH: String(line.vatRate ?? 0),
              TypCeny: "0",
              Celkem: money(line.totalInclTax ?? line.net ?? 0),
            }),
          ),
          ZakladCelkem: money(netTotal(invoice)),
          DPHCelkem: money(taxTotal(invoice)),
        }),
      },
    },
  });
}
