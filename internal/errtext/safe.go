package errtext

import "regexp"

// unsafe matches what text shown to users must not hold: an IPv4 address,
// a bracketed IPv6 address with its port, the net package's words around
// the addresses it dialed or looked up, a Go type or struct, the TLS
// stack's words (which may quote certificates' names).
var unsafe = regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|\]:\d+|(?:dial|read|write) (?:tcp|udp|unix)|` +
	`lookup \S+ on |Go (?:struct|value)|cannot unmarshal|interface \{\}|\bmap\[|\bx509:|\btls:`)

// Safe reports whether a foreign error's text can be shown as it is: it
// holds none of what Outbound and Decode leave out. Callers that keep the
// words of a library they trust to speak of the protocol only (the MCP
// SDK's "unsupported protocol version") use it as a last check, and fall
// back to a phrase of their own when it fails.
func Safe(text string) bool {
	return !unsafe.MatchString(text)
}
