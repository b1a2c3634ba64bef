import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_ANNOTATION_SCHEMA } from "@docex/annotations";
import { ciiXml, type InvoiceLine, isdocXml, makeInvoice, ublXml } from "@docex/testkit/invoice-corpus";
import { expect } from "chai";
import { annotationsFor } from "../src/engine/annotations.js";
import { extractInvoice } from "../src/engine/engine.js";
import type { ExtractionResult } from "../src/engine/types.js";

const encode = (xml: string) => new TextEncoder().encode(xml);
const fieldValue = (result: ExtractionResult, key: string) => (result.fields as Record<string, { value: string } | undefined>)[key]?.value;

const UBL = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>R-2026-17</cbc:ID>
  <cbc:IssueDate>2026-11-02</cbc:IssueDate>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party>
    <cac:PartyIdentification><cbc:ID schemeID="0088">4000001123452</cbc:ID></cac:PartyIdentification>
    <cac:PartyName><cbc:Name>Muster Shop</cbc:Name></cac:PartyName>
    <cac:PartyTaxScheme><cbc:CompanyID>201/113/40209</cbc:CompanyID><cac:TaxScheme><cbc:ID>FC</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Muster Handel GmbH &amp; Co. KG</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party>
    <cac:PartyTaxScheme><cbc:CompanyID>DE999999999</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
    <cac:PartyLegalEntity><cbc:RegistrationName>Kunde AG</cbc:RegistrationName></cac:PartyLegalEntity>
  </cac:Party></cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>48</cbc:PaymentMeansCode></cac:PaymentMeans>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cbc:PaymentID>RF18539007547034</cbc:PaymentID>
    <cac:PayeeFinancialAccount><cbc:ID>DE02120300000000202051</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">19.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:TaxTotal><cbc:TaxAmount currencyID="CZK">480.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">119.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
