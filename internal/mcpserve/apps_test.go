package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/nodetest"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// appExample is the README's MCP Apps example: a tool linked to a ui://
// view whose HTML calls it back through its host.
const appExample = "../../openapi/examples/designs/mcp-app.yaml"

// applyDocument applies the design document at path (YAML) as c and
// returns the server's id.
func applyDocument(t *testing.T, c *apitest.Client, path string) string {
	t.Helper()
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	y := c.For(t)
	y.Header.Set("Content-Type", "application/yaml")
	r := y.Do(http.MethodPost, "/api/servers/apply", doc)
	r.Status(http.StatusCreated)
	return r.String("server.id")
}

// TestAppExampleInReadme: the README's MCP Apps section applies the
// example as it is in the repository, so the two cannot drift apart.
func TestAppExampleInReadme(t *testing.T) {
	doc, err := os.ReadFile(appExample)
	require.NoError(t, err)
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "cat > mcp-app.yaml <<'YAML'\n"+string(doc)+"YAML\n")
}

// appMeta are the example's tool and view _meta, as designed.
const (
	appToolMeta = `{"ui":{"resourceUri":"ui://forecast/view.html","visibility":["model","app"]}}`
	appViewMeta = `{"ui":{"prefersBorder":true,"csp":{"connectDomains":[],"resourceDomains":[]}}}`
)

// TestAppInBothEras: a design with an MCP Apps view declares the
// io.modelcontextprotocol/ui extension in either era's capabilities, lists
// its tool with _meta.ui.resourceUri, lists and reads the view as
// text/html;profile=mcp-app with its _meta.ui, and answers the tool the
// view calls; a design without a view declares no such extension.
func TestAppInBothEras(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Apps")
	app := env.URL + "/api/platform/" + applyDocument(t, owner, appExample) + "/mcp"
	plain := env.URL + "/api/platform/" + createDesign(t, owner, serverDesign{Enabled: true,
		Server:    raw(t, map[string]any{"name": "plain"}),
		Resources: []json.RawMessage{raw(t, map[string]any{"name": "doc", "uri": "docs://a", "content": "a"})}}) + "/mcp"

	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			require.Equal(t, map[string]any{}, extensions(t, e, app)["io.modelcontextprotocol/ui"],
				"the extension's settings are {}")
			_, declared := extensions(t, e, plain)["io.modelcontextprotocol/ui"]
			require.False(t, declared, "a design without a ui:// resource does not declare the extension")

			s := e.open(t, app)
			var tools struct {
				Tools []struct {
					Name string          `json:"name"`
					Meta json.RawMessage `json:"_meta"`
				} `json:"tools"`
			}
			require.NoError(t, json.Unmarshal([]byte(s.call("tools/list", nil).ok(t)), &tools))
			require.Len(t, tools.Tools, 1)
			require.JSONEq(t, appToolMeta, string(tools.Tools[0].Meta))

			var listed struct {
				Resources []struct {
					URI      string          `json:"uri"`
					MimeType string          `json:"mimeType"`
					Meta     json.RawMessage `json:"_meta"`
				} `json:"resources"`
			}
			require.NoError(t, json.Unmarshal([]byte(s.call("resources/list", nil).ok(t)), &listed))
			require.Len(t, listed.Resources, 1)
			require.Equal(t, "text/html;profile=mcp-app", listed.Resources[0].MimeType)
			require.JSONEq(t, appViewMeta, string(listed.Resources[0].Meta))

			var read struct {
				Contents []struct {
					URI      string          `json:"uri"`
					MimeType string          `json:"mimeType"`
					Text     string          `json:"text"`
					Meta     json.RawMessage `json:"_meta"`
				} `json:"contents"`
			}
			require.NoError(t, json.Unmarshal([]byte(s.call("resources/read", map[string]any{"uri": "ui://forecast/view.html"}).ok(t)), &read))
			require.Len(t, read.Contents, 1)
			c := read.Contents[0]
			require.Equal(t, "ui://forecast/view.html", c.URI)
			require.Equal(t, "text/html;profile=mcp-app", c.MimeType)
			require.True(t, strings.HasPrefix(c.Text, "<!DOCTYPE html>"), c.Text)
			require.Contains(t, c.Text, `request("ui/initialize"`)
			require.JSONEq(t, appViewMeta, string(c.Meta))

			got := s.call("tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Rome"}}).ok(t)
			require.Contains(t, got, `\"city\":\"Rome\"`)
		})
	}
}

