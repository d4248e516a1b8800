// One design: its endpoint, and the tabs for its tasks, live state and
// OAuth tokens and registered clients.
import { useEffect, useState } from "preact/hooks";
import { api, problemText, type Schemas } from "./api";
import { CopyButton } from "./designs";

const TABS: [string, string][] = [["overview", "Overview"], ["tasks", "Tasks"], ["state", "State"], ["oauth", "OAuth"]];

function Tasks({ serverId }: { serverId: string }) {
  const [tasks, setTasks] = useState<Schemas["TaskSummary"][] | null>(null);
  const [error, setError] = useState("");
  const load = async () => {
    const { data, error: e } = await api.GET("/api/servers/{server_id}/tasks", { params: { path: { server_id: serverId }, query: { limit: 100 } } });
    if (data) setTasks(data.items);
    else setError(problemText(e));
  };
  useEffect(() => {
    void load();
    const t = setInterval(() => void load(), 2000);
    return () => clearInterval(t);
  }, [serverId]);
  const end = async (id: string, status: Schemas["EndTaskRequest"]["status"]) => {
    const { error: e } = await api.POST("/api/servers/{server_id}/tasks/{task_id}/end", {
      params: { path: { server_id: serverId, task_id: id } },
      body: { status },
    });
    if (e) setError(problemText(e));
    await load();
  };
  return (
    <div id="tasks">
      {error && <p class="error" role="alert">{error}</p>}
      {tasks === null ? <p>Loading…</p> : tasks.length === 0 ? <p class="muted">No task in flight.</p> : (
        <table>
          <thead><tr><th>Tool</th><th>Scenario</th><th>Status</th><th>Created</th><th>End</th></tr></thead>
          <tbody>
            {tasks.map((t) => (
              <tr>
                <td>{t.tool}</td>
                <td>{t.scenario}</td>
                <td><span class={`badge ${t.status}`}>{t.status}</span> {t.status_message}</td>
                <td>{new Date(t.created_at).toLocaleTimeString()}</td>
                <td>
                  {t.ended_at === null && (
                    <span class="row">
                      <button type="button" class="small" onClick={() => void end(t.id, "completed")}>Complete</button>
                      <button type="button" class="small" onClick={() => void end(t.id, "failed")}>Fail</button>
                      <button type="button" class="small" onClick={() => void end(t.id, "cancelled")}>Cancel</button>
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function State({ serverId }: { serverId: string }) {
  const [state, setState] = useState<Schemas["LiveState"] | null>(null);
  const [error, setError] = useState("");
  const load = async () => {
    const { data, error: e } = await api.GET("/api/servers/{server_id}/state", { params: { path: { server_id: serverId } } });
    if (data) setState(data);
    else setError(problemText(e));
  };
  useEffect(() => {
    void load();
  }, [serverId]);
  const reset = async () => {
    const { error: e } = await api.DELETE("/api/servers/{server_id}/state", { params: { path: { server_id: serverId } } });
    if (e) setError(problemText(e));
    await load();
  };
  return (
    <div id="state">
      {error && <p class="error" role="alert">{error}</p>}
      <pre class="card">{state === null ? "Loading…" : JSON.stringify(state, null, 2)}</pre>
      <div class="row">
        <button type="button" onClick={() => void load()}>Refresh</button>
        <button type="button" onClick={() => void reset()}>Reset to the initial state</button>
      </div>
    </div>
  );
}

function OAuth({ server, onChange }: { server: Schemas["Server"]; onChange: (s: Schemas["Server"]) => void }) {
  const [note, setNote] = useState("");
  const [registered, setRegistered] = useState<Schemas["OAuthClient"][] | null>(null);
  const [error, setError] = useState("");
  const path = { params: { path: { server_id: server.id } } };
  const load = async () => {
    const { data, error: e } = await api.GET("/api/servers/{server_id}/oauth/clients", path);
    if (data) { setRegistered(data.items); setError(""); } else setError(problemText(e));
  };
  useEffect(() => {
    void load();
  }, [server.id]);
  const expire = async () => {
    const { data, error } = await api.POST("/api/servers/{server_id}/oauth/expire-tokens", path);
    if (data) { onChange(data); setNote("Every access token issued until now is refused as expired."); } else setNote(problemText(error));
  };
  const revoke = async () => {
    const { data, error } = await api.POST("/api/servers/{server_id}/oauth/revoke-tokens", path);
    if (data) { onChange(data); setNote("Every access and refresh token issued until now is refused."); } else setNote(problemText(error));
  };
  const clients = async () => {
    const { error, response } = await api.DELETE("/api/servers/{server_id}/oauth/clients", path);
    setNote(error ? problemText(error) : response.ok ? "The registered clients were deleted." : `the service answered ${response.status}`);
    await load();
  };
  return (
    <div id="oauth" class="stack">
      <dl class="card">
        <dt>Authentication</dt><dd>{server.auth_mode}</dd>
        <dt>Settings</dt><dd><pre>{JSON.stringify(server.oauth, null, 2)}</pre></dd>
        <dt>Access tokens refused before</dt><dd>{server.oauth_tokens_not_before ?? "never set"}</dd>
        <dt>Refresh tokens refused before</dt><dd>{server.oauth_refresh_not_before ?? "never set"}</dd>
      </dl>
      <div id="oauth-clients">
        <h2>Registered clients</h2>
        {error && <p class="error" role="alert">{error}</p>}
        {registered === null ? (error ? null : <p>Loading…</p>) : registered.length === 0 ? <p class="muted">No client registered.</p> : (
          <table>
            <thead><tr><th>Name</th><th>Client id</th><th>Grant types</th><th>Created</th><th>Last used</th></tr></thead>
            <tbody>
              {registered.map((c) => (
                <tr>
                  <td>{c.client_name ?? <span class="muted">none</span>}</td>
                  <td><code>{c.client_id}</code></td>
                  <td>{c.grant_types.join(", ")}</td>
                  <td>{new Date(c.created_at).toLocaleString()}</td>
                  <td>{new Date(c.last_used_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div class="row">
          <button type="button" onClick={() => void load()}>Refresh</button>
        </div>
      </div>
      <div class="row">
        <button type="button" onClick={() => void expire()}>Expire access tokens</button>
        <button type="button" onClick={() => void revoke()}>Revoke all tokens</button>
        <button type="button" onClick={() => void clients()}>Delete registered clients</button>
      </div>
      {note && <p role="status">{note}</p>}
    </div>
  );
}

export function DesignPage({ serverId, tab }: { serverId: string; tab: string }) {
  const [server, setServer] = useState<Schemas["Server"] | null>(null);
  const [tools, setTools] = useState<Schemas["Tool"][]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    void (async () => {
      const [s, t] = await Promise.all([
        api.GET("/api/servers/{server_id}", { params: { path: { server_id: serverId } } }),
        api.GET("/api/servers/{server_id}/tools", { params: { path: { server_id: serverId } } }),
      ]);
      if (s.data) setServer(s.data);
      else setError(problemText(s.error));
      if (t.data) setTools(t.data.items);
    })();
  }, [serverId]);
  if (!server) return error ? <p class="error" role="alert">{error}</p> : <p>Loading…</p>;
  return (
    <section aria-labelledby="design-title">
      <div class="head">
        <h1 id="design-title">{server.name}</h1>
        <span class={`badge ${server.enabled ? "ok" : ""}`}>{server.enabled ? "enabled" : "draft"}</span>
      </div>
      <div class="row endpoint">
        <code class="url">{server.endpoint_url}</code>
        <CopyButton text={server.endpoint_url} label="Copy the endpoint URL" />
      </div>
      <nav class="tabs" aria-label="Design">
        {TABS.map(([id, label]) => <a href={`#/designs/${serverId}/${id}`} aria-current={tab === id ? "page" : undefined}>{label}</a>)}
        <a href={`#/designs/${serverId}/journal`}>Journal</a>
        <a href={`#/designs/${serverId}/edit`}>Edit as YAML</a>
        <a href={`api/servers/${serverId}/export?format=yaml`} download={`${server.name}.yaml`}>Export YAML</a>
        <a href={`api/servers/${serverId}/export?format=json`} download={`${server.name}.json`}>Export JSON</a>
      </nav>
      {tab === "tasks" ? <Tasks serverId={serverId} /> : tab === "state" ? <State serverId={serverId} /> : tab === "oauth" ? <OAuth server={server} onChange={setServer} /> : (
        <div class="stack">
          {server.description && <p>{server.description}</p>}
          <h2>Tools</h2>
          <ul class="plain">
            {tools.map((t) => (
              <li class="card"><strong>{t.name}</strong> <span class="muted">{t.description}</span>
                <div class="muted">scenarios: {t.mock_scenarios.map((m) => m.name).join(", ") || "none"}</div></li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
