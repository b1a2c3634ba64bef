import { Writable } from "node:stream";
import { expect } from "chai";
import { connectDatabase } from "../src/db/database.js";
import type { Sql } from "../src/db/sql.js";
import { createLogger, errorSummaryOf } from "../src/logger.js";
import { dropDatabase, serverUrl, silentLogger, uniqueName } from "./support.js";

/** A logger writing JSON lines into `lines`. */
function capturingLogger(lines: string[]) {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return createLogger("kit-test", "info", sink);
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  expect.fail("the query succeeded");
}

describe("database errors in logs carry no bind parameters or values (issue 24, real Postgres)", () => {
  const database = uniqueName("logs");
  let sql: Sql;
  const secret = "ada.secret@example.test";

  before(async () => {
    sql = await connectDatabase({ serverUrl, database, logger: silentLogger });
    await sql.run("CREATE TABLE people (id uuid PRIMARY KEY, email text CONSTRAINT people_email_key UNIQUE)");
    await sql.run("INSERT INTO people VALUES ($1, $2)", ["6f1d2c3b-4a59-4e68-9b7a-8c9d0e1f2a3b", secret]);
  });

  after(async () => {
    await sql?.close();
    await dropDatabase(database);
  });

  const logged = (error: unknown) => {
    const lines: string[] = [];
    capturingLogger(lines).error({ err: error }, "request failed");
    expect(lines).to.have.length(1);
    return { text: lines[0]!, entry: JSON.parse(lines[0]!) as { err: Record<string, unknown> } };
  };

  it("logs a unique violation by SQL state, table and constraint, without the value or the parameters", async () => {
    const error = await failureOf(sql.run("INSERT INTO people VALUES ($1, $2)", ["0c9e8d7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f", secret]));
    const { text, entry } = logged(error);
    expect(text).to.not.include(secret);
    expect(text).to.not.include("0c9e8d7f");
    expect(entry.err).to.include({ sql_state: "23505", table: "people", constraint: "people_email_key" });
    expect(errorSummaryOf(error)).to.equal("database error 23505 (table people, constraint people_email_key)");
  });

  it("logs a value Postgres quotes in its message (invalid input syntax) without it", async () => {
    const error = await failureOf(sql.rows("SELECT * FROM people WHERE id = $1", [secret]));
    const { text, entry } = logged(error);
    expect(text).to.not.include(secret);
    expect(entry.err).to.include({ sql_state: "22P02" });
    expect(errorSummaryOf(error)).to.not.include(secret);
  });

  it("logs a Postgres error wrapped as another error's cause without its values", async () => {
    const cause = await failureOf(sql.rows("SELECT * FROM people WHERE id = $1", [secret]));
    const { text } = logged(new Error("the upload failed", { cause }));
    expect(text).to.include("the upload failed");
    expect(text).to.not.include(secret);
  });

  it("logs other errors as before", () => {
    const { entry } = logged(new Error("plain failure"));
    expect(entry.err).to.include({ type: "Error", message: "plain failure" });
    expect(String(entry.err.stack)).to.include("plain failure");
  });
});

describe("query secrets in log lines", () => {
  it("are redacted wherever a URL stands: in a field no redaction path names, in the message and in an error's text", () => {
    const lines: string[] = [];
    const logger = capturingLogger(lines);
    logger.info({ link: "/api/v2/auth/password-change-token?token=s3cr3t-1&page=2" }, "asked for /x?code=s3cr3t-2");
    logger.error({ err: new Error("GET http://auth/y?pin=s3cr3t-3 failed") }, "failed");
    const text = lines.join("");
    expect(text).to.not.include("s3cr3t");
    expect(JSON.parse(lines[0]!)).to.include({
      link: "/api/v2/auth/password-change-token?token=[redacted]&page=2",
      msg: "asked for /x?code=[redacted]",
    });
  });
});