// extensions are the extensions the endpoint declares to a client of era
// e: in initialize's capabilities (legacy) or server/discover's (modern).
func extensions(t *testing.T, e era, endpoint string) map[string]any {
	t.Helper()
	var r struct {
		Capabilities struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(capabilities(t, e, endpoint), &r))
	if r.Capabilities.Extensions == nil {
		return map[string]any{}
	}
	return r.Capabilities.Extensions
}

// capabilities is the result that tells a client of era e the endpoint's
// capabilities: initialize's, for a host that declares MCP Apps (legacy),
// or server/discover's (modern).
func capabilities(t *testing.T, e era, endpoint string) json.RawMessage {
	t.Helper()
	method, params := "initialize", map[string]any{"protocolVersion": protocol.Latest, "capabilities": map[string]any{
		"extensions": map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}},
		"clientInfo": map[string]any{"name": "host", "version": "1"}}
	hdr := http.Header{}
	if e.modern {
		method, params = "server/discover", map[string]any{"_meta": map[string]any{mcptransport.MetaProtocolVersion: protocol.Modern,
			mcptransport.MetaClientCapabilities: map[string]any{}}}
		hdr.Set(mcptransport.HeaderProtocolVersion, protocol.Modern)
		hdr.Set(mcptransport.HeaderMethod, method)
	}
	resp, body := post(t, endpoint, hdr, string(raw(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	r := reply{status: resp.StatusCode, raw: body}
	require.NoError(t, json.Unmarshal([]byte(body), &r), body)
	return json.RawMessage(r.ok(t))
}

// TestAppMetaChecked: a tool's and a resource's meta are refused (422)
// where the MCP Apps schemas refuse them, naming the field; null removes
// a meta.
func TestAppMetaChecked(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Apps checked")
	id := owner.CreateServer(raw(t, map[string]any{"name": "checked"}), nil, nil, nil)
	tools, resources := "/api/servers/"+id+"/tools", "/api/servers/"+id+"/resources"

	for name, c := range map[string]struct {
		meta   any
		fields []string
	}{
		"resourceUri not ui":   {map[string]any{"ui": map[string]any{"resourceUri": "https://x"}}, []string{"meta.ui.resourceUri"}},
		"resourceUri a number": {map[string]any{"ui": map[string]any{"resourceUri": 1}}, []string{"meta.ui.resourceUri"}},
		"visibility":           {map[string]any{"ui": map[string]any{"visibility": []any{"model", "user"}}}, []string{"meta.ui.visibility[1]"}},
		"csp on a tool":        {map[string]any{"ui": map[string]any{"csp": map[string]any{}}}, []string{"meta.ui.csp"}},
		"unknown member":       {map[string]any{"ui": map[string]any{"resourceURI": "ui://a"}}, []string{"meta.ui.resourceURI"}},
		"ui not an object":     {map[string]any{"ui": "ui://a"}, []string{"meta.ui"}},
		"flat key":             {map[string]any{"ui/resourceUri": "a"}, []string{"meta.ui/resourceUri"}},
	} {
		t.Run("tool/"+name, func(t *testing.T) {
			owner.For(t).Do(http.MethodPost, tools, map[string]any{"name": "t", "meta": c.meta}).
				Problem(http.StatusUnprocessableEntity, c.fields...)
		})
	}

	view := func(extra map[string]any) map[string]any {
		body := map[string]any{"name": "view", "uri": "ui://v/view.html", "content": "<!DOCTYPE html><p>hi</p>"}
		for k, v := range extra {
			body[k] = v
		}
		return body
	}
	for name, c := range map[string]struct {
		body   map[string]any
		fields []string
	}{
		"csp not a list": {view(map[string]any{"meta": map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": "https://a"}}}}),
			[]string{"meta.ui.csp.connectDomains"}},
		"csp origin a number": {view(map[string]any{"meta": map[string]any{"ui": map[string]any{"csp": map[string]any{"frameDomains": []any{1}}}}}),
			[]string{"meta.ui.csp.frameDomains[0]"}},
		"csp unknown directive": {view(map[string]any{"meta": map[string]any{"ui": map[string]any{"csp": map[string]any{"scriptDomains": []any{}}}}}),
			[]string{"meta.ui.csp.scriptDomains"}},
		"permission not {}": {view(map[string]any{"meta": map[string]any{"ui": map[string]any{"permissions": map[string]any{"camera": true}}}}),
			[]string{"meta.ui.permissions.camera"}},
		"prefersBorder": {view(map[string]any{"meta": map[string]any{"ui": map[string]any{"prefersBorder": "yes"}}}),
			[]string{"meta.ui.prefersBorder"}},
		"ui on a plain resource": {map[string]any{"name": "doc", "uri": "docs://a", "content": "a",
			"meta": map[string]any{"ui": map[string]any{}}}, []string{"meta.ui"}},
		"another media type": {view(map[string]any{"mime_type": "text/html"}), []string{"mime_type"}},
		"JSON content":       {view(map[string]any{"content": map[string]any{"html": "x"}}), []string{"content"}},
	} {
		t.Run("resource/"+name, func(t *testing.T) {
			owner.For(t).Do(http.MethodPost, resources, c.body).Problem(http.StatusUnprocessableEntity, c.fields...)
		})
	}

	// What the schemas allow is stored and answered as given; null removes it.
	meta := map[string]any{"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.example.com"}},
		"permissions": map[string]any{"clipboardWrite": map[string]any{}}, "domain": "a.example.com", "prefersBorder": false},
		"com.example/other": 1}
	r := owner.Do(http.MethodPost, resources, view(map[string]any{"meta": meta})).Status(http.StatusCreated)
	require.JSONEq(t, string(raw(t, meta)), string(raw(t, r.Get("meta"))))
	r = owner.Do(http.MethodPatch, resources+"/"+r.String("id"), map[string]any{"meta": nil}).Status(http.StatusOK)
	require.Nil(t, r.Get("meta"))

	tool := owner.Do(http.MethodPost, tools, map[string]any{"name": "t", "meta": map[string]any{
		"ui": map[string]any{"resourceUri": "ui://v/view.html", "visibility": []any{"app"}}, "ui/resourceUri": "ui://v/view.html"}}).
		Status(http.StatusCreated)
	require.Equal(t, "ui://v/view.html", tool.String("meta.ui.resourceUri"))

	// A duplicate keeps the tools' and resources' meta.
	view2 := owner.Do(http.MethodPost, resources, view(map[string]any{"uri": "ui://v/other.html", "meta": meta})).Status(http.StatusCreated)
	dup := owner.Do(http.MethodPost, "/api/servers/"+id+"/duplicate", nil).Status(http.StatusCreated).String("id")
	copied := owner.Do(http.MethodGet, "/api/servers/"+dup+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, "ui://v/view.html", copied.String("items.0.meta.ui.resourceUri"))
	copiedViews := owner.Do(http.MethodGet, "/api/servers/"+dup+"/resources", nil).Status(http.StatusOK)
	require.Nil(t, copiedViews.Get("items.0.meta"), "removed before the copy")
	require.JSONEq(t, string(raw(t, view2.Get("meta"))), string(raw(t, copiedViews.Get("items.1.meta"))))
}

// appPackages are the MCP Apps SDK and the esbuild pinned in .ci/apps
// (MOCKMCP_APPS_NODE and MOCKMCP_APPS_PACKAGES override node and the
// folder).
var appPackages = nodetest.Packages{
	Name: "MCP Apps SDK", Dir: "../../.ci/apps", DirEnv: "MOCKMCP_APPS_PACKAGES", NodeEnv: "MOCKMCP_APPS_NODE",
	Installed: "@modelcontextprotocol/ext-apps/package.json", Target: "apps-packages",
	Unchecked: "what the design sends is not checked against its schemas",
}

// TestAppConformsToExtApps: what the example app's design sends a host, in
// either era (capabilities, tools/list, resources/list, resources/read of
// the view, the calls the view makes), is what the schemas of the MCP Apps
// SDK (ext-apps 2.0.4) and of the MCP SDK accept, as testdata/appcheck.mjs
// checks it with them.
func TestAppConformsToExtApps(t *testing.T) {
	t.Parallel()
	node, dir := appPackages.Toolchain(t)
	script, err := os.ReadFile(filepath.Join("testdata", "appcheck.mjs"))
	require.NoError(t, err)
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Apps SDK")
	app := env.URL + "/api/platform/" + applyDocument(t, owner, appExample) + "/mcp"
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t, app)
			sent := map[string]any{"era": e.name, "capabilities": capabilities(t, e, app),
				"tools":     json.RawMessage(s.call("tools/list", nil).ok(t)),
				"resources": json.RawMessage(s.call("resources/list", nil).ok(t)),
				"reads": map[string]json.RawMessage{"ui://forecast/view.html": json.RawMessage(
					s.call("resources/read", map[string]any{"uri": "ui://forecast/view.html"}).ok(t))},
				"calls": []json.RawMessage{
					json.RawMessage(s.call("tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Paris"}}).ok(t)),
					json.RawMessage(s.call("tools/call", map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Rome"}}).ok(t)),
				}}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, "--input-type=module", "--eval", string(script))
			cmd.Dir = dir // the script's imports resolve from here
			cmd.Stdin = bytes.NewReader(raw(t, sent))
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Equal(t, "ok", strings.TrimSpace(string(out)))
		})
	}
}
