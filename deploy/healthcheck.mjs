// Container health probe: `node healthcheck.mjs [/healthz|/readyz]`.
// The slim Node image has no curl or wget, so the probe is Node itself. It asks the
// process in this container on loopback, on the port the process listens on.
const path = process.argv[2] ?? "/healthz";
const { GATEWAY_PORT, PORT } = process.env;
const port = GATEWAY_PORT ?? PORT;

if (!port) {
  console.error("healthcheck: neither GATEWAY_PORT nor PORT is set");
  process.exit(1);
}

try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(2500),
  });
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  console.error(`healthcheck: ${path} on port ${port}: ${error.message}`);
  process.exit(1);
}
