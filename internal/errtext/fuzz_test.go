package errtext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

var ipv4 = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+`)

// fakeAddr is a net.Addr of any text.
type fakeAddr string

func (a fakeAddr) Network() string { return "tcp" }
func (a fakeAddr) String() string  { return string(a) }

// FuzzOutbound wraps text of any content in the errors an outbound request
// can fail with, the way the net, net/http and crypto/tls packages nest
// them: the phrase never repeats the text, so never an address, a port or
// the packages' words.
func FuzzOutbound(f *testing.F) {
	for _, s := range []string{"127.0.0.1:5432", "10.0.3.7:443", "[::1]:8080", "dial tcp 127.0.0.1:5432: connect: connection refused",
		`Get "https://api.example.com/x?key=1": dial tcp 203.0.113.9:443: i/o timeout`, "lookup db.internal on 10.0.0.2:53: no such host",
		"x509: certificate signed by unknown authority", "json: cannot unmarshal number into Go struct field a.b of type string", ""} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, kind uint8) {
		if text := errtext.Text(s); strings.Contains(text, "dial tcp") || strings.Contains(text, "Go struct") ||
			strings.Contains(text, "cannot unmarshal") || strings.Contains(s, "dial tcp") && ipv4.MatchString(text) {
			t.Fatalf("Text(%q) = %q", s, text)
		}
		inner := []error{errors.New(s), syscall.ECONNREFUSED, syscall.ECONNRESET, context.DeadlineExceeded,
			os.ErrDeadlineExceeded, &net.DNSError{Name: s, Server: s, Err: s}, outbound.ErrForbiddenTarget,
			&outbound.StatusError{Code: int(kind) * 3}}[int(kind)%8]
		op := &net.OpError{Op: "dial", Net: "tcp", Addr: fakeAddr(s), Source: fakeAddr(s), Err: inner}
		for _, err := range []error{
			inner, op,
			&url.Error{Op: "Get", URL: s, Err: op},
			&url.Error{Op: "Post", URL: "https://" + s, Err: inner},
			fmt.Errorf("%s: %w", s, op),
		} {
			got := errtext.Outbound("the upstream", err)
			requireClean(t, got)
			if len(s) >= 4 && strings.ContainsAny(s, "0123456789:") && strings.Contains(got, s) {
				t.Fatalf("%q repeats %q", got, s)
			}
		}
	})
}

// FuzzDecode decodes documents of any content into a struct of every kind
// of field, as JSON and as YAML: the message a refusal becomes never names
// a Go type, a struct or the decoder's own words.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"redirect_uris": 1}`, `{"port": 1e9}`, `{"meta": []}`, `{"nested": {"on": 1}}`,
		`{"client_name": x}`, `[`, "port: [1]\n", "meta: 3\nnested: {on: x}\n", "a: b\n c: : d\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var r registration
		d := json.NewDecoder(strings.NewReader(string(doc)))
		d.DisallowUnknownFields()
		if err := d.Decode(&r); err != nil {
			_, msg := errtext.Decode(err)
			requireClean(t, msg)
		}
		var y registration
		if err := yaml.Unmarshal(doc, &y); err != nil {
			_, msg := errtext.Decode(err)
			requireClean(t, msg)
		}
	})
}
