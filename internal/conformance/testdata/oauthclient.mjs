// Drives an OAuth-protected design with the MCP TypeScript SDK v2 client
// (@modelcontextprotocol/client) from nothing: discovery of the protected
// resource metadata and of the authorization server, dynamic registration,
// the authorization code flow with PKCE (this script plays the browser: it
// follows the authorization URL without following the redirect and hands
// the callback's parameters to the SDK, which checks their iss), the
// token, calls, a refresh and a step-up. It reports, as one JSON object on
// stdout, what happened; the Go test (oauth_test.go) asserts on that
// report, so this script judges nothing itself.
//
// Usage: node oauthclient.mjs <packages dir> < plan.json
//
// plan.json: {"endpoint": URL, "era": "modern"|"legacy", "tool": name,
// "scopedTool": name, "expireURL": URL, "apiKey": key, "wrongIssuerEndpoint": URL}.
// Between the first call and the second, the script POSTs expireURL with
// the API key (every access token of the design expired): the second call
// must refresh. The scoped tool needs a scope the first token lacks.
import { describeError as describe, packageRequire, readSteps } from "./harness.mjs";

const [packagesDir] = process.argv.slice(2);
if (!packagesDir) {
  console.error("usage: node oauthclient.mjs <packages dir> < plan.json");
  process.exit(2);
}
const require = packageRequire(packagesDir);
const { Client, StreamableHTTPClientTransport, ProtocolError, UnauthorizedError } = require("@modelcontextprotocol/client");
const plan = await readSteps();
const describeError = (err) => ({ ...describe(err, ProtocolError, "protocolError"), name: err?.name ?? null });

// provider is an OAuthClientProvider kept in memory that records what the
// SDK does with it; authorizing follows the authorization URL as a browser
// whose user consents, and keeps the callback's query.
function provider(report) {
  let info, tokens, verifier;
  return {
    callback: null,
    get redirectUrl() { return "http://127.0.0.1:9/callback"; },
    get clientMetadata() {
      return { client_name: "mockmcp-oauth-check", redirect_uris: ["http://127.0.0.1:9/callback"],
        grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
    },
    clientInformation() { return info; },
    saveClientInformation(i) { info = i; report.registrations.push({ client_id: i.client_id }); },
    tokens() { return tokens; },
    saveTokens(t) {
      tokens = t;
      report.tokens.push({ scope: t.scope ?? null, refresh: Boolean(t.refresh_token), expires_in: t.expires_in ?? null });
    },
    saveCodeVerifier(v) { verifier = v; },
    codeVerifier() { return verifier; },
    async redirectToAuthorization(url) {
      const q = url.searchParams;
      const auth = { scope: q.get("scope"), resource: q.get("resource"), method: q.get("code_challenge_method") };
      report.authorizations.push(auth);
      const res = await fetch(url, { redirect: "manual" });
      auth.status = res.status;
      const location = res.headers.get("location");
      this.callback = location ? new URL(location).searchParams : null;
      auth.callback = this.callback ? Object.fromEntries([...this.callback].filter(([k]) => k !== "code")) : null;
    },
  };
}

// session connects a client to endpoint with p, completing the
// authorization when the SDK asks for it.
async function session(endpoint, p) {
  const options = plan.era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  const connect = async () => {
    const client = new Client({ name: "mockmcp-oauth-check", version: "1.0.0" }, options);
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: p });
    await client.connect(transport);
    return { client, transport };
  };
  try {
    return await connect();
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !p.callback) throw err;
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: p });
    await transport.finishAuth(p.callback);
    return await connect();
  }
}

// authorized runs call, completing an authorization it asks for (a
// step-up) once.
async function authorized(s, p, call) {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof UnauthorizedError) || !p.callback) throw err;
    await s.transport.finishAuth(p.callback);
    return await call();
  }
}

const report = { registrations: [], authorizations: [], tokens: [], steps: {} };
const step = async (id, body) => {
  try {
    report.steps[id] = { result: await body() };
  } catch (err) {
    report.steps[id] = { error: describeError(err) };
  }
};
let s;
const p = provider(report);
await step("connect", async () => {
  s = await session(plan.endpoint, p);
  return { protocolVersion: s.client.getNegotiatedProtocolVersion() ?? null };
});
if (s) {
  const call = (tool) => authorized(s, p, () => s.client.callTool({ name: tool, arguments: {} }));
  await step("call", () => call(plan.tool));
  await step("expire", async () => {
    // Tokens count their issue time in whole seconds: one issued within
    // the second of the expiry would be kept.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const res = await fetch(plan.expireURL, { method: "POST", headers: { "X-API-Key": plan.apiKey } });
    return { status: res.status };
  });
  await step("call after expiry", () => call(plan.tool));
  await step("scoped call", () => call(plan.scopedTool));
  await s.client.close().catch(() => {});
}
if (plan.wrongIssuerEndpoint) {
  const q = { registrations: [], authorizations: [], tokens: [], steps: {} };
  const wp = provider(q);
  await step("wrong issuer", async () => {
    const w = await session(plan.wrongIssuerEndpoint, wp);
    await w.client.close().catch(() => {});
    return { connected: true };
  });
  report.wrongIssuer = { authorizations: q.authorizations, tokens: q.tokens };
}
process.stdout.write(JSON.stringify(report) + "\n");
