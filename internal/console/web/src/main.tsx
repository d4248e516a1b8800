// The console's shell: who is signed in, the organization switch, and a
// router over location.hash (the page is served at / alone, so every view
// is a fragment: #/designs, #/designs/ID/journal, …).
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, problemText, type Schemas } from "./api";
import { AuthPage } from "./auth";
import { DesignsPage } from "./designs";
import { EditorPage } from "./editor";
import { JournalPage } from "./journal";
import { DesignPage } from "./design";
import { CardsPage } from "./cards";

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return hash;
}

function Route({ hash, onOrgChange }: { hash: string; onOrgChange: number }) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((p) => p !== "");
  const [first, id, sub] = parts;
  if (first === "new") return <EditorPage key={`new${onOrgChange}`} />;
  if (first === "cards") return <CardsPage key={`cards${onOrgChange}`} />;
  if (first === "designs" && id) {
    if (sub === "journal") return <JournalPage key={id} serverId={id} />;
    if (sub === "edit") return <EditorPage key={`edit${id}`} serverId={id} />;
    return <DesignPage key={id} serverId={id} tab={sub ?? "overview"} />;
  }
  return <DesignsPage key={`list${onOrgChange}`} />;
}

function App() {
  const [me, setMe] = useState<Schemas["Me"] | null | undefined>(undefined);
  const [error, setError] = useState("");
  const [orgVersion, setOrgVersion] = useState(0);
  const hash = useHash();

  const load = async () => {
    const { data, response } = await api.GET("/api/me");
    if (data) setMe(data);
    else if (response.status === 401) setMe(null);
    else setError(`the service answered ${response.status}`);
  };
  useEffect(() => {
    void load();
  }, []);

  const switchOrg = async (organization_id: string) => {
    const { error: e } = await api.PUT("/api/me/current-organization", { body: { organization_id } });
    if (e) {
      setError(problemText(e));
      return;
    }
    await load();
    setOrgVersion((v) => v + 1);
    location.hash = "#/designs";
  };
  const [newOrg, setNewOrg] = useState<string | null>(null);
  const createOrg = async (e: Event) => {
    e.preventDefault();
    const { data, error: problem } = await api.POST("/api/organizations", { body: { name: newOrg ?? "" } });
    if (!data) {
      setError(problemText(problem));
      return;
    }
    setError("");
    setNewOrg(null);
    await switchOrg(data.id);
  };
  const signOut = async () => {
    await api.POST("/api/auth/logout");
    setMe(null);
  };

  if (me === undefined) return <main class="page">{error ? <p class="error" role="alert">{error}</p> : <p>Loading…</p>}</main>;
  if (me === null) return <AuthPage onSignedIn={load} />;
  const current = me.organizations.find((o) => o.id === me.current_organization_id);
  return (
    <>
      <header class="bar">
        <a class="brand" href="#/designs">mockmcp</a>
        <nav aria-label="Sections">
          <a href="#/designs" aria-current={hash === "" || hash.startsWith("#/designs") ? "page" : undefined}>Designs</a>
          <a href="#/new" aria-current={hash.startsWith("#/new") ? "page" : undefined}>New design</a>
          <a href="#/cards" aria-current={hash.startsWith("#/cards") ? "page" : undefined}>Agent cards</a>
          <a href="docs">API</a>
        </nav>
        <div class="who">
          <label>
            <span class="sr">Organization</span>
            <select id="org" value={newOrg !== null ? "+" : current?.id ?? ""} onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              if (v === "+") setNewOrg("");
              else { setNewOrg(null); void switchOrg(v); }
            }}>
              {me.organizations.map((o) => (
                <option value={o.id}>{o.name}</option>
              ))}
              <option value="+">New organization…</option>
            </select>
          </label>
          {newOrg !== null && (
            <form class="row" id="new-org" onSubmit={(e) => void createOrg(e)}>
              <input id="new-org-name" aria-label="New organization's name" required placeholder="Name" value={newOrg}
                onInput={(e) => setNewOrg((e.target as HTMLInputElement).value)} />
              <button class="small primary">Create</button>
              <button type="button" class="small" onClick={() => setNewOrg(null)}>Cancel</button>
            </form>
          )}
          <span class="email">{me.user.email}</span>
          <button type="button" class="link" onClick={() => void signOut()}>Sign out</button>
        </div>
      </header>
      {error && <p class="error" role="alert">{error}</p>}
      <main class="page">
        <Route hash={hash} onOrgChange={orgVersion} />
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
