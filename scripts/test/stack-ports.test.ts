// `npm start` says why it cannot start (issue 40 item 11): a port that fetch refuses (GATEWAY_PORT=10080) is refused
// before anything starts, a taken port is named with what probably holds it (another stack whose offset differs by
// 1,000), and a process that does not get ready is named with what its /readyz last answered.
import { spawn } from "node:child_process";
import { createServer as createHttpServer, type Server } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { stackPortPlan, stackPortProblems } from "../src/stack-ports.js";
import { waitUntilReady } from "../src/stack-readiness.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
/** The offset this suite may use (the machine is shared): STACK_TEST_PORT_OFFSET, 2100 unless told. */
const OFFSET = Number(process.env.STACK_TEST_PORT_OFFSET ?? 2100);

const listenOn = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

describe("npm start's ports and readiness say why the stack does not start", function () {
  this.timeout(60_000);

  it("stacks at offsets that are multiples of 100 and less than 1000 apart never share a port; 1000 apart, HTTP meets gRPC", () => {
    const portsAt = (portOffset: number) =>
      new Set(
        stackPortPlan({ portOffset }, { gatewayPort: 8080 + portOffset, mailPagePort: 8025 + portOffset }).map((entry) => entry.port),
      );
    for (let a = 0; a <= 9_000; a += 100) {
      for (let b = a + 100; b < a + 1_000; b += 100) {
        const shared = [...portsAt(a)].filter((port) => portsAt(b).has(port));
        expect(shared, `offsets ${a} and ${b}`).to.deep.equal([]);
      }
    }
    const met = [...portsAt(0)].filter((port) => portsAt(1_000).has(port));
    expect(met, "offset 1000's HTTP ports are offset 0's gRPC ports").to.include(9081);
  });

  it("a port that fetch refuses is refused up front (GATEWAY_PORT=10080), and a taken one is named with the stack that probably holds it", async () => {
    const layout = { portOffset: OFFSET + 1_000 };
    // What a stack at OFFSET would hold: its auth's gRPC port, which is this layout's auth HTTP port.
    const held = await listenOn(9081 + OFFSET);
    try {
      const problems = await stackPortProblems(stackPortPlan(layout, { gatewayPort: 10080 }), layout);
      expect(problems.join("\n")).to.include('port 10080 (gateway http (GATEWAY_PORT)) is one that fetch refuses ("bad port"');
      expect(problems.join("\n")).to.include(
        `port ${9081 + OFFSET} (auth http) is taken, probably by a stack at STACK_PORT_OFFSET=${OFFSET} (its auth grpc)`,
      );
      expect(problems.join("\n")).to.include("differ by 1000 meet");
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
    const clean = await stackPortProblems(stackPortPlan({ portOffset: OFFSET }, { gatewayPort: 8080 + OFFSET }), { portOffset: OFFSET });
    expect(clean, "free ports of this suite's offset").to.deep.equal([]);
  });

  it("npm start with GATEWAY_PORT=10080 stops at once saying so, before it starts Postgres, NATS or any process", async () => {
    const started = Date.now();
    const child = spawn(process.execPath, [path.join(root, "scripts/dist/start.js")], {
      env: { ...process.env, GATEWAY_PORT: "10080", STACK_PORT_OFFSET: String(OFFSET) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    for (const stream of [child.stdout, child.stderr]) stream.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code, output).to.equal(1);
    expect(output).to.include("could not start: the stack's ports will not do");
    expect(output).to.include("port 10080 (gateway http (GATEWAY_PORT)) is one that fetch refuses");
    expect(output, "nothing was started").to.not.match(/postgres|NATS:/i);
    expect(Date.now() - started).to.be.below(20_000);
  });

  it("a process that is not ready is named with what its /readyz last answered: the failing check, or the connection's error", async () => {
    const notReady: Server = createHttpServer((_req, res) => {
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "not_ready", checks: { database: "connect ECONNREFUSED 127.0.0.1:5432", grpc: "ok" } }));
    });
    await new Promise<void>((resolve) => notReady.listen(0, "127.0.0.1", resolve));
    const silent = await listenOn(0);
    const nothingPort = (silent.address() as AddressInfo).port;
    await new Promise((resolve) => silent.close(resolve));
    try {
      const failure = await waitUntilReady(
        [
          { name: "document", httpPort: (notReady.address() as AddressInfo).port },
          { name: "auth", httpPort: nothingPort },
          { name: "gateway", httpPort: 10080 },
        ],
        1_500,
      ).then(
        () => undefined,
        (error: Error) => error.message,
      );
      expect(failure).to.match(/^not ready within 1500 ms: /);
      expect(failure).to.include("document (http://127.0.0.1:");
      expect(failure).to.include("HTTP 503: database: connect ECONNREFUSED 127.0.0.1:5432)");
      expect(failure).to.include(`auth (http://127.0.0.1:${nothingPort}/readyz: connect ECONNREFUSED 127.0.0.1:${nothingPort})`);
      expect(failure).to.include("gateway (http://127.0.0.1:10080/readyz: bad port)");
    } finally {
      await new Promise((resolve) => notReady.close(resolve));
    }
  });
});
