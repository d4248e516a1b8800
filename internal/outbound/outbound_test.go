package outbound_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/credential"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

// server starts a loopback test server and counts the requests it serves,
// so that a test can prove a refused request never reached it.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }

// ipv6Server starts a counting server on [::1], or skips the test on a
// machine without IPv6 loopback.
func ipv6Server(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	var hits atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		ok(w, r)
	}))
	require.NoError(t, srv.Listener.Close())
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &hits
}

func port(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	u, err := url.Parse(srv.URL)
	require.NoError(t, err)
	return u.Port()
}

// do sends a request with c and returns the response with its body read.
// A response can come with an error: net/http returns the last response
// when the redirect policy refuses to go on.
func do(t *testing.T, c *http.Client, method, target string, body io.Reader, header http.Header) (*http.Response, []byte, error) {
	t.Helper()
	t.Cleanup(c.CloseIdleConnections)
	req, err := http.NewRequestWithContext(t.Context(), method, target, body)
	require.NoError(t, err)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return resp, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func get(t *testing.T, c *http.Client, target string) (*http.Response, []byte, error) {
	t.Helper()
	return do(t, c, http.MethodGet, target, nil, nil)
}

func requireForbidden(t *testing.T, err error) {
	t.Helper()
	require.Error(t, err)
	require.ErrorIs(t, err, outbound.ErrForbiddenTarget)
	require.Contains(t, err.Error(), "set ALLOW_PRIVATE_TARGETS=true to allow private targets")
}

func TestIsForbiddenAddr(t *testing.T) {
	t.Parallel()
	cases := []struct {
		addr   string
		reason string // "" when allowed
	}{
		// Public targets.
		{"8.8.8.8", ""},
		{"1.1.1.1", ""},
		{"93.184.216.34", ""},
		{"100.63.255.255", ""}, // just below carrier-grade NAT
		{"100.128.0.0", ""},    // just above
		{"172.15.255.255", ""}, // just below 172.16/12
		{"172.32.0.0", ""},     // just above
		{"223.255.255.255", ""},
		{"2606:4700::1111", ""},
		{"2001:4860:4860::8888", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""}, // NAT64 of 8.8.8.8
		{"2002:808:808::1", ""},  // 6to4 of 8.8.8.8
		{"2a00:1450:4001::200e", ""},

		// IPv4.
		{"0.0.0.0", "unspecified addresses"},
		{"0.1.2.3", `"this network" addresses`},
		{"127.0.0.1", "loopback addresses"},
		{"127.255.255.254", "loopback addresses"},
		{"10.0.0.1", "private addresses"},
		{"172.16.0.1", "private addresses"},
		{"172.31.255.255", "private addresses"},
		{"192.168.1.1", "private addresses"},
		{"100.64.0.1", "carrier-grade NAT addresses"},
		{"100.127.255.255", "carrier-grade NAT addresses"},
		{"169.254.169.254", "cloud metadata addresses"},
		{"169.254.170.2", "cloud metadata addresses"},
		{"100.100.100.200", "cloud metadata addresses"},
		{"192.0.0.192", "cloud metadata addresses"},
		{"169.254.1.1", "link-local addresses"},
		{"192.0.0.8", "IETF protocol assignment addresses"},
		{"192.0.2.1", "documentation addresses"},
		{"198.51.100.1", "documentation addresses"},
		{"203.0.113.1", "documentation addresses"},
		{"198.18.0.1", "benchmarking addresses"},
		{"224.0.0.1", "multicast addresses"},
		{"239.255.255.250", "multicast addresses"},
		{"255.255.255.255", "broadcast addresses"},
		{"240.0.0.1", "reserved addresses"},

		// IPv6.
		{"::", "unspecified addresses"},
		{"::1", "loopback addresses"},
		{"fc00::1", "private (unique local) addresses"},
		{"fd12:3456::1", "private (unique local) addresses"},
		{"fd00:ec2::254", "cloud metadata addresses"},
		{"fe80::1", "link-local addresses"},
		{"fe80::1%eth0", "link-local addresses"},
		{"fec0::1", "site-local addresses"},
		{"ff02::1", "multicast addresses"},
		{"100::1", "discard-only addresses"},
		{"64:ff9b:1::a00:1", "local-use NAT64 addresses"},
		{"2001:db8::1", "documentation addresses"},
		{"3fff::1", "documentation addresses"},
		{"2001::1", "IETF protocol assignment addresses"}, // Teredo
		{"4000::1", "reserved addresses"},

		// IPv6 forms of a forbidden IPv4 address.
		{"::ffff:127.0.0.1", "loopback addresses"},
		{"::ffff:10.1.2.3", "private addresses"},
		{"::ffff:169.254.169.254", "cloud metadata addresses"},
		{"::ffff:0.0.0.0", "unspecified addresses"},
		{"::127.0.0.1", "IPv4-compatible addresses embedding loopback addresses"},
		{"::10.0.0.1", "IPv4-compatible addresses embedding private addresses"},
		{"::8.8.8.8", "deprecated IPv4-compatible addresses"},
		{"64:ff9b::7f00:1", "NAT64 addresses embedding loopback addresses"},
		{"64:ff9b::a9fe:a9fe", "NAT64 addresses embedding cloud metadata addresses"},
		{"2002:7f00:1::1", "6to4 addresses embedding loopback addresses"},
		{"2002:c0a8:101::1", "6to4 addresses embedding private addresses"},
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			reason, forbidden := outbound.IsForbiddenAddr(netip.MustParseAddr(tc.addr))
			assert.Equal(t, tc.reason != "", forbidden)
			assert.Equal(t, tc.reason, reason)
		})
	}
	t.Run("invalid", func(t *testing.T) {
		_, forbidden := outbound.IsForbiddenAddr(netip.Addr{})
		assert.True(t, forbidden)
	})
}

