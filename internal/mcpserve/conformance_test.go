package mcpserve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/golden"
)

// update, set by -update, rewrites the expected responses in testdata/*.txtar
// from what the server answers.
var update = golden.Update

// The golden transcripts in testdata/*.txtar are the conformance assertions
// of the per-server MCP endpoint. Each archive is one conversation through
// the real HTTP stack:
//
//   - design.json: the designs to create through the REST API before the
//     conversation (see designFile), and the service's body limit;
//   - then pairs of sections "<exchange>: request" and "<exchange>: response".
//
// A request is "METHOD PATH", header lines, a blank line and the body. A
// response is "STATUS TEXT", the headers in recordedHeaders (sorted; an
// absent header is asserted absent), a blank line and the body, exactly.
// Each section ends with one newline that is not part of the body, so a body
// that ends in "\n\n" (an SSE event) is written with three.
//
// Placeholders: {{key}} stands for the id of the design with that key, in
// requests and in responses; {{x*N}} in a request stands for N letters x.
// A response's requestState (signed, so never the same twice) is written
// {{state}}, and {{state}} in a later request stands for the last one.
// A request header "Transfer-Encoding: chunked" sends the body without a
// Content-Length.
//
// Run `go test ./internal/mcpserve/ -run TestConformance -update` to rewrite
// the response sections (and to add missing ones), then review the diff by
// eye: the goldens are the assertions.

// recordedHeaders are the response headers a transcript shows, in order.
var recordedHeaders = []string{
	"Access-Control-Allow-Headers",
	"Access-Control-Allow-Methods",
	"Access-Control-Allow-Origin",
	"Access-Control-Max-Age",
	"Allow",
	"Cache-Control",
	"Connection",
	"Content-Type",
	"Mcp-Session-Id",
	"WWW-Authenticate",
}

// designFile is the design.json section of an archive.
type designFile struct {
	// MaxBodyBytes, when set, boots the service with that body limit.
	MaxBodyBytes int64          `json:"max_body_bytes,omitempty"`
	Servers      []serverDesign `json:"servers"`
}

// serverDesign is one server design, created through the REST API.
type serverDesign struct {
	// Key names the design in placeholders: {{key}}.
	Key string `json:"key"`
	// Server is the body of POST /api/servers.
	Server json.RawMessage `json:"server"`
	// Tools, Resources and Prompts are bodies of POST
	// /api/servers/{id}/tools, /resources and /prompts, in order.
	Tools     []json.RawMessage `json:"tools,omitempty"`
	Resources []json.RawMessage `json:"resources,omitempty"`
	Prompts   []json.RawMessage `json:"prompts,omitempty"`
	// Enabled: PATCH the server to enabled once it is complete.
	Enabled bool `json:"enabled"`
}

// createDesign creates d through the REST API as c and returns its id.
func createDesign(t *testing.T, c *apitest.Client, d serverDesign) string {
	t.Helper()
	id := c.CreateServer(d.Server, d.Tools, d.Resources, d.Prompts)
	if d.Enabled {
		c.EnableServer(id)
	}
	return id
}

// exchange is one request of a transcript and the response it expects.
type exchange struct {
	name     string
	request  []byte
	response []byte // nil when the archive has none yet
}

const (
	requestSuffix  = ": request"
	responseSuffix = ": response"
)

func TestConformance(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file)
		})
	}
}

