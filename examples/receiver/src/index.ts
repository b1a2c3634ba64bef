export { checkInvoice, hasValidCheckDigits } from "./invoice-checks.js";
export { createReceiver, type ReceivedEvent, type ReceiverOptions } from "./receiver.js";