func TestRefusesNonPublicTargets(t *testing.T) {
	t.Parallel()
	srv, hits := server(t, ok)
	p := port(t, srv)
	c := outbound.NewClient(outbound.Options{})

	for name, target := range map[string]string{
		"127.0.0.1":        srv.URL,
		"localhost":        "http://localhost:" + p,
		"LocalHost":        "http://LocalHost:" + p + "/path",
		"0.0.0.0":          "http://0.0.0.0:" + p, // reaches loopback on Linux
		"::ffff:127.0.0.1": "http://[::ffff:127.0.0.1]:" + p,
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := get(t, c, target)
			requireForbidden(t, err)
		})
	}
	assert.Zero(t, hits.Load(), "a refused request reached the server")

	t.Run("error names the address and the reason", func(t *testing.T) {
		_, _, err := get(t, c, srv.URL)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "outbound: refused 127.0.0.1:"+p+": loopback addresses are not allowed")
	})

	t.Run("IPv6 loopback", func(t *testing.T) {
		srv6, hits6 := ipv6Server(t)
		_, _, err := get(t, c, srv6.URL)
		requireForbidden(t, err)
		assert.Zero(t, hits6.Load())
	})

	// Nothing listens at these: the refusal must come before any attempt
	// to connect, so it is immediate, and no packet leaves the machine.
	for _, target := range []string{"http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "https://[fd00:ec2::254]/"} {
		t.Run(target, func(t *testing.T) {
			u, err := url.Parse(target)
			require.NoError(t, err)
			_, forbidden := outbound.IsForbiddenAddr(netip.MustParseAddr(u.Hostname()))
			require.True(t, forbidden, "the policy must refuse it, or this test would send traffic off the machine")
			start := time.Now()
			_, _, err = get(t, c, target)
			requireForbidden(t, err)
			assert.Less(t, time.Since(start), time.Second)
		})
	}
}