</Invoice>`;

describe("extraction engine: e-invoices read exactly (the residuals of issue 36)", () => {
  it("UBL: the seller is its legal name (BT-27), not its trading name; '&amp;' is decoded", async () => {
    const result = await extractInvoice({ bytes: encode(UBL) });
    expect(fieldValue(result, "supplier_name")).to.equal("Muster Handel GmbH & Co. KG");
  });

  it("UBL: a German tax number (scheme FC) is not the VAT id, and PartyIdentification is not a register id", async () => {
    const result = await extractInvoice({ bytes: encode(UBL) });
    expect(fieldValue(result, "supplier_tax_id")).to.equal(undefined);
    expect(fieldValue(result, "supplier_register_id")).to.equal(undefined);
  });

  it("UBL: the buyer, the totals without tax and of tax in the document's currency, the account of the means that has one", async () => {
    const result = await extractInvoice({ bytes: encode(UBL) });
    expect(fieldValue(result, "buyer_name")).to.equal("Kunde AG");
    expect(fieldValue(result, "buyer_tax_id")).to.equal("DE999999999");
    expect(fieldValue(result, "total_without_tax")).to.equal("100.00");
    expect(fieldValue(result, "total_tax")).to.equal("19.00");
    expect(fieldValue(result, "total_due")).to.equal("119.00");
    expect(fieldValue(result, "iban")).to.equal("DE02120300000000202051");
    expect(fieldValue(result, "variable_symbol")).to.equal("RF18539007547034");
  });

  it("CII: only a VA registration is the VAT id; a seller with a tax number alone has none", async () => {
    const cii = `<?xml version="1.0"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocument><ram:ID>471102</ram:ID><ram:IssueDateTime><udt:DateTimeString format="102">20260305</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Kunden AG Mitte</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:TaxBasisTotalAmount>198.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">37.62</ram:TaxTotalAmount>
        <ram:DuePayableAmount>235.62</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;
    const result = await extractInvoice({ bytes: encode(cii) });
    expect(fieldValue(result, "supplier_tax_id")).to.equal(undefined);
    expect(fieldValue(result, "buyer_name")).to.equal("Kunden AG Mitte");
    expect([fieldValue(result, "total_without_tax"), fieldValue(result, "total_tax"), fieldValue(result, "total_due")]).to.deep.equal([
      "198.00",
      "37.62",
      "235.62",
    ]);
  });

  it("ZUGFeRD 1.0: a CrossIndustryDocument is read like CII", async () => {
    const zugferd1 = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
  <rsm:HeaderExchangedDocument><ram:ID>471102</ram:ID>
    <ram:IssueDateTime><udt:DateTimeString format="102">20130305</udt:DateTimeString></ram:IssueDateTime></rsm:HeaderExchangedDocument>
  <rsm:SpecifiedSupplyChainTradeTransaction>
    <ram:ApplicableSupplyChainTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">201/113/40209</ram:ID></ram:SpecifiedTaxRegistration>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Kunden AG Mitte</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableSupplyChainTradeAgreement>
    <ram:ApplicableSupplyChainTradeSettlement>
      <ram:PaymentReference>2013-471102</ram:PaymentReference>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans><ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE08700901001234567890</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:SpecifiedTradePaymentTerms><ram:DueDateDateTime><udt:DateTimeString format="102">20130404</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementMonetarySummation>
        <ram:TaxBasisTotalAmount currencyID="EUR">473.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">56.87</ram:TaxTotalAmount>
        <ram:DuePayableAmount currencyID="EUR">529.87</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementMonetarySummation>
    </ram:ApplicableSupplyChainTradeSettlement>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:SpecifiedSupplyChainTradeDelivery><ram:BilledQuantity unitCode="C62">20.0000</ram:BilledQuantity></ram:SpecifiedSupplyChainTradeDelivery>
      <ram:SpecifiedSupplyChainTradeSettlement>
        <ram:ApplicableTradeTax><ram:ApplicablePercent>19.00</ram:ApplicablePercent></ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">198.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>
      </ram:SpecifiedSupplyChainTradeSettlement>
      <ram:SpecifiedTradeProduct><ram:Name>Trennblätter A4</ram:Name></ram:SpecifiedTradeProduct>
    </ram:IncludedSupplyChainTradeLineItem>
  </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>`;
    const result = await extractInvoice({ bytes: encode(zugferd1) });
    expect(result.format).to.equal("zugferd1");
    expect(Object.fromEntries(Object.entries(result.fields).map(([key, field]) => [key, field?.value]))).to.deep.equal({
      invoice_id: "471102",
      document_type: "invoice",
      issue_date: "2013-03-05",
      due_date: "2013-04-04",
      total_due: "529.87",
      currency: "EUR",
      iban: "DE08700901001234567890",
      variable_symbol: "2013-471102",
      supplier_name: "Lieferant GmbH",
      supplier_tax_id: "DE123456789",
      buyer_name: "Kunden AG Mitte",
      total_without_tax: "473.00",
      total_tax: "56.87",
    });
    expect(result.lineItems?.rows).to.deep.equal([
      { activity: "Trennblätter A4", quantity: "20", vat_rate: "19", total_incl_tax: "235.62" },
    ]);
  });

  it("ISDOC with several Payment entries: due date, account and variable symbol from the entries that have them", async () => {
    const isdoc = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="http://isdoc.cz/namespace/2013" version="6.0.2">
  <DocumentType>1</DocumentType><ID>FV-2026-0042</ID><IssueDate>2026-11-30</IssueDate><LocalCurrencyCode>CZK</LocalCurrencyCode>
  <AccountingSupplierParty><Party><PartyIdentification><ID>25596641</ID></PartyIdentification><PartyName><Name>Dodavatel s.r.o.</Name></PartyName>
    <PartyTaxScheme><CompanyID>CZ25596641</CompanyID><TaxScheme>VAT</TaxScheme></PartyTaxScheme></Party></AccountingSupplierParty>
  <AccountingCustomerParty><Party><PartyName><Name>Odběratel a.s.</Name></PartyName></Party></AccountingCustomerParty>
  <TaxTotal><TaxAmount>210.00</TaxAmount></TaxTotal>
  <LegalMonetaryTotal><TaxExclusiveAmount>1000.00</TaxExclusiveAmount><PayableAmount>1210.00</PayableAmount></LegalMonetaryTotal>
  <PaymentMeans>
    <Payment><PaidAmount>210.00</PaidAmount><PaymentMeansCode>10</PaymentMeansCode></Payment>
    <Payment><PaidAmount>1000.00</PaidAmount><PaymentMeansCode>42</PaymentMeansCode>
      <Details><PaymentDueDate>2026-12-14</PaymentDueDate><ID>19-2000145399</ID><BankCode>0800</BankCode><Name>Česká spořitelna</Name>
        <IBAN>CZ6508000000192000145399</IBAN><BIC>GIBACZPX</BIC><VariableSymbol>20260042</VariableSymbol></Details></Payment>
  </PaymentMeans>
</Invoice>`;
    const result = await extractInvoice({ bytes: encode(isdoc) });
    expect(fieldValue(result, "due_date")).to.equal("2026-12-14");
    expect(fieldValue(result, "iban")).to.equal("CZ6508000000192000145399");
    expect(fieldValue(result, "variable_symbol")).to.equal("20260042");
    expect(fieldValue(result, "buyer_name")).to.equal("Odběratel a.s.");
    expect([fieldValue(result, "total_without_tax"), fieldValue(result, "total_tax")]).to.deep.equal(["1000.00", "210.00"]);
  });

  describe("on the real corpus (../shared/corpus, skipped where absent)", function () {
    this.timeout(120_000);
    const corpus = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../shared/corpus/files");

    it("reads every mapped field of every UBL, CII and Factur-X invoice right, and nothing where none is given", async function () {
      if (!existsSync(corpus)) this.skip();
      const keys: Record<string, string> = {
        invoice_id: "invoice_id",
        issue_date: "issue_date",
        due_date: "due_date",
        currency: "currency",
        seller_name: "supplier_name",
        seller_vat: "supplier_tax_id",
        buyer_name: "buyer_name",
        total_payable: "total_due",
        tax_exclusive: "total_without_tax",
        tax_amount: "total_tax",
        iban: "iban",
        payment_reference: "variable_symbol",
      };
      const wrong: string[] = [];
      let files = 0;
      for (const category of ["ubl", "cii", "facturx_pdf"]) {
        for (const name of (await readdir(path.join(corpus, category))).filter((entry) => entry.endsWith(".truth.json"))) {
          const truth = JSON.parse(await readFile(path.join(corpus, category, name), "utf8")) as {
            file: string;
            truth: Record<string, unknown>;
          };
          const result = await extractInvoice({ bytes: new Uint8Array(await readFile(path.join(corpus, truth.file))) });
          files += 1;
          for (const [term, key] of Object.entries(keys)) {
            const expected = truth.truth[term];
            const got = fieldValue(result, key);
            const same =
              expected === null || expected === undefined
                ? got === undefined
                : /amount|payable|exclusive/.test(term)
                  ? Number(got) === Number(expected)
                  : String(got ?? "")
                      .replace(/\s/g, "")
                      .toLowerCase() === String(expected).replace(/\s/g, "").toLowerCase();
            if (!same) wrong.push(`${truth.file} ${term}: ${String(expected)} ≠ ${String(got)}`);
          }
          if (truth.truth.line_count !== undefined && (result.lineItems?.rows.length ?? 0) !== truth.truth.line_count)
            wrong.push(`${truth.file} line_count: ${String(truth.truth.line_count)} ≠ ${result.lineItems?.rows.length ?? 0}`);
        }
      }
      expect(files).to.be.greaterThan(150);
      expect(wrong).to.deep.equal([]);
    });
  });
});

