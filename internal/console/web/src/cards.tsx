// The organization's agent cards and their status on the public exchange.
import { useEffect, useState } from "preact/hooks";
import { api, problemText, type Schemas } from "./api";
import { CopyButton } from "./designs";

export function CardsPage() {
  const [cards, setCards] = useState<Schemas["AgentCard"][] | null>(null);
  const [error, setError] = useState("");
  const load = async () => {
    const { data, error: e } = await api.GET("/api/agent-cards", { params: { query: { limit: 100 } } });
    if (data) setCards(data.items);
    else setError(problemText(e));
  };
  useEffect(() => {
    void load();
  }, []);
  const publish = async (c: Schemas["AgentCard"]) => {
    const opts = { params: { path: { card_id: c.id } } };
    const { error: e } = c.status === "published" ? await api.POST("/api/agent-cards/{card_id}/unpublish", opts) : await api.POST("/api/agent-cards/{card_id}/publish", opts);
    if (e) setError(problemText(e));
    else setError("");
    await load();
  };
  return (
    <section aria-labelledby="cards-title">
      <h1 id="cards-title">Agent cards</h1>
      {error && <p class="error" role="alert">{error}</p>}
      {cards === null ? <p>Loading…</p> : cards.length === 0 ? <p class="muted">No agent card yet (create them with <a href="docs">POST /api/agent-cards</a>).</p> : (
        <ul class="plain">
          {cards.map((c) => (
            <li class="card stack">
              <div class="row">
                <strong>{c.name}</strong> <span class="muted">{c.version}</span>
                <span class={`badge ${c.status === "published" ? "ok" : ""}`}>{c.status === "published" ? "on the exchange" : "draft"}</span>
                <span class="grow" />
                <button type="button" onClick={() => void publish(c)}>{c.status === "published" ? "Unpublish" : "Publish"}</button>
              </div>
              <p class="muted">{c.description}</p>
              {c.exchange_url && (
                <div class="row endpoint"><code class="url">{c.exchange_url}</code><CopyButton text={c.exchange_url} label={`Copy the exchange URL of ${c.name}`} /></div>
              )}
              <div class="muted">skills: {c.skills.map((s) => s.name).join(", ") || "none"}{c.warnings.length > 0 ? ` · ${c.warnings.length} warnings` : ""}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