func TestAllowPrivateReachesLoopback(t *testing.T) {
	t.Parallel()
	srv, _ := server(t, ok)
	p := port(t, srv)
	redirect, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://localhost:"+p+"/final", http.StatusFound)
	})
	c := outbound.NewClient(outbound.Options{AllowPrivate: true})

	for name, target := range map[string]string{
		"127.0.0.1":            srv.URL,
		"localhost":            "http://localhost:" + p,
		"0.0.0.0":              "http://0.0.0.0:" + p,
		"redirect to loopback": redirect.URL,
	} {
		t.Run(name, func(t *testing.T) {
			resp, body, err := get(t, c, target)
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "ok", string(body))
		})
	}
	t.Run("IPv6 loopback", func(t *testing.T) {
		srv6, hits6 := ipv6Server(t)
		resp, _, err := get(t, c, srv6.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.EqualValues(t, 1, hits6.Load())
	})
}

func TestRedirectToForbiddenTargetIsRefusedAtDial(t *testing.T) {
	t.Parallel()
	inner, innerHits := server(t, ok)
	outer, outerHits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	})
	outerAddr := netip.MustParseAddrPort(outer.Listener.Addr().String())
	// Only the outer server's exact address passes: it stands for a public
	// target, and the inner one for the internal service it redirects to.
	c := outbound.NewClient(outbound.WithAllowAddr(outbound.Options{}, func(ap netip.AddrPort) bool {
		return ap == outerAddr
	}))

	_, _, err := get(t, c, outer.URL)
	requireForbidden(t, err)
	assert.Contains(t, err.Error(), "refused "+inner.Listener.Addr().String())
	assert.EqualValues(t, 1, outerHits.Load(), "the allowed target was reached")
	assert.Zero(t, innerHits.Load(), "the redirect target was reached")

	t.Run("the allowed target alone succeeds", func(t *testing.T) {
		direct, _ := server(t, ok)
		directAddr := netip.MustParseAddrPort(direct.Listener.Addr().String())
		c := outbound.NewClient(outbound.WithAllowAddr(outbound.Options{}, func(ap netip.AddrPort) bool {
			return ap == directAddr
		}))
		resp, _, err := get(t, c, direct.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	// The handlers stall until the client gives up, so the servers close
	// promptly.
	stallHeaders, _ := server(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	stallBody, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	c := outbound.NewClient(outbound.Options{AllowPrivate: true, Timeout: 200 * time.Millisecond})

	t.Run("waiting for headers", func(t *testing.T) {
		start := time.Now()
		_, _, err := get(t, c, stallHeaders.URL)
		require.Error(t, err)
		assert.Less(t, time.Since(start), time.Second)
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
	})
	t.Run("reading the body", func(t *testing.T) {
		start := time.Now()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, stallBody.URL, nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, truncated, err := outbound.ReadBody(resp.Body, 0)
		require.Error(t, err)
		assert.Less(t, time.Since(start), time.Second)
		assert.Equal(t, "partial", string(body), "what was read before the timeout is kept")
		assert.False(t, truncated)
	})
}

func TestResponseBodyCap(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		size := map[string]int{"/big": 3 * mib, "/exact": mib, "/small": 10}[r.URL.Path]
		_, _ = w.Write(bytes.Repeat([]byte("x"), size))
	})
	c := outbound.NewClient(outbound.Options{AllowPrivate: true, MaxBody: mib})

	read := func(t *testing.T, path string, limit int64) ([]byte, bool) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, truncated, err := outbound.ReadBody(resp.Body, limit)
		require.NoError(t, err)
		return body, truncated
	}

	t.Run("larger body is truncated to the limit", func(t *testing.T) {
		body, truncated := read(t, "/big", mib)
		assert.Len(t, body, mib)
		assert.True(t, truncated)
	})
	t.Run("body of exactly the limit is whole", func(t *testing.T) {
		body, truncated := read(t, "/exact", mib)
		assert.Len(t, body, mib)
		assert.False(t, truncated)
	})
	t.Run("small body", func(t *testing.T) {
		body, truncated := read(t, "/small", 0)
		assert.Equal(t, strings.Repeat("x", 10), string(body))
		assert.False(t, truncated)
	})
	t.Run("ReadBody limit above the client's cap", func(t *testing.T) {
		body, truncated := read(t, "/big", 2*mib)
		assert.Len(t, body, mib)
		assert.True(t, truncated)
	})
	t.Run("ReadBody limit below the client's cap", func(t *testing.T) {
		body, truncated := read(t, "/exact", 1000)
		assert.Len(t, body, 1000)
		assert.True(t, truncated)
	})
	t.Run("reading everything fails past the cap", func(t *testing.T) {
		_, body, err := get(t, c, srv.URL+"/big")
		require.ErrorIs(t, err, outbound.ErrBodyTooLarge)
		assert.Len(t, body, mib)
		_, body, err = get(t, c, srv.URL+"/exact")
		require.NoError(t, err)
		assert.Len(t, body, mib)
	})
	t.Run("default cap is 1 MiB", func(t *testing.T) {
		c := outbound.NewClient(outbound.Options{AllowPrivate: true})
		_, body, err := get(t, c, srv.URL+"/big")
		require.ErrorIs(t, err, outbound.ErrBodyTooLarge)
		assert.Len(t, body, int(outbound.DefaultMaxBody))
	})
	t.Run("negative MaxBody lifts the cap", func(t *testing.T) {
		c := outbound.NewClient(outbound.Options{AllowPrivate: true, MaxBody: -1})
		_, body, err := get(t, c, srv.URL+"/big")
		require.NoError(t, err)
		assert.Len(t, body, 3*mib)
	})
}

