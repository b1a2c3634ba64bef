import { XMLBuilder } from "fast-xml-parser";
import { zipSync } from "fflate";
import { type InvoiceTruth, lineGross, lineNet, totalDue, totalNet } from "./invoice-data.js";

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@", format: true, suppressEmptyNode: true });

function xml(document: Record<string, unknown>): Uint8Array {
  return new TextEncoder().encode(`<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(document)}`);
}

const money = (value: number) => value.toFixed(2);
const compactDate = (iso: string) => iso.replaceAll("-", "");

function taxAmount(invoice: InvoiceTruth): number {
  return Math.round((totalDue(invoice) - totalNet(invoice)) * 100) / 100;
}

/** ISDOC 6.0.2 (the Czech standard). */
export function isdocXml(invoice: InvoiceTruth): Uint8Array {
  const { supplier, buyer } = invoice;
  const foreign = invoice.currency !== "CZK";
  const [accountNumber, bankCode] = (supplier.bankAccount ?? "/").split("/");
  const party = (p: { name: string; taxId: string; registerId: string; street: string; city: string; zip: string }, country: string) => ({
    PartyIdentification: { ID: p.registerId },
    PartyName: { Name: p.name },
    PostalAddress: {
      StreetName: p.street,
      BuildingNumber: "",
      CityName: p.city,
      PostalZone: p.zip,
      Country: { IdentificationCode: country, Name: country === "CZ" ? "Česká republika" : "Deutschland" },
    },
    PartyTaxScheme: { CompanyID: p.taxId, TaxScheme: "VAT" },
  });
  return xml({
    Invoice: {
      "@xmlns": "http://isdoc.cz/namespace/2013",
      "@version": "6.0.2",
      DocumentType: "1",
      ID: invoice.invoiceId,
      UUID: "A1B2C3D4-0000-4000-8000-000000000001",
      IssueDate: invoice.issueDate,
      TaxPointDate: invoice.issueDate,
      VATApplicable: "true",
      LocalCurrencyCode: "CZK",
      ...(foreign ? { ForeignCurrencyCode: invoice.currency, CurrRate: "25.000", RefCurrRate: "1" } : { CurrRate: "1", RefCurrRate: "1" }),
      AccountingSupplierParty: { Party: party(supplier, supplier.country) },
      AccountingCustomerParty: { Party: party(buyer, "CZ") },
      InvoiceLines: {
        InvoiceLine: invoice.lines.map((line, index) => ({
          ID: String(index + 1),
          InvoicedQuantity: { "@unitCode": "ks", "#text": String(line.quantity) },
          LineExtensionAmount: money(lineNet(line)),
          LineExtensionAmountTaxInclusive: money(lineGross(line)),
          LineExtensionTaxAmount: money(lineGross(line) - lineNet(line)),
          UnitPrice: money(line.unitPrice),
          UnitPriceTaxInclusive: money((line.unitPrice * (100 + line.vatRate)) / 100),
          ClassifiedTaxCategory: { Percent: String(line.vatRate), VATCalculationMethod: "0" },
          Item: { Description: line.activity },
        })),
      },
      TaxTotal: { TaxAmount: money(taxAmount(invoice)) },
      LegalMonetaryTotal: {
        TaxExclusiveAmount: money(totalNet(invoice)),
        TaxInclusiveAmount: money(totalDue(invoice)),
        AlreadyClaimedTaxExclusiveAmount: "0",
        AlreadyClaimedTaxInclusiveAmount: "0",
        DifferenceTaxExclusiveAmount: money(totalNet(invoice)),
        DifferenceTaxInclusiveAmount: money(totalDue(invoice)),
        PayableRoundingAmount: "0",
        PaidDepositsAmount: "0",
        PayableAmount: money(totalDue(invoice)),
      },
      PaymentMeans: {
        Payment: {
          PaidAmount: money(totalDue(invoice)),
          PaymentMeansCode: "42",
          Details: {
            PaymentDueDate: invoice.dueDate,
            ...(supplier.bankAccount ? { ID: accountNumber, BankCode: bankCode } : {}),
            Name: "Banka",
            IBAN: supplier.iban,
            BIC: "GIBACZPX",
            VariableSymbol: invoice.variableSymbol,
          },
        },
      },
    },
  });
}

/** An .isdocx: the ISDOC with its manifest in a zip. */
export function isdocxArchive(invoice: InvoiceTruth): Uint8Array {
  const manifest = new TextEncoder().encode(
    `<?xml version="1.0" encoding="UTF-8"?>\n<manifest xmlns="http://isdoc.cz/namespace/2013/manifest"><maindocument filename="invoice.isdoc"/></manifest>`,
  );
  return zipSync({ "invoice.isdoc": isdocXml(invoice), "manifest.xml": manifest });
}

