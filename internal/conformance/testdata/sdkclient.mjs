// Drives a served design with the official MCP TypeScript SDK client and
// reports, as one JSON object on stdout, what the client received: the Go test
// (sdk_test.go) asserts on that report, so this script judges nothing itself.
//
// Usage: node sdkclient.mjs <packages dir> <endpoint URL> < steps.json
//
// <packages dir> holds node_modules with @modelcontextprotocol/sdk (the
// pinned .ci/conformance). steps.json is an array of
// {"id": "...", "method": "tools/call" | "resources/read" | "prompts/get" |
// "completion/complete", "params": {...}, "progress": true?, "answers"?};
// each step's report holds the result or the error, the log and progress
// notifications that arrived while it ran, and the requests the server sent
// the client meanwhile ("asked"). "answers" is what the client answers
// them: {"elicitation": {action, content}, "sampling": {role, content,
// model}, "roots": [{uri, name}]}; an absent kind is refused with an error.
import { describeError as describe, packageRequire, readSteps, run } from "./harness.mjs";

const [packagesDir, endpoint] = process.argv.slice(2);
if (!packagesDir || !endpoint) {
  console.error("usage: node sdkclient.mjs <packages dir> <endpoint URL> < steps.json");
  process.exit(2);
}
const require = packageRequire(packagesDir);
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const {
  McpError, LoggingMessageNotificationSchema, ElicitRequestSchema, CreateMessageRequestSchema, ListRootsRequestSchema,
} = require("@modelcontextprotocol/sdk/types.js");

const steps = await readSteps();
const describeError = (err) => describe(err, McpError, "mcpError");

const client = new Client({ name: "mockmcp-sdk-check", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} } });
const transport = new StreamableHTTPClientTransport(new URL(endpoint));
let logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  logs.push(n.params);
});
// The current step's answers to the server's requests, and those requests.
let answers = {};
let asked = [];
const answering = (kind) => (request) => {
  asked.push({ method: request.method, params: request.params });
  if (!(kind in answers)) throw new McpError(-32603, `this step does not answer ${kind}`);
  return kind === "roots" ? { roots: answers.roots } : answers[kind];
};
client.setRequestHandler(ElicitRequestSchema, answering("elicitation"));
client.setRequestHandler(CreateMessageRequestSchema, answering("sampling"));
client.setRequestHandler(ListRootsRequestSchema, answering("roots"));

const report = { steps: {} };
await run(client, report, describeError, async () => {
  await client.connect(transport);
  report.server = client.getServerVersion() ?? null;
  report.capabilities = client.getServerCapabilities() ?? null;
  report.protocolVersion = transport.protocolVersion ?? null;
  try {
    report.setLevel = { result: await client.setLoggingLevel("debug") };
  } catch (err) {
    report.setLevel = { error: describeError(err) };
  }
  for (const step of steps) {
    logs = [];
    asked = [];
    answers = step.answers ?? {};
    const progress = [];
    const options = step.progress ? { onprogress: (p) => progress.push(p) } : undefined;
    const out = {};
    try {
      switch (step.method) {
        case "tools/call":
          out.result = await client.callTool(step.params, undefined, options);
          break;
        case "resources/read":
          out.result = await client.readResource(step.params, options);
          break;
        case "prompts/get":
          out.result = await client.getPrompt(step.params, options);
          break;
        case "completion/complete":
          out.result = await client.complete(step.params, options);
          break;
        default:
          throw new Error(`unknown method ${step.method}`);
      }
    } catch (err) {
      out.error = describeError(err);
    }
    out.logs = logs;
    out.progress = progress;
    out.asked = asked;
    report.steps[step.id] = out;
  }
});
