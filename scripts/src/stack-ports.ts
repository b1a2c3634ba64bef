/**
 * What `npm start` checks of its ports before it starts anything (issue 40 item 11): no HTTP port that fetch refuses
 * (the Fetch standard's "bad ports", such as 10080: the stack's own readiness checks and the gateway's calls to the
 * services are fetches, and would fail with nothing but "not ready"), and every port free. A port another stack
 * holds is named with the process that wanted it and what probably holds it: two stacks whose STACK_PORT_OFFSETs
 * differ by 1,000 meet, as one's HTTP ports (8081–8090 + offset) are the other's gRPC ports (9081–9090 + offset).
 */
import { createServer } from "node:net";
import { SERVICE_NAMES, SERVICE_PORTS, type ServiceName } from "@docex/kit/config";
import { intakeSmtpPort, replicasOf, type StackLayout, stackPort } from "./stack-environment.js";

export interface StackPort {
  port: number;
  /** Who listens there: `gateway http`, `document-2 grpc`, `intake smtp`, `mail page`. */
  owner: string;
  /** Reached with fetch (by the stack's readiness checks, the gateway or a browser). */
  http: boolean;
  /** Moves to another port by itself when this one is taken (the mail page). */
  movable?: boolean;
}

/** Every port the stack's processes (and its mail page, when it runs one) listen on. */
export function stackPortPlan(layout: StackLayout, options: { gatewayPort: number; mailPagePort?: number }): StackPort[] {
  const plan: StackPort[] = [{ port: options.gatewayPort, owner: "gateway http (GATEWAY_PORT)", http: true }];
  for (const name of SERVICE_NAMES) {
    for (let index = 0; index < replicasOf(name, layout); index++) {
      const label = index === 0 ? name : `${name}-${index + 1}`;
      plan.push(
        { port: stackPort(name, "http", layout, index), owner: `${label} http`, http: true },
        { port: stackPort(name, "grpc", layout, index), owner: `${label} grpc`, http: false },
      );
      if (name === "intake") plan.push({ port: intakeSmtpPort(layout, index), owner: `${label} smtp`, http: false });
    }
  }
  if (options.mailPagePort !== undefined)
    plan.push({ port: options.mailPagePort, owner: "mail page (MAIL_PAGE_PORT)", http: true, movable: true });
  return plan;
}

/** Whether this runtime's fetch refuses the port outright ("bad port"), asked of fetch itself: no connection is made. */
export async function fetchRefusesPort(port: number): Promise<boolean> {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return true;
  try {
    // Asked of a free port (stackPortProblems checks that first): fetch refuses a bad one before connecting, and
    // finds nothing listening on a good one.
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(500) });
    return false;
  } catch (error) {
    return /bad port/i.test(String((error as { cause?: unknown }).cause ?? ""));
  }
}

/** Whether 127.0.0.1:<port> can be listened on now. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Which docex stack at another offset would listen on `port`, if any: `offset 1000's auth grpc` (offsets that are
 * multiples of 100 from 0 to 9,900). A guess to help the reader, not a check.
 */
export function otherStackAt(port: number, layout: StackLayout): string | undefined {
  for (let offset = 0; offset <= 9_900; offset += 100) {
    if (offset === layout.portOffset) continue;
    for (const name of ["gateway", ...SERVICE_NAMES] as (ServiceName | "gateway")[]) {
      for (const kind of ["http", "grpc"] as const) {
        if (name === "gateway" && kind === "grpc") continue;
        if (SERVICE_PORTS[name][kind] + offset === port) return `a stack at STACK_PORT_OFFSET=${offset} (its ${name} ${kind})`;
      }
    }
  }
  return undefined;
}

/** Why the stack cannot start on these ports, one line each; empty when it can. */
export async function stackPortProblems(plan: StackPort[], layout: StackLayout): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Map<number, string>();
  for (const { port, owner } of plan) {
    const other = seen.get(port);
    if (other) problems.push(`port ${port} is wanted twice, by ${other} and by ${owner}`);
    seen.set(port, owner);
  }
  for (const { port, owner, http, movable } of plan) {
    // Taken first: the fetch probe of a free port meets nothing (connection refused at once), never a stranger.
    if (!(await portIsFree(port))) {
      if (movable) continue;
      const guess = otherStackAt(port, layout);
      problems.push(`port ${port} (${owner}) is taken${guess ? `, probably by ${guess}` : ""}`);
    } else if (http && (await fetchRefusesPort(port))) {
      problems.push(`port ${port} (${owner}) is one that fetch refuses ("bad port", as 10080 is): choose another`);
    }
  }
  if (problems.some((problem) => problem.includes("probably by a stack at STACK_PORT_OFFSET"))) {
    problems.push(
      "two stacks whose STACK_PORT_OFFSETs differ by 1000 meet: one's HTTP ports (8081–8090 + offset) are the other's gRPC ports (9081–9090 + offset); choose offsets less than 1000 apart (multiples of 100), or stop the other stack",
    );
  }
  return problems;
}