func TestReadBody(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		size      int
		limit     int64
		want      int
		truncated bool
	}{
		{"empty", 0, 10, 0, false},
		{"shorter", 5, 10, 5, false},
		{"exact", 10, 10, 10, false},
		{"one over", 11, 10, 10, true},
		{"much longer", 1000, 10, 10, true},
		{"default limit", int(outbound.DefaultMaxBody) + 1, 0, int(outbound.DefaultMaxBody), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body, truncated, err := outbound.ReadBody(bytes.NewReader(make([]byte, tc.size)), tc.limit)
			require.NoError(t, err)
			assert.Len(t, body, tc.want)
			assert.Equal(t, tc.truncated, truncated)
		})
	}
	t.Run("error", func(t *testing.T) {
		boom := errors.New("boom")
		body, _, err := outbound.ReadBody(io.MultiReader(strings.NewReader("abc"), iotestErr{boom}), 10)
		require.ErrorIs(t, err, boom)
		assert.Equal(t, "abc", string(body))
	})
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

func TestRedirectLimit(t *testing.T) {
	t.Parallel()
	srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})

	c := outbound.NewClient(outbound.Options{AllowPrivate: true, MaxRedirects: 3})
	_, _, err := get(t, c, srv.URL+"/")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stopped after 3 redirects")
	assert.EqualValues(t, 4, hits.Load(), "the first request and 3 redirects")

	t.Run("default is 10", func(t *testing.T) {
		srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
		})
		_, _, err := get(t, outbound.NewClient(outbound.Options{AllowPrivate: true}), srv.URL+"/")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "stopped after 10 redirects")
		assert.EqualValues(t, 11, hits.Load())
	})

	t.Run("negative follows none", func(t *testing.T) {
		srv, hits := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		})
		resp, _, err := get(t, outbound.NewClient(outbound.Options{AllowPrivate: true, MaxRedirects: -1}), srv.URL)
		require.NoError(t, err)
		assert.Equal(t, http.StatusFound, resp.StatusCode)
		assert.Equal(t, "/elsewhere", resp.Header.Get("Location"))
		assert.EqualValues(t, 1, hits.Load())
	})
}