describe("extraction engine: the VAT breakdown (tax_details)", () => {
  /** An invoice whose lines carry two VAT rates, as UBL and CII print it, with the breakdown each rate should have. */
  function twoRates() {
    const invoice = makeInvoice(7, "cs");
    invoice.lines = [
      { ...(invoice.lines[0] as InvoiceLine), quantity: 2, unitPrice: 100, vatRate: 21 },
      { ...(invoice.lines[0] as InvoiceLine), activity: "Books", quantity: 1, unitPrice: 50, vatRate: 12 },
    ];
    return invoice;
  }
  const expected = [
    { rate: "21", base: "200.00", tax: "42.00" },
    { rate: "12", base: "50.00", tax: "6.00" },
  ];

  it("reads one row per rate from UBL and CII, with confidence 100", async () => {
    for (const bytes of [ublXml(twoRates()), ciiXml(twoRates())]) {
      const result = await extractInvoice({ bytes });
      expect(result.taxDetails?.rows, result.format).to.deep.equal(expected);
      expect(result.taxDetails?.confidence).to.equal(100);
    }
  });

  it("fills the default schema's tax_details table, and line items with every column the engine finds", async () => {
    const result = await extractInvoice({ bytes: ublXml(twoRates()) });
    const { annotations } = annotationsFor(result, [...DEFAULT_ANNOTATION_SCHEMA]);
    const table = annotations.find((annotation) => annotation.key === "tax_details");
    expect(table?.rows).to.deep.equal(
      expected.map((row) => ({ rate: { value: row.rate }, base: { value: row.base }, tax: { value: row.tax } })),
    );
    const lines = annotations.find((annotation) => annotation.key === "line_items");
    expect(Object.keys(lines?.rows?.[0] ?? {}).sort()).to.deep.equal(["activity", "quantity", "total_incl_tax", "unit_price", "vat_rate"]);
    // Every field the engine filled is in the default schema.
    const keys = new Set(annotations.map((annotation) => annotation.key));
    for (const key of Object.keys(result.fields)) expect(keys.has(key), key).to.equal(true);
  });

  it("puts line items in a schema's line_items table even when another table comes first", () => {
    const schema = [
      { key: "tax_details", type: "table", columns: [{ key: "rate", type: "number" }] },
      { key: "line_items", type: "table", columns: [{ key: "activity", type: "string" }] },
    ];
    const { annotations } = annotationsFor(
      {
        format: "ubl",
        fields: {},
        lineItems: { rows: [{ activity: "Hosting" }], confidence: 100, source: "builtin:einvoice" },
        taxDetails: { rows: [{ rate: "21" }], confidence: 100, source: "builtin:einvoice" },
        messages: [],
      },
      schema,
    );
    expect(annotations.map((annotation) => [annotation.key, annotation.rows])).to.deep.equal([
      ["line_items", [{ activity: { value: "Hosting" } }]],
      ["tax_details", [{ rate: { value: "21" } }]],
    ]);
  });
});