/** UBL 2.1 invoice following PEPPOL BIS Billing 3.0. */
export function ublXml(invoice: InvoiceTruth): Uint8Array {
  const { supplier, buyer } = invoice;
  const amount = (value: number) => ({ "@currencyID": invoice.currency, "#text": money(value) });
  const rates = [...new Set(invoice.lines.map((line) => line.vatRate))];
  return xml({
    Invoice: {
      "@xmlns": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
      "@xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
      "@xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
      "cbc:CustomizationID": "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0",
      "cbc:ProfileID": "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0",
      "cbc:ID": invoice.invoiceId,
      "cbc:IssueDate": invoice.issueDate,
      "cbc:DueDate": invoice.dueDate,
      "cbc:InvoiceTypeCode": "380",
      "cbc:DocumentCurrencyCode": invoice.currency,
      "cbc:BuyerReference": "n/a",
      "cac:AccountingSupplierParty": {
        "cac:Party": {
          "cbc:EndpointID": { "@schemeID": supplier.country === "CZ" ? "9929" : "9930", "#text": supplier.taxId },
          "cac:PartyName": { "cbc:Name": supplier.name },
          "cac:PostalAddress": {
            "cbc:StreetName": supplier.street,
            "cbc:CityName": supplier.city,
            "cbc:PostalZone": supplier.zip,
            "cac:Country": { "cbc:IdentificationCode": supplier.country },
          },
          "cac:PartyTaxScheme": { "cbc:CompanyID": supplier.taxId, "cac:TaxScheme": { "cbc:ID": "VAT" } },
          "cac:PartyLegalEntity": { "cbc:RegistrationName": supplier.name, "cbc:CompanyID": supplier.registerId },
        },
      },
      "cac:AccountingCustomerParty": {
        "cac:Party": {
          "cbc:EndpointID": { "@schemeID": "9929", "#text": buyer.taxId },
          "cac:PartyName": { "cbc:Name": buyer.name },
          "cac:PostalAddress": {
            "cbc:StreetName": buyer.street,
            "cbc:CityName": buyer.city,
            "cac:Country": { "cbc:IdentificationCode": "CZ" },
          },
          "cac:PartyTaxScheme": { "cbc:CompanyID": buyer.taxId, "cac:TaxScheme": { "cbc:ID": "VAT" } },
          "cac:PartyLegalEntity": { "cbc:RegistrationName": buyer.name, "cbc:CompanyID": buyer.registerId },
        },
      },
      "cac:PaymentMeans": {
        "cbc:PaymentMeansCode": "30",
        "cbc:PaymentID": invoice.variableSymbol,
        "cac:PayeeFinancialAccount": { "cbc:ID": supplier.iban },
      },
      "cac:TaxTotal": {
        "cbc:TaxAmount": amount(taxAmount(invoice)),
        "cac:TaxSubtotal": rates.map((rate) => {
          const lines = invoice.lines.filter((line) => line.vatRate === rate);
          const net = lines.reduce((sum, line) => sum + lineNet(line), 0);
          const gross = lines.reduce((sum, line) => sum + lineGross(line), 0);
          return {
            "cbc:TaxableAmount": amount(net),
            "cbc:TaxAmount": amount(gross - net),
            "cac:TaxCategory": { "cbc:ID": "S", "cbc:Percent": String(rate), "cac:TaxScheme": { "cbc:ID": "VAT" } },
          };
        }),
      },
      "cac:LegalMonetaryTotal": {
        "cbc:LineExtensionAmount": amount(totalNet(invoice)),
        "cbc:TaxExclusiveAmount": amount(totalNet(invoice)),
        "cbc:TaxInclusiveAmount": amount(totalDue(invoice)),
        "cbc:PayableAmount": amount(totalDue(invoice)),
      },
      "cac:InvoiceLine": invoice.lines.map((line, index) => ({
        "cbc:ID": String(index + 1),
        "cbc:InvoicedQuantity": { "@unitCode": "C62", "#text": String(line.quantity) },
        "cbc:LineExtensionAmount": amount(lineNet(line)),
        "cac:Item": {
          "cbc:Name": line.activity,
          "cac:ClassifiedTaxCategory": { "cbc:ID": "S", "cbc:Percent": String(line.vatRate), "cac:TaxScheme": { "cbc:ID": "VAT" } },
        },
        "cac:Price": { "cbc:PriceAmount": amount(line.unitPrice) },
      })),
    },
  });
}

const XRECHNUNG = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0";
const EN16931 = "urn:cen.eu:en16931:2017";

