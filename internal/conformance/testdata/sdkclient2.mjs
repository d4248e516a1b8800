// Drives a served design with the MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client) and reports, as one JSON object on stdout,
// what the client received: the Go test (sdk_test.go) asserts on that report,
// so this script judges nothing itself.
//
// Usage: node sdkclient2.mjs <packages dir> <endpoint URL> <era> < steps.json
//
// <packages dir> holds node_modules with @modelcontextprotocol/client (the
// pinned .ci/conformance). <era> is "modern" (the client pinned to revision
// 2026-07-28: server/discover, then stateless requests with their _meta and
// Mcp-* headers) or "legacy" (the client's default initialize handshake).
// steps.json is an array of {"id": "...", "method": "tools/call", "params":
// {...}}; the report holds the tools listed and, per step, the result or the
// error.
import { describeError as describe, packageRequire, readSteps, run } from "./harness.mjs";

const [packagesDir, endpoint, era] = process.argv.slice(2);
if (!packagesDir || !endpoint || !["modern", "legacy"].includes(era)) {
  console.error("usage: node sdkclient2.mjs <packages dir> <endpoint URL> modern|legacy < steps.json");
  process.exit(2);
}
const require = packageRequire(packagesDir);
const { Client, StreamableHTTPClientTransport, ProtocolError } = require("@modelcontextprotocol/client");

const steps = await readSteps();
const describeError = (err) => describe(err, ProtocolError, "protocolError");

const options = era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
const client = new Client({ name: "mockmcp-sdk2-check", version: "1.0.0" }, options);
const transport = new StreamableHTTPClientTransport(new URL(endpoint));

const report = { steps: {} };
await run(client, report, describeError, async () => {
  await client.connect(transport);
  report.server = client.getServerVersion() ?? null;
  report.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
  report.era = client.getProtocolEra() ?? null;
  const { tools } = await client.listTools();
  report.tools = tools;
  for (const step of steps) {
    const out = {};
    try {
      switch (step.method) {
        case "tools/call":
          out.result = await client.callTool(step.params);
          break;
        default:
          throw new Error(`unknown method ${step.method}`);
      }
    } catch (err) {
      out.error = describeError(err);
    }
    report.steps[step.id] = out;
  }
});
