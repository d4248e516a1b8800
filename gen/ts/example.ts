// A typed client for the mockmcp REST API: every path, parameter, body and
// answer below is checked by `tsc --strict` against schema.d.ts, which is
// generated from openapi/openapi.yaml.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Server = components["schemas"]["Server"];
type Tool = components["schemas"]["Tool"];

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
