package errtext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

// leaks are what no phrase may hold: an IPv4 address or an IPv6 one with
// its port, the net package's and encoding/json's words, Go type names.
var leaks = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\]:\d+|dial tcp|dial udp|lookup |read tcp|write tcp|` +
	`Go struct|Go value|json: cannot unmarshal|interface \{\}|map\[|\[\]|int64|float64|x509:|tls:|127\.0\.0\.1|:5432`)

func requireClean(t testing.TB, msg string) {
	t.Helper()
	require.NotRegexp(t, leaks, msg)
}

// closedPort is a loopback port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

func get(client *http.Client, url string) error {
	resp, err := client.Get(url)
	if err == nil {
		_ = resp.Body.Close()
	}
	return err
}

// TestOutbound: the errors real outbound requests fail with become fixed
// phrases, without the address, the port or the net package's words
// their text holds.
func TestOutbound(t *testing.T) {
	ctx := context.Background()
	private := outbound.NewClient(outbound.Options{AllowPrivate: true})
	impatient := outbound.NewClient(outbound.Options{AllowPrivate: true, Timeout: 300 * time.Millisecond})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
			return
		}
		http.Error(w, "dial tcp 10.1.2.3:5432: hidden", http.StatusNotFound)
	}))
	t.Cleanup(plain.Close)
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsSrv.Close)
	closed := closedPort(t)

	for name, tc := range map[string]struct {
		err  func() error
		want string
	}{
		"connection refused": {func() error { return get(private, "http://"+closed+"/x") },
			"the upstream could not be reached (connection refused)"},
		"timeout": {func() error { return get(impatient, silent.URL) }, "the upstream did not answer in time"},
		"unknown authority": {func() error { return get(private, tlsSrv.URL) },
			"the upstream's TLS certificate was refused (signed by an unknown authority)"},
		"http answering https": {func() error { return get(private, strings.Replace(plain.URL, "http:", "https:", 1)) },
			"the upstream did not answer in TLS (is the URL meant to be http://?)"},
		"forbidden": {func() error { return get(outbound.NewClient(outbound.Options{}), plain.URL) },
			"the upstream's address is refused: loopback addresses are not allowed"},
		"status": {func() error {
			_, err := outbound.Get(ctx, private, plain.URL+"/missing", "*/*", 10)
			return err
		}, "the upstream answered HTTP 404 Not Found"},
		"too large": {func() error {
			_, err := outbound.Get(ctx, private, plain.URL+"/big", "*/*", 10)
			return err
		}, "the upstream's answer is larger than the service accepts"},
		"no such host": {func() error {
			return get(private, "http://no-such-host.invalid/")
		}, "the upstream's host name could not be resolved"},
		"cancelled": {func() error {
			c, cancel := context.WithCancel(ctx)
			cancel()
			req, _ := http.NewRequestWithContext(c, http.MethodGet, plain.URL, nil)
			_, err := private.Do(req)
			return err
		}, "the request to the upstream was cancelled"},
		"other": {func() error { return errors.New("dial tcp 10.0.0.7:443: something new") }, "the request to the upstream failed"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.err()
			require.Error(t, err)
			got := errtext.Outbound("the upstream", err)
			require.Equal(t, tc.want, got, "from %v", err)
			requireClean(t, got)
		})
	}
	require.Empty(t, errtext.Outbound("the upstream", nil))
}

func TestTarget(t *testing.T) {
	require.Equal(t, "https://api.example.com:8443", errtext.Target("https://api.example.com:8443/v1/mcp?key=secret"))
	require.Equal(t, "https://api.example.com", errtext.Target("https://user:pw@api.example.com/x"))
	require.Empty(t, errtext.Target("not a url"))
}

type registration struct {
	RedirectURIs []string       `json:"redirect_uris"`
	Name         string         `json:"client_name"`
	Port         int8           `json:"port"`
	Meta         map[string]any `json:"meta"`
	Nested       struct {
		On bool `json:"on"`
	} `json:"nested"`
}

// TestDecode: decoders' errors name the field and the JSON (or YAML) kind,
// never the Go type or struct.
func TestDecode(t *testing.T) {
	for name, tc := range map[string]struct {
		body        string
		field, want string
	}{
		"number for array":  {`{"redirect_uris": 1}`, "redirect_uris", "must be an array, not a number"},
		"array for string":  {`{"client_name": []}`, "client_name", "must be a string, not an array"},
		"out of range":      {`{"port": 300}`, "port", "must be an integer, not this number (out of range, or not whole)"},
		"string for object": {`{"meta": "x"}`, "meta", "must be an object, not a string"},
		"nested":            {`{"nested": {"on": "yes"}}`, "nested.on", "must be a boolean, not a string"},
		"syntax":            {`{"client_name": x}`, "", "is not valid JSON (at byte 17)"},
		"ends early":        {`{"client_name": "x"`, "", "is not valid JSON (it ends early)"},
		"empty":             {``, "", "is empty"},
		"top level":         {`[1]`, "", "must be an object, not an array"},
	} {
		t.Run(name, func(t *testing.T) {
			var r registration
			err := json.NewDecoder(strings.NewReader(tc.body)).Decode(&r)
			require.Error(t, err)
			field, msg := errtext.Decode(err)
			require.Equal(t, tc.field, field, "from %v", err)
			require.Equal(t, tc.want, msg, "from %v", err)
			requireClean(t, msg)
		})
	}

	t.Run("unknown field", func(t *testing.T) {
		d := json.NewDecoder(strings.NewReader(`{"scope": "x"}`))
		d.DisallowUnknownFields()
		var r registration
		field, msg := errtext.Decode(d.Decode(&r))
		require.Equal(t, "scope", field)
		require.Equal(t, "is not allowed", msg)
	})
	t.Run("yaml", func(t *testing.T) {
		for doc, want := range map[string]string{
			"client_name: x\nport: [1]\n": "line 2: a list is not allowed here, a number is expected",
			"a: b\n c: : d\n":             "is not valid YAML (line 2)",
		} {
			var r registration
			err := yaml.Unmarshal([]byte(doc), &r)
			require.Error(t, err)
			_, msg := errtext.Decode(err)
			require.Equal(t, want, msg, "from %v", err)
			requireClean(t, msg)
		}
	})
	t.Run("foreign", func(t *testing.T) {
		_, msg := errtext.Decode(fmt.Errorf("parse: Go value of type main.T"))
		require.Equal(t, "is not a valid document", msg)
	})
}

func TestSafe(t *testing.T) {
	for _, s := range []string{"dial tcp 127.0.0.1:5432: connect: connection refused", "read tcp [::1]:5000->[::1]:80: reset",
		"lookup api.internal on 10.96.0.10:53: no such host", "json: cannot unmarshal number into Go struct field a.b of type string",
		"x509: certificate is valid for a.internal, not b", "refused 10.0.0.7"} {
		require.False(t, errtext.Safe(s), s)
	}
	for _, s := range []string{"unsupported protocol version \"2099-01-01\"", "connection closed", "version 1.2.3 of the server"} {
		require.True(t, errtext.Safe(s), s)
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"json: cannot unmarshal number into Go struct field registration.redirect_uris of type []string":               "redirect_uris must be an array, not a number",
		"must be a JSON object or null: json: cannot unmarshal array into Go value of type map[string]json.RawMessage": "must be a JSON object or null: must be an object, not an array",
		"body: json: cannot unmarshal string into Go struct field T.a.b of type int64":                                 "body: a.b must be a number, not a string",
		`could not be fetched: Get "https://x.example/a": dial tcp 10.0.0.7:443: i/o timeout`:                          "the value could not be read",
		"name must not be blank": "name must not be blank",
	} {
		got := errtext.Text(in)
		require.Equal(t, want, got, in)
		requireClean(t, got)
	}
}

// TestJSONKind: the JSON kind of a Go type, through pointers, as other
// packages' decoding messages name it.
func TestJSONKind(t *testing.T) {
	require.Equal(t, "a string", errtext.JSONKind(reflect.TypeFor[*string]()))
	require.Equal(t, "an array", errtext.JSONKind(reflect.TypeFor[[2]int]()))
	require.Equal(t, "an object", errtext.JSONKind(reflect.TypeFor[struct{}]()))
	require.Equal(t, "another type", errtext.JSONKind(reflect.TypeFor[chan int]()))
	require.Equal(t, "another type", errtext.JSONKind(nil))
}
