package mcptransport

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// HostList is the ALLOWED_HOSTS setting: the hosts an MCP endpoint answers
// for. A page on another site that rebinds its own name to this service's
// address reaches the endpoint with its own Host and Origin, and is refused.
// An entry without a port allows every port of that host.
type HostList struct {
	anyPort map[string]bool // host names (and IPs) in lower case
	exact   map[string]bool // host:port in lower case
}

// ParseHostList reads a list such as "localhost,127.0.0.1,mock.example.com:8443".
// It returns nil for an empty list: every host is allowed.
func ParseHostList(entries []string) (*HostList, error) {
	l := &HostList{anyPort: map[string]bool{}, exact: map[string]bool{}}
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		if e == "" {
			continue
		}
		if strings.ContainsAny(e, "/@ ") {
			return nil, fmt.Errorf("%q is not a host or host:port", e)
		}
		if host, port, err := net.SplitHostPort(e); err == nil {
			if host == "" || port == "" {
				return nil, fmt.Errorf("%q is not a host or host:port", e)
			}
			l.exact[net.JoinHostPort(host, port)] = true
			continue
		}
		l.anyPort[strings.Trim(e, "[]")] = true
	}
	if len(l.anyPort)+len(l.exact) == 0 {
		return nil, nil
	}
	return l, nil
}

// Allows reports whether r's Host, and its Origin when it has one, are on
// the list. A nil list allows everything.
func (l *HostList) Allows(r *http.Request) bool {
	if l == nil {
		return true
	}
	if !l.allowsHost(r.Host) {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" and the like: no site we can name
	}
	return l.allowsHost(u.Host)
}

func (l *HostList) allowsHost(hostport string) bool {
	hostport = strings.ToLower(hostport)
	if l.exact[hostport] {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return l.anyPort[strings.Trim(host, "[]")]
}
