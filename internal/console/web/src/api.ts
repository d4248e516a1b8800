// The console's one client of the REST API: openapi-fetch over the paths
// generated from openapi/openapi.yaml (gen/ts), so every request and answer
// below is checked against the OpenAPI document by tsc.
import createClient from "openapi-fetch";
import type { components, operations, paths } from "../../../../gen/ts/schema";

export type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];
// Query is the query parameters of an operation, by its operationId.
export type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

// The session cookie travels with every same-origin request; the service's
// cross-origin protection accepts them (Sec-Fetch-Site: same-origin).
export const api = createClient<paths>({ baseUrl: location.origin, credentials: "same-origin" });

// problemText says what a problem document says, field by field.
export function problemText(p: unknown, fallback = "the request failed"): string {
  if (!isProblem(p)) return fallback;
  const fields = (p.errors ?? []).map((e) => `${e.field}: ${e.message}`);
  return [p.detail ?? p.title, ...fields].join("\n");
}

export function isProblem(p: unknown): p is Problem {
  return typeof p === "object" && p !== null && "status" in p && "title" in p;
}
