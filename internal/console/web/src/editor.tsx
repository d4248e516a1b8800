// A design document (YAML or JSON) applied with POST /api/servers/apply:
// a dry run shows the plan, errors are marked at the line they name.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, isProblem, type Schemas } from "./api";
import { lineOf } from "./locate";

const TEMPLATE = `apiVersion: mockmcp/v1
kind: MCPServer
name: Weather
description: Forecasts for agents under test.
version: 1.0.0
tools:
  - name: get_forecast
    description: The forecast for a city.
    input_schema:
      type: object
      properties:
        city: { type: string }
      required: [city]
    mock_scenarios:
      - name: paris
        condition: { city: Paris }
        response: { city: Paris, temperature_c: 18 }
      - name: fallback
        response: { conditions: unknown }
`;

interface Marked {
  line: number | null;
  field: string;
  message: string;
}

function PlanView({ plan }: { plan: Schemas["ApplyResult"] }) {
  const rows: [string, string, string][] = [
    ["server", plan.server.name, plan.server.action],
    ...plan.tools.map((t): [string, string, string] => ["tool", t.name, t.action]),
    ...plan.resources.map((r): [string, string, string] => ["resource", r.uri ?? r.name, r.action]),
    ...plan.prompts.map((p): [string, string, string] => ["prompt", p.name, p.action]),
  ];
  return (
    <div class="card" id="plan">
      <h2>{plan.dry_run ? "Plan (dry run: nothing written)" : plan.changed ? "Applied" : "Applied: nothing changed"}</h2>
      <table>
        <thead>
          <tr><th>Part</th><th>Name</th><th>Action</th></tr>
        </thead>
        <tbody>
          {rows.map(([kind, name, action]) => (
            <tr>
              <td>{kind}</td>
              <td>{name}</td>
              <td><span class={`badge ${action}`}>{action}</span></td>
            </tr>
          ))}
        </tbody>
      </table>
      {!plan.dry_run && plan.server.id && (
        <p>
          <a href={`#/designs/${plan.server.id}`}>Open {plan.server.name}</a> · endpoint <code>{plan.server.endpoint_url}</code>
        </p>
      )}
    </div>
  );
}

export function EditorPage({ serverId }: { serverId?: string }) {
  const [text, setText] = useState(serverId ? "" : TEMPLATE);
  const [errors, setErrors] = useState<Marked[]>([]);
  const [plan, setPlan] = useState<Schemas["ApplyResult"] | null>(null);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const gutter = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!serverId) return;
    void (async () => {
      const { data, error } = await api.GET("/api/servers/{server_id}/export", {
        params: { path: { server_id: serverId }, query: { format: "yaml" } },
        parseAs: "text",
      });
      if (data !== undefined) setText(data);
      else setErrors([{ line: null, field: "", message: isProblem(error) ? error.title : "the design could not be exported" }]);
    })();
  }, [serverId]);

  const apply = async (dryRun: boolean) => {
    setBusy(true);
    const json = text.trimStart().startsWith("{");
    const { data, error, response } = await api.POST("/api/servers/apply", {
      params: { query: { dry_run: dryRun } },
      body: text,
      bodySerializer: (b) => b as string,
      headers: { "Content-Type": json ? "application/json" : "application/yaml" },
    });
    setBusy(false);
    if (data) {
      setErrors([]);
      setPlan(data);
      return;
    }
    setPlan(null);
    if (!isProblem(error)) {
      setErrors([{ line: null, field: "", message: `the service answered ${response.status}` }]);
      return;
    }
    const fields = error.errors ?? [];
    const marked: Marked[] =
      fields.length > 0
        ? fields.map((f) => ({ line: lineOf(text, f.field, f.message), field: f.field, message: f.message }))
        : [{ line: lineOf(text, "", error.detail ?? ""), field: "", message: error.detail ?? error.title }];
    setErrors(marked);
  };

  const goTo = (line: number) => {
    const el = area.current;
    if (!el) return;
    const lines = text.split("\n");
    const start = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0);
    el.focus();
    el.setSelectionRange(start, start + (lines[line - 1]?.length ?? 0));
    const lh = parseFloat(getComputedStyle(el).lineHeight) || 20;
    el.scrollTop = Math.max(0, (line - 3) * lh);
  };

  const bad = new Set(errors.flatMap((e) => (e.line === null ? [] : [e.line])));
  const count = text.split("\n").length;
  return (
    <section aria-labelledby="editor-title">
      <div class="head">
        <h1 id="editor-title">{serverId ? "Edit the design" : "New design"}</h1>
        {!serverId && (
          <button type="button" onClick={() => { setText(TEMPLATE); setErrors([]); setPlan(null); }}>Start from the template</button>
        )}
      </div>
      <p class="muted">A design document in YAML or JSON (its JSON Schema: <a href="api/schemas/design.json">/api/schemas/design.json</a>). Applying updates the design of the same name, or creates it.</p>
      <div class="editor">
        <div class="gutter" ref={gutter} aria-hidden="true">
          {Array.from({ length: count }, (_, i) => (
            <div class={bad.has(i + 1) ? "bad" : ""} data-line={i + 1}>{i + 1}</div>
          ))}
        </div>
        <textarea id="document" ref={area} spellcheck={false} aria-label="Design document" value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          onScroll={(e) => { if (gutter.current) gutter.current.scrollTop = (e.target as HTMLTextAreaElement).scrollTop; }} />
      </div>
      <div class="row">
        <button type="button" id="dry-run" disabled={busy} onClick={() => void apply(true)}>Dry run</button>
        <button type="button" id="apply" class="primary" disabled={busy} onClick={() => void apply(false)}>Apply</button>
      </div>
      {errors.length > 0 && (
        <ul class="errors" id="errors" role="alert">
          {errors.map((e) => (
            <li data-line={e.line ?? ""}>
              {e.line !== null ? (
                <button type="button" class="link" onClick={() => goTo(e.line as number)}>line {e.line}</button>
              ) : null}
              {e.field && <code>{e.field}</code>} {e.message}
            </li>
          ))}
        </ul>
      )}
      {plan && <PlanView plan={plan} />}
    </section>
  );
}
