import { createServer, type Server, type Socket } from "node:net";
import { freePort, testDatabaseServerUrl } from "@docex/testkit";
import { expect } from "chai";
import { AuthHarness, newEmail } from "./support/auth-harness.js";

/** A TCP door between the service and Postgres: open, it forwards; shut, every connection is cut and new ones are refused. */
class DatabaseDoor {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  static async open(): Promise<DatabaseDoor> {
    const url = new URL(testDatabaseServerUrl());
    const door = new DatabaseDoor(await freePort(), { host: url.hostname, port: Number(url.port || 5432) });
    await door.reopen();
    return door;
  }

  /** The test server's URL with the door in front of it. */
  get serverUrl(): string {
    const url = new URL(testDatabaseServerUrl());
    url.port = String(this.port);
    return url.toString();
  }

  async reopen(): Promise<void> {
    if (this.server) return;
    this.server = createServer((client) => {
      const upstream = new (client.constructor as typeof Socket)();
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on("close", () => this.sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      upstream.connect(this.target.port, this.target.host);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => this.server!.once("error", reject).listen(this.port, "127.0.0.1", resolve));
  }

  async shut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Issue 39, item 14: a failure to read the account is the database's trouble (503), never "your account is gone" (401). */
describe("the two-factor routes while the database is unreachable (issue 39, item 14)", () => {
  let door: DatabaseDoor;
  let auth: AuthHarness;
  let accessToken: string;

  before(async () => {
    door = await DatabaseDoor.open();
    auth = await AuthHarness.start({ DATABASE_URL: door.serverUrl });
    accessToken = (await auth.onboard(newEmail("db-down"), "two factor password")).tokens.body.data.access_token;
    // The service has verified a token once, so its JWKS is at hand and only the account needs the database.
    expect((await auth.call("POST", "/auth/totp", { bearer: accessToken })).status).to.equal(200);
  });

  after(async () => {
    // Open again if the test stopped while it was shut, so that the service stops as it would.
    await door?.reopen();
    await auth?.stop();
    await door?.shut();
  });

  it("answers 503 database_unavailable with Retry-After, not 401 'no longer exists', and serves again once it is back", async () => {
    await door.shut();
    for (const [method, path] of [
      ["POST", "/auth/totp"],
      ["POST", "/auth/totp/confirm"],
      ["DELETE", "/auth/totp"],
    ] as const) {
      const answer = await auth.call(method, path, {
        bearer: accessToken,
        body: path.endsWith("confirm") ? { code: "123456" } : undefined,
      });
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).to.equal(503);
      expect(answer.body.code).to.equal("database_unavailable");
      expect(answer.headers.get("retry-after")).to.equal("1");
    }
    await door.reopen();
    const back = await auth.call("POST", "/auth/totp", { bearer: accessToken });
    expect(back.status, JSON.stringify(back.body)).to.equal(200);
  });
});
