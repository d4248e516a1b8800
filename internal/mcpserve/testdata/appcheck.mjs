// Checks what a served design sends an MCP Apps host against the schemas of
// the MCP Apps SDK (@modelcontextprotocol/ext-apps) and of the MCP SDK it
// builds on. Run with node --input-type=module from the directory whose
// node_modules holds them (.ci/apps); reads on stdin one JSON object:
// {era, capabilities: <initialize or server/discover result>, tools:
// <tools/list result>, resources: <resources/list result>, reads: {uri:
// <resources/read result>}, calls: [<tools/call result>]}. Prints "ok", or
// fails naming what does not conform.
import {
  CallToolResultSchema,
  DiscoverResultSchema,
  InitializeResultSchema,
  ListResourcesResultSchema,
  ListToolsResultSchema,
  ReadResourceResultSchema,
} from "@modelcontextprotocol/core";
import {
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  McpUiToolResultNotificationSchema,
  RESOURCE_MIME_TYPE,
  getToolUiResourceUri,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { EXTENSION_ID } from "@modelcontextprotocol/ext-apps/server";

function parse(what, schema, value) {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new Error(`${what} does not conform: ${JSON.stringify(r.error.issues)}\n${JSON.stringify(value)}`);
  }
  return r.data;
}

function check(cond, message) {
  if (!cond) throw new Error(message);
}

let input = "";
for await (const chunk of process.stdin) input += chunk;
const got = JSON.parse(input);

const caps = got.era === "modern"
  ? parse("server/discover", DiscoverResultSchema, got.capabilities).capabilities
  : parse("initialize", InitializeResultSchema, got.capabilities).capabilities;
check(caps.extensions && typeof caps.extensions[EXTENSION_ID] === "object",
  `the capabilities declare no ${EXTENSION_ID} extension: ${JSON.stringify(caps)}`);

const tools = parse("tools/list", ListToolsResultSchema, got.tools).tools;
const resources = parse("resources/list", ListResourcesResultSchema, got.resources).resources;
let linked = 0;
for (const tool of tools) {
  if (tool._meta?.ui === undefined) continue;
  parse(`tool ${tool.name}'s _meta.ui`, McpUiToolMetaSchema, tool._meta.ui);
  const uri = getToolUiResourceUri(tool);
  check(uri?.startsWith("ui://"), `tool ${tool.name} names no ui:// view: ${uri}`);
  check(resources.some((r) => r.uri === uri), `tool ${tool.name}'s view ${uri} is not listed`);
  linked++;
}
check(linked > 0, "no tool is linked to a view");

let views = 0;
for (const r of resources) {
  if (!r.uri.startsWith("ui://")) continue;
  check(r.mimeType === RESOURCE_MIME_TYPE, `view ${r.uri} is listed as ${r.mimeType}`);
  if (r._meta?.ui !== undefined) parse(`view ${r.uri}'s listed _meta.ui`, McpUiResourceMetaSchema, r._meta.ui);
  const read = parse(`resources/read ${r.uri}`, ReadResourceResultSchema, got.reads[r.uri]);
  check(read.contents.length === 1, `resources/read ${r.uri} has ${read.contents.length} contents`);
  const c = read.contents[0];
  check(c.uri === r.uri, `resources/read ${r.uri} answers ${c.uri}`);
  check(c.mimeType === RESOURCE_MIME_TYPE, `view ${r.uri} is read as ${c.mimeType}`);
  check(typeof c.text === "string" || typeof c.blob === "string", `view ${r.uri} has neither text nor blob`);
  if (c._meta?.ui !== undefined) parse(`view ${r.uri}'s read _meta.ui`, McpUiResourceMetaSchema, c._meta.ui);
  views++;
}
check(views > 0, "no ui:// view is listed");

for (const [i, call] of (got.calls ?? []).entries()) {
  const result = parse(`tools/call ${i}`, CallToolResultSchema, call);
  parse(`tools/call ${i} as the view receives it`, McpUiToolResultNotificationSchema,
    { method: "ui/notifications/tool-result", params: result });
}
console.log("ok");
