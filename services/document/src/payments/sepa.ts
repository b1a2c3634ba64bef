import { xmlDocument } from "../export/formats/xml.js";
import { money } from "../export/invoice.js";

export interface CreditTransfer {
  documentId: string;
  creditorName: string;
  creditorIban: string;
  amount: number;
  /** The variable symbol (else the invoice number): the remittance information. */
  remittance: string;
}

/**
 * SEPA Credit Transfer initiation, ISO 20022 pain.001.001.09: one payment information block (the debtor's account, the
 * requested execution date, SEPA service level, shared charges) with a transaction per document; the variable symbol
 * is the unstructured remittance information, the document id the end-to-end id.
 */
export function sepaCreditTransfer(batch: {
  id: string;
  createdAt: Date;
  debtorName: string;
  debtorIban: string;
  executionDate: string;
  transfers: CreditTransfer[];
}): Buffer {
  const total = money(batch.transfers.reduce((sum, transfer) => sum + Math.round(transfer.amount * 100), 0) / 100);
  const count = String(batch.transfers.length);
  const messageId = batch.id.replaceAll("-", "").slice(0, 35);
  return xmlDocument({
    Document: {
      "@xmlns": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09",
      CstmrCdtTrfInitn: {
        GrpHdr: {
          MsgId: messageId,
          CreDtTm: batch.createdAt.toISOString().slice(0, 19),
          NbOfTxs: count,
          CtrlSum: total,
          InitgPty: { Nm: text(batch.debtorName, 140) },
        },
        PmtInf: {
          PmtInfId: messageId,
          PmtMtd: "TRF",
          BtchBookg: "true",
          NbOfTxs: count,
          CtrlSum: total,
          PmtTpInf: { SvcLvl: { Cd: "SEPA" } },
          ReqdExctnDt: { Dt: batch.executionDate },
          Dbtr: { Nm: text(batch.debtorName, 140) },
          DbtrAcct: { Id: { IBAN: batch.debtorIban } },
          DbtrAgt: { FinInstnId: { Othr: { Id: "NOTPROVIDED" } } },
          ChrgBr: "SLEV",
          CdtTrfTxInf: batch.transfers.map((transfer) => ({
            PmtId: { EndToEndId: transfer.documentId.replaceAll("-", "").slice(0, 35) },
            Amt: { InstdAmt: { "@Ccy": "EUR", "#text": money(transfer.amount) } },
            Cdtr: { Nm: text(transfer.creditorName, 140) },
            CdtrAcct: { Id: { IBAN: transfer.creditorIban } },
            RmtInf: { Ustrd: text(transfer.remittance, 140) },
          })),
        },
      },
    },
  });
}

/** SEPA's Latin character set, at most `max` characters: what is outside it becomes a space. */
function text(value: string, max: number): string {
  const cleaned = value
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, " ")
    .trim();
  return (cleaned || "NOTPROVIDED").slice(0, max);
}