func TestRedirectToOtherSchemesRefused(t *testing.T) {
	t.Parallel()
	for _, loc := range []string{"ftp://example.com/file", "file:///etc/passwd", "gopher://example.com/"} {
		t.Run(loc, func(t *testing.T) {
			srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, loc, http.StatusFound)
			})
			_, _, err := get(t, outbound.NewClient(outbound.Options{AllowPrivate: true}), srv.URL)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "only http and https are allowed")
		})
	}
}

func TestCrossSiteRedirectDropsCredentials(t *testing.T) {
	t.Parallel()
	// Every well-known credential header, and headers that carry none; a
	// 307 keeps the method and body, so Content-Type travels on too.
	credentials := http.Header{}
	for _, name := range credential.Headers {
		credentials.Set(name, "secret-"+name)
	}
	innocuous := http.Header{
		"X-Trace":      {"kept"},
		"Accept":       {"application/json"},
		"Content-Type": {"text/plain"},
		"X-Request-Id": {"req-1"},
	}
	sent := credentials.Clone()
	for name, v := range innocuous {
		sent[name] = v
	}
	var got atomic.Pointer[http.Header]
	final, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Clone()
		got.Store(&h)
	})
	c := outbound.NewClient(outbound.Options{AllowPrivate: true})

	t.Run("to another host", func(t *testing.T) {
		// 127.0.0.1 and localhost are different sites to the client.
		start, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://localhost:"+port(t, final)+"/landing?q=1", http.StatusTemporaryRedirect)
		})
		_, _, err := do(t, c, http.MethodPost, start.URL+"/start?api_key=secret", strings.NewReader("hello"), sent)
		require.NoError(t, err)
		h := *got.Load()
		for name := range credentials {
			assert.Empty(t, h.Values(name), name)
		}
		assert.Empty(t, h.Get("Referer"))
		for name, v := range innocuous {
			assert.Equal(t, v, h.Values(name), name)
		}
	})

	t.Run("on the same host", func(t *testing.T) {
		start, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, final.URL+"/landing", http.StatusTemporaryRedirect)
		})
		_, _, err := do(t, c, http.MethodPost, start.URL+"/start?api_key=secret", strings.NewReader("hello"), sent)
		require.NoError(t, err)
		h := *got.Load()
		for name, v := range sent {
			assert.Equal(t, v, h.Values(name), name)
		}
		assert.Empty(t, h.Get("Referer"), "the previous URL and its query string are not passed on")
	})
}

func TestLeavesSite(t *testing.T) {
	t.Parallel()
	cases := []struct {
		from, to string
		leaves   bool
	}{
		{"https://api.example.com/a", "https://api.example.com/b", false},
		{"https://api.example.com/a", "https://API.example.com:8443/b", false},
		{"https://example.com/a", "https://eu.example.com/b", false},
		{"https://example.com/a", "https://example.org/b", true},
		{"https://example.com/a", "https://badexample.com/b", true},
		{"https://eu.example.com/a", "https://example.com/b", true},
		{"https://example.com/a", "http://example.com/b", true},
		{"http://example.com/a", "https://example.com/b", false},
		{"http://[::1]/a", "http://[::2]/b", true},
	}
	for _, tc := range cases {
		from, err := url.Parse(tc.from)
		require.NoError(t, err)
		to, err := url.Parse(tc.to)
		require.NoError(t, err)
		assert.Equal(t, tc.leaves, outbound.LeavesSite(from, to), "%s -> %s", tc.from, tc.to)
	}
}