/** UN/CEFACT CII D16B: EN 16931 (the Factur-X / ZUGFeRD XML) or XRechnung 3.0. */
export function ciiXml(invoice: InvoiceTruth, guideline: "en16931" | "xrechnung" = "en16931"): Uint8Array {
  const { supplier, buyer } = invoice;
  const date = (iso: string) => ({ "udt:DateTimeString": { "@format": "102", "#text": compactDate(iso) } });
  const rates = [...new Set(invoice.lines.map((line) => line.vatRate))];
  return xml({
    "rsm:CrossIndustryInvoice": {
      "@xmlns:rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
      "@xmlns:ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
      "@xmlns:udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
      "@xmlns:qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
      "rsm:ExchangedDocumentContext": {
        "ram:GuidelineSpecifiedDocumentContextParameter": { "ram:ID": guideline === "xrechnung" ? XRECHNUNG : EN16931 },
      },
      "rsm:ExchangedDocument": { "ram:ID": invoice.invoiceId, "ram:TypeCode": "380", "ram:IssueDateTime": date(invoice.issueDate) },
      "rsm:SupplyChainTradeTransaction": {
        "ram:IncludedSupplyChainTradeLineItem": invoice.lines.map((line, index) => ({
          "ram:AssociatedDocumentLineDocument": { "ram:LineID": String(index + 1) },
          "ram:SpecifiedTradeProduct": { "ram:Name": line.activity },
          "ram:SpecifiedLineTradeAgreement": { "ram:NetPriceProductTradePrice": { "ram:ChargeAmount": money(line.unitPrice) } },
          "ram:SpecifiedLineTradeDelivery": { "ram:BilledQuantity": { "@unitCode": "C62", "#text": String(line.quantity) } },
          "ram:SpecifiedLineTradeSettlement": {
            "ram:ApplicableTradeTax": { "ram:TypeCode": "VAT", "ram:CategoryCode": "S", "ram:RateApplicablePercent": String(line.vatRate) },
            "ram:SpecifiedTradeSettlementLineMonetarySummation": { "ram:LineTotalAmount": money(lineNet(line)) },
          },
        })),
        "ram:ApplicableHeaderTradeAgreement": {
          "ram:BuyerReference": guideline === "xrechnung" ? "04011000-12345-34" : undefined,
          "ram:SellerTradeParty": {
            "ram:Name": supplier.name,
            "ram:SpecifiedLegalOrganization": { "ram:ID": supplier.registerId },
            "ram:PostalTradeAddress": {
              "ram:PostcodeCode": supplier.zip,
              "ram:LineOne": supplier.street,
              "ram:CityName": supplier.city,
              "ram:CountryID": supplier.country,
            },
            "ram:SpecifiedTaxRegistration": { "ram:ID": { "@schemeID": "VA", "#text": supplier.taxId } },
          },
          "ram:BuyerTradeParty": {
            "ram:Name": buyer.name,
            "ram:SpecifiedLegalOrganization": { "ram:ID": buyer.registerId },
            "ram:PostalTradeAddress": {
              "ram:PostcodeCode": buyer.zip,
              "ram:LineOne": buyer.street,
              "ram:CityName": buyer.city,
              "ram:CountryID": "CZ",
            },
            "ram:SpecifiedTaxRegistration": { "ram:ID": { "@schemeID": "VA", "#text": buyer.taxId } },
          },
        },
        "ram:ApplicableHeaderTradeDelivery": {
          "ram:ActualDeliverySupplyChainEvent": { "ram:OccurrenceDateTime": date(invoice.issueDate) },
        },
        "ram:ApplicableHeaderTradeSettlement": {
          "ram:PaymentReference": invoice.variableSymbol,
          "ram:InvoiceCurrencyCode": invoice.currency,
          "ram:SpecifiedTradeSettlementPaymentMeans": {
            "ram:TypeCode": "58",
            "ram:PayeePartyCreditorFinancialAccount": { "ram:IBANID": supplier.iban },
          },
          "ram:ApplicableTradeTax": rates.map((rate) => {
            const lines = invoice.lines.filter((line) => line.vatRate === rate);
            const net = lines.reduce((sum, line) => sum + lineNet(line), 0);
            const gross = lines.reduce((sum, line) => sum + lineGross(line), 0);
            return {
              "ram:CalculatedAmount": money(gross - net),
              "ram:TypeCode": "VAT",
              "ram:BasisAmount": money(net),
              "ram:CategoryCode": "S",
              "ram:RateApplicablePercent": String(rate),
            };
          }),
          "ram:SpecifiedTradePaymentTerms": { "ram:DueDateDateTime": date(invoice.dueDate) },
          "ram:SpecifiedTradeSettlementHeaderMonetarySummation": {
            "ram:LineTotalAmount": money(totalNet(invoice)),
            "ram:TaxBasisTotalAmount": money(totalNet(invoice)),
            "ram:TaxTotalAmount": { "@currencyID": invoice.currency, "#text": money(taxAmount(invoice)) },
            "ram:GrandTotalAmount": money(totalDue(invoice)),
            "ram:DuePayableAmount": money(totalDue(invoice)),
          },
        },
      },
    },
  });
}
