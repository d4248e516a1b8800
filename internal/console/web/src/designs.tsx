// The designs of the organization: endpoint URLs to copy, enable/disable.
import { useEffect, useState } from "preact/hooks";
import { api, problemText, type Schemas } from "./api";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState("");
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone("Copied");
    } catch {
      setDone("Select and copy");
    }
    setTimeout(() => setDone(""), 1500);
  };
  return (
    <button type="button" class="small" aria-label={label} onClick={() => void copy()}>
      {done || "Copy"}
    </button>
  );
}

export function DesignsPage() {
  const [servers, setServers] = useState<Schemas["Server"][] | null>(null);
  const [error, setError] = useState("");

  const load = async () => {
    const items: Schemas["Server"][] = [];
    let cursor: string | undefined;
    for (;;) {
      const { data, error: e } = await api.GET("/api/servers", { params: { query: cursor ? { limit: 100, cursor } : { limit: 100 } } });
      if (!data) {
        setError(problemText(e));
        return;
      }
      items.push(...data.items);
      if (!data.next_cursor) break;
      cursor = data.next_cursor;
    }
    setServers(items);
  };
  useEffect(() => {
    void load();
  }, []);

  const setEnabled = async (s: Schemas["Server"], enabled: boolean) => {
    const { data, error: e } = await api.PATCH("/api/servers/{server_id}", { params: { path: { server_id: s.id } }, body: { enabled } });
    if (!data) {
      setError(problemText(e));
      return;
    }
    setError("");
    setServers((all) => all?.map((x) => (x.id === data.id ? data : x)) ?? null);
  };

  return (
    <section aria-labelledby="designs-title">
      <div class="head">
        <h1 id="designs-title">Designs</h1>
        <a class="button primary" href="#/new">New design</a>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {servers === null ? (
        <p>Loading…</p>
      ) : servers.length === 0 ? (
        <p class="muted">No design yet: <a href="#/new">create one from a YAML or JSON document</a>.</p>
      ) : (
        <ul class="designs" id="designs">
          {servers.map((s) => (
            <li class="card design" data-id={s.id}>
              <div class="row">
                <a class="name" href={`#/designs/${s.id}`}>{s.name}</a>
                <span class="muted">{s.version}</span>
                <span class={`badge ${s.enabled ? "ok" : ""}`}>{s.enabled ? "enabled" : "draft"}</span>
                <span class="grow" />
                <button type="button" class="toggle" onClick={() => void setEnabled(s, !s.enabled)}>
                  {s.enabled ? "Disable" : "Enable"}
                </button>
              </div>
              {s.description && <p class="muted">{s.description}</p>}
              <div class="row endpoint">
                <code class="url">{s.endpoint_url}</code>
                <CopyButton text={s.endpoint_url} label={`Copy the endpoint URL of ${s.name}`} />
              </div>
              <div class="row links">
                <a href={`#/designs/${s.id}/journal`}>Journal</a>
                <a href={`#/designs/${s.id}/edit`}>Edit as YAML</a>
                <a href={`#/designs/${s.id}/tasks`}>Tasks</a>
                <a href={`#/designs/${s.id}/state`}>State</a>
                <a href={`#/designs/${s.id}/oauth`}>OAuth</a>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