func TestLocalOrigins(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, path, query, host, remote, header, body, forwarded string
	}
	var last atomic.Pointer[seen]
	var canceled atomic.Bool
	outside, outsideHits := server(t, ok)
	local := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/out":
			http.Redirect(w, r, outside.URL, http.StatusFound)
			return
		case "/stall":
			select {
			case <-r.Context().Done():
				canceled.Store(true)
			case <-time.After(5 * time.Second):
			}
			return
		}
		b, _ := io.ReadAll(r.Body)
		last.Store(&seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Host, r.RemoteAddr, r.Header.Get("X-Test"), string(b),
			r.Header.Get("X-Forwarded-For") + r.Header.Get("X-Real-Ip") + r.Header.Get("Forwarded")})
		w.Header().Set("X-Reply", "yes")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "hello from "+r.URL.Path)
	})
	// The local origin does not resolve: reaching the handler proves the
	// request never went to the network.
	c := outbound.NewClient(outbound.Options{
		Timeout:      500 * time.Millisecond,
		Local:        local,
		LocalOrigins: []string{"http://mockmcp.local:1", "HTTPS://MockMCP.Example/base/path", "http://localhost:1"},
	})

	resp, body, err := do(t, c, http.MethodPost, "http://mockmcp.local:1/a/b?x=1&y=two", strings.NewReader("payload"),
		http.Header{"X-Test": {"v"}, "X-Forwarded-For": {"203.0.113.9"}, "X-Real-Ip": {"203.0.113.9"}, "Forwarded": {"for=203.0.113.9"}})
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "yes", resp.Header.Get("X-Reply"))
	assert.Equal(t, "hello from /a/b", string(body))
	assert.Equal(t, seen{"POST", "/a/b", "x=1&y=two", "mockmcp.local:1", "127.0.0.1:0", "v", "payload", ""}, *last.Load(),
		"the forwarding headers are dropped: 127.0.0.1 relays nobody")

	t.Run("origin matching ignores case and default ports", func(t *testing.T) {
		for _, target := range []string{"https://mockmcp.example/x", "https://MOCKMCP.example:443/y"} {
			resp, _, err := get(t, c, target)
			require.NoError(t, err, target)
			assert.Equal(t, http.StatusCreated, resp.StatusCode)
		}
	})
	t.Run("HEAD", func(t *testing.T) {
		resp, body, err := do(t, c, http.MethodHead, "http://mockmcp.local:1/h", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, http.StatusCreated, resp.StatusCode)
		assert.Empty(t, body)
	})
	t.Run("other origins still go through the guard", func(t *testing.T) {
		_, _, err := get(t, c, outside.URL)
		requireForbidden(t, err)
		// Another port is another origin: the guard, not the handler, answers.
		_, _, err = get(t, c, "http://localhost:"+port(t, outside)+"/")
		requireForbidden(t, err)
	})
	t.Run("redirect from local to outside goes through the guard", func(t *testing.T) {
		_, _, err := get(t, c, "http://mockmcp.local:1/out")
		requireForbidden(t, err)
	})
	assert.Zero(t, outsideHits.Load())

	t.Run("the request context reaches the handler", func(t *testing.T) {
		start := time.Now()
		_, _, err := get(t, c, "http://mockmcp.local:1/stall")
		require.Error(t, err)
		assert.Less(t, time.Since(start), 2*time.Second)
		assert.Eventually(t, canceled.Load, 2*time.Second, 10*time.Millisecond)
	})
	t.Run("caller cancellation", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://mockmcp.local:1/stall", nil)
		require.NoError(t, err)
		_, err = c.Do(req)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}

