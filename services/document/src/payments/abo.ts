import type { CzechAccount } from "./accounts.js";

export interface DomesticTransfer {
  creditor: CzechAccount;
  amount: number;
  variableSymbol: string;
}

const digits = (value: string, width: number) => value.replace(/\D/g, "").slice(-width).padStart(width, "0");
const account = ({ prefix, number }: CzechAccount) => `${digits(prefix, 6)}-${digits(number, 10)}`;
const halere = (amount: number) => String(Math.round(amount * 100)).padStart(15, "0");
const ddmmyy = (iso: string) => `${iso.slice(8, 10)}${iso.slice(5, 7)}${iso.slice(2, 4)}`;

/**
 * The Czech banks' ABO (KPC) domestic payment order file: the UHL1 header, an accounting file (`1 1501`) of the
 * debtor's bank, one group (`2`: debtor account, total in haléř, due date) of items (creditor account, amount, variable
 * symbol, creditor's bank code with constant symbol 0000), closed by `3 +` and `5 +`. CRLF lines, ASCII.
 */
export function aboPaymentOrder(batch: {
  createdAt: Date;
  clientName: string;
  debtor: CzechAccount;
  executionDate: string;
  transfers: DomesticTransfer[];
}): Buffer {
  const total = batch.transfers.reduce((sum, transfer) => sum + Math.round(transfer.amount * 100), 0) / 100;
  const name = batch.clientName
    .normalize("NFD")
    .replace(/[^\x20-\x7e]/g, "")
    .slice(0, 20)
    .padEnd(20, " ");
  const lines = [
    `UHL1${ddmmyy(batch.createdAt.toISOString().slice(0, 10))}${name}${"0".repeat(10)}001999${"0".repeat(6)}${"0".repeat(6)}`,
    `1 1501 001000 ${batch.debtor.bank}`,
    `2 ${account(batch.debtor)} ${halere(total)} ${ddmmyy(batch.executionDate)}`,
    ...batch.transfers.map(
      (transfer) =>
        `${account(transfer.creditor)} ${halere(transfer.amount)} ${digits(transfer.variableSymbol, 10)} ${transfer.creditor.bank}0000 0000000000`,
    ),
    "3 +",
    "5 +",
  ];
  return Buffer.from(`${lines.join("\r\n")}\r\n`, "ascii");
}