func runTranscript(t *testing.T, file string) {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	require.NoError(t, err)
	require.NotEmpty(t, ar.Files, "%s has no sections", file)
	require.Equal(t, "design.json", ar.Files[0].Name, "%s must start with design.json", file)
	var df designFile
	require.NoError(t, json.Unmarshal(ar.Files[0].Data, &df), "design.json")
	exchanges := parseExchanges(t, ar.Files[1:])

	var opts *apitest.Options
	if df.MaxBodyBytes > 0 {
		opts = &apitest.Options{Configure: func(c *config.Config) { c.MaxBodyBytes = df.MaxBodyBytes }}
	}
	env := apitest.New(t, opts)
	owner := env.Signup(t, "Conformance")
	var toID, toKey []string
	for _, d := range df.Servers {
		require.NotEmpty(t, d.Key, "every design needs a key")
		id := createDesign(t, owner, d)
		toID = append(toID, "{{"+d.Key+"}}", id)
		toKey = append(toKey, id, "{{"+d.Key+"}}")
	}
	expand, normalize := strings.NewReplacer(toID...), strings.NewReplacer(toKey...)

	// The endpoint is public: requests carry no session.
	client := &http.Client{}
	got := make([][]byte, len(exchanges))
	var lastState string
	for i, ex := range exchanges {
		t.Run(ex.name, func(t *testing.T) {
			withState := strings.NewReplacer("{{state}}", lastState)
			resp := normalize.Replace(string(send(t, client, env.URL, expand, []byte(withState.Replace(string(ex.request))))))
			if m := requestState.FindStringSubmatch(resp); m != nil {
				lastState = m[1]
				resp = strings.Replace(resp, m[1], "{{state}}", 1)
			}
			got[i] = []byte(resp)
			if !*update {
				require.NotNil(t, ex.response, "no response section; run with -update to record one")
				require.Equal(t, string(ex.response), string(got[i]))
			}
		})
	}
	if !*update || t.Failed() {
		return
	}
	out := &txtar.Archive{Comment: ar.Comment, Files: ar.Files[:1:1]}
	for i, ex := range exchanges {
		out.Files = append(out.Files,
			txtar.File{Name: ex.name + requestSuffix, Data: ex.request},
			txtar.File{Name: ex.name + responseSuffix, Data: append(got[i], '\n')})
	}
	require.NoError(t, os.WriteFile(file, txtar.Format(out), 0o644))
}

// parseExchanges pairs the request and response sections of an archive.
func parseExchanges(t *testing.T, files []txtar.File) []exchange {
	t.Helper()
	var out []exchange
	seen := map[string]bool{}
	for _, f := range files {
		switch {
		case strings.HasSuffix(f.Name, requestSuffix):
			name := strings.TrimSuffix(f.Name, requestSuffix)
			require.False(t, seen[name], "exchange %q appears twice", name)
			seen[name] = true
			out = append(out, exchange{name: name, request: f.Data})
		case strings.HasSuffix(f.Name, responseSuffix):
			name := strings.TrimSuffix(f.Name, responseSuffix)
			require.True(t, len(out) > 0 && out[len(out)-1].name == name && out[len(out)-1].response == nil,
				"response %q must follow its request", name)
			out[len(out)-1].response = bytes.TrimSuffix(f.Data, []byte("\n"))
		default:
			t.Fatalf("section %q is neither a request nor a response", f.Name)
		}
	}
	require.NotEmpty(t, out, "no exchanges")
	return out
}

var padding = regexp.MustCompile(`\{\{x\*(\d+)\}\}`)

// requestState finds the requestState of an input_required result.
var requestState = regexp.MustCompile(`"requestState":"([^"]+)"`)

// send performs the request written in section and returns the response
// in transcript form.
func send(t *testing.T, client *http.Client, base string, expand *strings.Replacer, section []byte) []byte {
	t.Helper()
	text := expand.Replace(string(bytes.TrimSuffix(section, []byte("\n"))))
	text = padding.ReplaceAllStringFunc(text, func(m string) string {
		n, err := strconv.Atoi(padding.FindStringSubmatch(m)[1])
		require.NoError(t, err)
		return strings.Repeat("x", n)
	})
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(head, "\n")
	method, path, ok := strings.Cut(lines[0], " ")
	require.True(t, ok, "the request line must be METHOD PATH, not %q", lines[0])

	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	require.NoError(t, err)
	for _, line := range lines[1:] {
		k, v, ok := strings.Cut(line, ":")
		require.True(t, ok, "header line %q", line)
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if strings.EqualFold(k, "Transfer-Encoding") && v == "chunked" {
			// An unknown length makes the client send the body chunked.
			req.ContentLength = -1
			req.Body = io.NopCloser(strings.NewReader(body))
			continue
		}
		req.Header.Add(k, v)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	var b bytes.Buffer
	fmt.Fprintf(&b, "%d %s\n", resp.StatusCode, http.StatusText(resp.StatusCode))
	for _, k := range recordedHeaders {
		for _, v := range resp.Header.Values(k) {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	b.WriteByte('\n')
	b.Write(raw)
	return b.Bytes()
}
