// A typed client for the mockmcp REST API: every path, parameter, body and
// answer below is checked by `tsc --strict` against schema.d.ts, which is
// generated from openapi/openapi.yaml.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Server = components["schemas"]["Server"];
type Tool = components["schemas"]["Tool"];
type JSONRPCResponse = components["schemas"]["JSONRPCResponse"];

export async function designWeatherServer(baseUrl: string, apiKey: string): Promise<Server> {
  const client = createClient<paths>({ baseUrl, headers: { "X-API-Key": apiKey } });

  const created = await client.POST("/api/servers", {
    body: { name: "Weather", description: "Forecasts for agents under test", version: "1.0.0" },
  });
  if (created.error) throw new Error(created.error.detail ?? created.error.title);
  const server: Server = created.data;

  const tool = await client.POST("/api/servers/{server_id}/tools", {
    params: { path: { server_id: server.id } },
    body: {
      name: "get_forecast",
      description: "Returns the forecast for a city.",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      mock_scenarios: [
        { name: "atlantis", condition: { city: "Atlantis" }, response: { error: "city under water" } },
        { name: "default", condition: {}, response: { forecast: "sunny" } },
      ],
    },
  });
  if (tool.error) throw new Error(tool.error.errors?.map((e) => `${e.field}: ${e.message}`).join("; "));
  const created_tool: Tool = tool.data;
  console.log(`tool ${created_tool.name} has ${created_tool.mock_scenarios.length} scenarios`);

  const enabled = await client.PATCH("/api/servers/{server_id}", {
    params: { path: { server_id: server.id } },
    body: { enabled: true },
  });
  if (enabled.error) throw new Error(enabled.error.title);
  return enabled.data;
}

// Calls the tool at the server's MCP endpoint (POST /api/platform/{server_id}/mcp), asking for
// one JSON answer rather than an event stream: the path, the MCP headers, the JSON-RPC body and
// the answer are typed too.
export async function forecastFor(baseUrl: string, serverId: string, city: string): Promise<JSONRPCResponse> {
  const mcp = createClient<paths>({ baseUrl });
  const answered = await mcp.POST("/api/platform/{server_id}/mcp", {
    params: { path: { server_id: serverId }, header: { "MCP-Protocol-Version": "2025-06-18" } },
    headers: { Accept: "application/json" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_forecast", arguments: { city } } },
  });
  if (answered.error) {
    // Refused before JSON-RPC: a JSON-RPC error (401, 429, ...) or a problem document (404, 413, ...).
    const refusal = answered.error;
    const why = "jsonrpc" in refusal ? refusal.error.message : (refusal.detail ?? refusal.title);
    throw new Error(`HTTP ${answered.response.status}: ${why}`);
  }
  const reply = answered.data;
  // With Accept: application/json the answer is JSON (a string only for an event stream).
  if (reply === undefined || typeof reply === "string" || Array.isArray(reply)) {
    throw new Error("expected the answer to one request");
  }
  if (reply.error) throw new Error(`JSON-RPC error ${reply.error.code}: ${reply.error.message}`);
  return reply;
}