func TestIgnoresProxyEnvironment(t *testing.T) {
	// Not parallel: it sets the environment.
	proxy, proxyHits := server(t, ok)
	target, targetHits := server(t, ok)
	for _, name := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"} {
		t.Setenv(name, proxy.URL)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")
	// net/http never proxies requests to localhost or a loopback IP, so
	// the target is 0.0.0.0, which it does proxy and which Linux connects
	// to over loopback.
	u := "http://0.0.0.0:" + port(t, target) + "/"

	c := outbound.NewClient(outbound.Options{AllowPrivate: true})
	assert.Nil(t, outbound.ProxyOf(c))
	resp, _, err := get(t, c, u)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.EqualValues(t, 1, targetHits.Load(), "the request went direct")
	assert.Zero(t, proxyHits.Load())

	// Control: a client that honours the environment does not go direct.
	// (net/http reads the environment once per process, so with -count>1
	// it may try an earlier run's proxy, which is closed; either way the
	// target is not reached.)
	envClient := &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment}}
	_, _, _ = get(t, envClient, u)
	assert.EqualValues(t, 1, targetHits.Load(), "control: the environment's proxy was not used")
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		url  string
		want string // "" when valid
	}{
		{"http://example.com", ""},
		{"https://example.com:8443/path?q=1#frag", ""},
		{"HTTPS://Example.com/", ""},
		{"http://10.0.0.1/", ""}, // the address policy applies at connection time
		{"http://[2001:db8::1]:80/", ""},
		{"", "URL must be absolute"},
		{"/relative/path", "URL must be absolute"},
		{"example.com/path", "URL must be absolute"},
		{"ftp://example.com/", `URL scheme must be http or https, not "ftp"`},
		{"file:///etc/passwd", `URL scheme must be http or https, not "file"`},
		{"javascript:alert(1)", `URL scheme must be http or https, not "javascript"`},
		{"http:example.com", "URL must have the form http://host/path"},
		{"https://user:hunter2@example.com/", "URL must not contain user information"},
		{"https://user@example.com/", "URL must not contain user information"},
		{"http:///path", "URL has no host"},
		{"http://:8080/", "URL has no host"},
		{"http://example.com:0/", "URL port must be between 1 and 65535"},
		{"http://example.com:99999/", "URL port must be between 1 and 65535"},
		{"http://exa mple.com/", "URL is malformed"},
		{"http://example.com:port/", "URL is malformed"},
		{"http://example.com/\x00", "URL is malformed"},
	}
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			err := outbound.CheckURL(tc.url)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "hunter2", "the message must not repeat secrets from the URL")
		})
	}
}

// TestGet: a 2xx body comes back whole; another status and a body over the
// limit are errors that say which.
func TestGet(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte(r.Header.Get("Accept")))
		case "/big":
			_, _ = w.Write(make([]byte, 2048))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	client := outbound.NewClient(outbound.Options{AllowPrivate: true})
	ctx := context.Background()
	body, err := outbound.Get(ctx, client, srv.URL+"/ok", "application/yaml", 1024)
	require.NoError(t, err)
	require.Equal(t, "application/yaml", string(body))
	_, err = outbound.Get(ctx, client, srv.URL+"/missing", "*/*", 1024)
	require.ErrorIs(t, err, outbound.ErrStatus)
	require.ErrorContains(t, err, "404 Not Found")
	_, err = outbound.Get(ctx, client, srv.URL+"/big", "*/*", 1024)
	require.ErrorIs(t, err, outbound.ErrBodyTooLarge)
}

// TestUnresolvableHostNamesTheHostOnly: a name that does not resolve is
// reported with the host, never with the resolver's address.
func TestUnresolvableHostNamesTheHostOnly(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{false, true} {
		_, _, err := get(t, outbound.NewClient(outbound.Options{AllowPrivate: allow}), "http://no-such-host.invalid/x")
		require.Error(t, err)
		var re *outbound.ResolveError
		require.ErrorAs(t, err, &re)
		require.Equal(t, "no-such-host.invalid", re.Host)
		require.Contains(t, err.Error(), "the host name could not be resolved: no-such-host.invalid")
		require.NotContains(t, err.Error(), ":53")
		require.NotContains(t, err.Error(), "lookup")
		var dnsErr *net.DNSError
		require.ErrorAs(t, err, &dnsErr, "the DNS error stays reachable")
	}
}
