// Run by kubernetes-workloads.test.ts in a child process with the register's --max-old-space-size:
// reads UPLOADS uploads of BODY_BYTES each at once, as the register does (the raw body, its text,
// JSON.parse, the upload schema, the domain's entries), and keeps them all until the end. The
// uploads are the costliest shape per byte: the most items allowed, each with a data object of many
// short fields. Exits 0 with a line of JSON when they fit; V8 aborts the process when they do not.
import { MAX_ITEMS_PER_UPLOAD, uploadBody, uploadEntriesOf } from "@docex/register";

const [bodyBytes, uploads] = process.argv.slice(2).map(Number) as [number, number];

const item = (index: number, fields: number) => ({
  value: `V${index}`,
  label: `L${index}`,
  name: `N${index}`,
  register_id: `${index}`,
  tax_id: `CZ${index}`,
  data: Object.fromEntries(Array.from({ length: fields }, (_, field) => [`k${field}`, `${index % 97}`])),
});

/** One upload's body as the bytes a client sends, built item by item so that no object graph of it stays. */
function body(): Buffer {
  const perItem = bodyBytes / MAX_ITEMS_PER_UPLOAD;
  const bytesOf = (fields: number) => Buffer.byteLength(JSON.stringify(item(MAX_ITEMS_PER_UPLOAD, fields))) + 1;
  let fields = 0;
  while (bytesOf(fields + 1) <= perItem) fields++;
  const chunks = ['[{"queue_id":"00000000-0000-4000-8000-000000000001","method":"replace","name":"suppliers","items":['];
  for (let index = 0; index < MAX_ITEMS_PER_UPLOAD; index++) chunks.push(`${index ? "," : ""}${JSON.stringify(item(index, fields))}`);
  chunks.push("]}]");
  return Buffer.from(chunks.join(""));
}

const bodies = Array.from({ length: uploads }, body);
const read = bodies.map((raw) => uploadEntriesOf(uploadBody.parse(JSON.parse(raw.toString("utf8")))));
const items = read.flat().reduce((sum, entry) => sum + entry.items.length, 0);
console.log(JSON.stringify({ bodies: bodies.map((raw) => raw.length), items, rss: process.memoryUsage().rss }));
