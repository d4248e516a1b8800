// Sign in and sign up: both answer with the session cookie.
import { useState } from "preact/hooks";
import { api, problemText } from "./api";

export function AuthPage({ onSignedIn }: { onSignedIn: () => Promise<void> }) {
  const [mode, setMode] = useState<"in" | "up">("in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [org, setOrg] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    const { error: problem } =
      mode === "in"
        ? await api.POST("/api/auth/login", { body: { email, password } })
        : await api.POST("/api/auth/signup", { body: { email, password, organization_name: org } });
    setBusy(false);
    if (problem) setError(problemText(problem));
    else await onSignedIn();
  };

  return (
    <main class="page narrow">
      <h1>mockmcp</h1>
      <div class="tabs" role="group" aria-label="Account">
        <button type="button" id="tab-signin" aria-pressed={mode === "in"} onClick={() => setMode("in")}>Sign in</button>
        <button type="button" id="tab-signup" aria-pressed={mode === "up"} onClick={() => setMode("up")}>Sign up</button>
      </div>
      <form class="card stack" onSubmit={(e) => void submit(e)}>
        <label>
          Email
          <input id="email" type="email" autocomplete="username" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Password
          <input id="password" type="password" minLength={8} maxLength={72} required autocomplete={mode === "in" ? "current-password" : "new-password"}
            value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        </label>
        {mode === "up" && (
          <label>
            Organization
            <input id="organization" required value={org} onInput={(e) => setOrg((e.target as HTMLInputElement).value)} />
          </label>
        )}
        {error && <p class="error" role="alert">{error}</p>}
        <button id="auth-submit" class="primary" disabled={busy}>{mode === "in" ? "Sign in" : "Create the account"}</button>
      </form>
    </main>
  );
}
