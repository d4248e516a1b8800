// The journal of one design, polled twice a second while the page is open,
// filtered by tool, outcome and time; and the verify form.
import { useEffect, useState } from "preact/hooks";
import { api, problemText, type Query, type Schemas } from "./api";

type Entry = Schemas["JournalEntry"];
type Outcome = Schemas["JournalOutcome"];
const OUTCOMES: Outcome[] = ["result", "error", "no_match", "fault", "rejected", "proxied"];
const WINDOWS: [string, number][] = [["any time", 0], ["last 5 minutes", 5], ["last hour", 60], ["last day", 1440]];

function pretty(v: unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2) ?? "null";
}

function argumentsOf(e: Entry): unknown {
  const p = e.params;
  if (typeof p === "object" && p !== null && "arguments" in p) return (p as { arguments: unknown }).arguments;
  return p;
}

function EntryView({ e }: { e: Entry }) {
  return (
    <details class="entry card" data-id={e.id}>
      <summary>
        <time dateTime={e.received_at}>{new Date(e.received_at).toLocaleTimeString()}</time>
        <span class="method">{e.tool ?? e.method}</span>
        <span class={`badge ${e.outcome}`}>{e.outcome}</span>
        <span class="scenario">{e.matched_scenario ?? (e.outcome === "no_match" ? "no scenario matched" : "")}</span>
        <span class="muted latency">{e.latency_ms.toFixed(1)} ms</span>
      </summary>
      <dl>
        <dt>Method</dt>
        <dd>{e.method}</dd>
        <dt>Matched scenario</dt>
        <dd class="matched">{e.matched_scenario ?? "none"}{e.sequence_step !== null ? ` (step ${e.sequence_step + 1})` : ""}</dd>
        <dt>Arguments</dt>
        <dd><pre>{pretty(argumentsOf(e))}</pre></dd>
        <dt>Answer</dt>
        <dd><pre>{pretty(e.response)}</pre>{e.error_code !== null && <span> error {e.error_code}</span>}</dd>
        {e.mismatches.length > 0 && (
          <>
            <dt>Scenarios that missed</dt>
            <dd>
              <ul class="mismatches">
                {e.mismatches.map((m) => (
                  <li><strong>{m.scenario}</strong>: {m.reason}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {e.rounds.length > 0 && (
          <>
            <dt>Rounds asked</dt>
            <dd>{e.rounds.length}<pre>{pretty(e.rounds)}</pre></dd>
          </>
        )}
        {e.upstream && (
          <>
            <dt>Upstream</dt>
            <dd>{e.upstream.latency_ms.toFixed(1)} ms{e.upstream.truncated ? " (answer cut)" : ""}</dd>
          </>
        )}
        {e.state_change && (
          <>
            <dt>State change</dt>
            <dd><pre>{pretty(e.state_change)}</pre></dd>
          </>
        )}
        <dt>Client</dt>
        <dd>{e.client_address}</dd>
      </dl>
    </details>
  );
}

function VerifyForm({ serverId, tools }: { serverId: string; tools: string[] }) {
  const [tool, setTool] = useState("");
  const [args, setArgs] = useState("");
  const [times, setTimes] = useState("");
  const [result, setResult] = useState<Schemas["VerifyJournalResult"] | null>(null);
  const [error, setError] = useState("");

  const submit = async (ev: Event) => {
    ev.preventDefault();
    setError("");
    setResult(null);
    let condition: Record<string, unknown> | undefined;
    if (args.trim() !== "") {
      try {
        const parsed: unknown = JSON.parse(args);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error();
        condition = parsed as Record<string, unknown>;
      } catch {
        setError("arguments: must be a JSON object, e.g. {\"city\": \"Paris\"}");
        return;
      }
    }
    const body: Schemas["VerifyJournalRequest"] = { tool: tool || tools[0] || "" };
    if (condition) body.arguments = condition;
    if (times.trim() !== "") body.times = Number(times);
    const { data, error: e } = await api.POST("/api/servers/{server_id}/journal/verify", { params: { path: { server_id: serverId } }, body });
    if (data) setResult(data);
    else setError(problemText(e));
  };

  return (
    <form class="card stack" id="verify" onSubmit={(e) => void submit(e)}>
      <h2>Verify</h2>
      <div class="grid3">
        <label>
          Tool
          <select id="verify-tool" value={tool || tools[0] || ""} onChange={(e) => setTool((e.target as HTMLSelectElement).value)}>
            {tools.map((t) => <option value={t}>{t}</option>)}
          </select>
        </label>
        <label>
          Arguments (a condition, JSON)
          <input id="verify-arguments" placeholder='{"city": "Paris"}' value={args} onInput={(e) => setArgs((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Times (empty: at least once)
          <input id="verify-times" type="number" min={0} value={times} onInput={(e) => setTimes((e.target as HTMLInputElement).value)} />
        </label>
      </div>
      <button id="verify-submit" class="primary">Verify</button>
      {error && <p class="error" role="alert">{error}</p>}
      {result && (
        <p id="verify-result" class={result.verified ? "verified" : "error"} role="status">
          {result.verified ? "✓ verified" : "✗ not verified"}: {result.message} ({result.count} counted, {result.expected})
          {!result.complete && " — records were dropped: the count may miss calls"}
        </p>
      )}
    </form>
  );
}

export function JournalPage({ serverId }: { serverId: string }) {
  const [server, setServer] = useState<Schemas["Server"] | null>(null);
  const [tools, setTools] = useState<string[]>([]);
  const [tool, setTool] = useState("");
  const [outcome, setOutcome] = useState<Outcome | "">("");
  const [window, setWindow] = useState(0);
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [error, setError] = useState("");
  const [live, setLive] = useState(true);

  useEffect(() => {
    void (async () => {
      const [s, t] = await Promise.all([
        api.GET("/api/servers/{server_id}", { params: { path: { server_id: serverId } } }),
        api.GET("/api/servers/{server_id}/tools", { params: { path: { server_id: serverId } } }),
      ]);
      if (s.data) setServer(s.data);
      else setError(problemText(s.error));
      if (t.data) setTools(t.data.items.map((x) => x.name));
    })();
  }, [serverId]);

  useEffect(() => {
    let stopped = false;
    let timer = 0;
    const poll = async () => {
      const query: Query<"listJournal"> = { limit: 100 };
      if (tool) query.tool = tool;
      if (outcome) query.outcome = outcome;
      if (window > 0) query.since = new Date(Date.now() - window * 60_000).toISOString();
      const { data, error: e } = await api.GET("/api/servers/{server_id}/journal", { params: { path: { server_id: serverId }, query } });
      if (stopped) return;
      if (data) {
        setEntries(data.items);
        setError("");
      } else setError(problemText(e));
      if (live) timer = setTimeout(() => void poll(), 500) as unknown as number;
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [serverId, tool, outcome, window, live]);

  return (
    <section aria-labelledby="journal-title">
      <div class="head">
        <h1 id="journal-title">Journal{server ? `: ${server.name}` : ""}</h1>
        <a href={`#/designs/${serverId}`}>Design</a>
      </div>
      <div class="filters row" role="group" aria-label="Filters">
        <label>
          Tool
          <select id="filter-tool" value={tool} onChange={(e) => setTool((e.target as HTMLSelectElement).value)}>
            <option value="">all tools</option>
            {tools.map((t) => <option value={t}>{t}</option>)}
          </select>
        </label>
        <label>
          Outcome
          <select id="filter-outcome" value={outcome} onChange={(e) => setOutcome((e.target as HTMLSelectElement).value as Outcome | "")}>
            <option value="">all outcomes</option>
            {OUTCOMES.map((o) => <option value={o}>{o}</option>)}
          </select>
        </label>
        <label>
          Time
          <select id="filter-time" value={String(window)} onChange={(e) => setWindow(Number((e.target as HTMLSelectElement).value))}>
            {WINDOWS.map(([label, minutes]) => <option value={String(minutes)}>{label}</option>)}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" id="live" checked={live} onChange={(e) => setLive((e.target as HTMLInputElement).checked)} /> Live
        </label>
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      <div id="journal" aria-live="polite">
        {entries === null ? <p>Loading…</p> : entries.length === 0 ? <p class="muted">No call recorded yet{server?.enabled === false ? " (the design is a draft: enable it to serve its endpoint)" : ""}.</p> : entries.map((e) => <EntryView key={e.id} e={e} />)}
      </div>
      <VerifyForm serverId={serverId} tools={tools} />
    </section>
  );
}