describe("extraction engine: the kind of document (credit notes)", () => {
  const ubl = (root: "Invoice" | "CreditNote", typeCode?: string) =>
    encode(`<?xml version="1.0" encoding="UTF-8"?>
<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>CN-7</cbc:ID>
  <cbc:IssueDate>2026-11-02</cbc:IssueDate>
  ${typeCode ? `<cbc:${root === "Invoice" ? "InvoiceTypeCode" : "CreditNoteTypeCode"}>${typeCode}</cbc:${root === "Invoice" ? "InvoiceTypeCode" : "CreditNoteTypeCode"}>` : ""}
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:LegalMonetaryTotal><cbc:PayableAmount currencyID="EUR">119.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
</${root}>`);

  it("keeps a credit note's kind, its amounts as the document gives them (EN 16931: positive, credited by its type)", async () => {
    const credit = await extractInvoice({ bytes: ubl("CreditNote", "381") });
    expect(fieldValue(credit, "document_type")).to.equal("credit_note");
    expect(fieldValue(credit, "total_due")).to.equal("119.00");
    expect(fieldValue(await extractInvoice({ bytes: ubl("CreditNote") }), "document_type")).to.equal("credit_note");
    expect(fieldValue(await extractInvoice({ bytes: ubl("Invoice", "380") }), "document_type")).to.equal("invoice");
    expect(fieldValue(await extractInvoice({ bytes: ubl("Invoice", "383") }), "document_type")).to.equal("debit_note");
  });

  it("reads CII's and ISDOC's type codes", async () => {
    const cii = ciiXml(makeInvoice(9, "de"));
    const asCredit = new TextEncoder().encode(
      new TextDecoder().decode(cii).replace(/<ram:TypeCode>380<\/ram:TypeCode>/, "<ram:TypeCode>381</ram:TypeCode>"),
    );
    expect(fieldValue(await extractInvoice({ bytes: cii }), "document_type")).to.equal("invoice");
    expect(fieldValue(await extractInvoice({ bytes: asCredit }), "document_type")).to.equal("credit_note");
    const isdoc = new TextDecoder().decode(isdocXml(makeInvoice(9, "cs")));
    const isdocCredit = isdoc.replace(/<DocumentType>1<\/DocumentType>/, "<DocumentType>2</DocumentType>");
    expect(isdocCredit).to.not.equal(isdoc);
    expect(fieldValue(await extractInvoice({ bytes: new TextEncoder().encode(isdocCredit) }), "document_type")).to.equal("credit_note");
  });
});
