package errtext

import (
	"regexp"
	"strings"
)

// goDecode matches encoding/json's type error as its text reads once it
// has been flattened into a message ("json: cannot unmarshal number into
// Go struct field registration.redirect_uris of type []string").
var goDecode = regexp.MustCompile(`(?:json: )?cannot unmarshal (\w+)(?: \S+)? into Go (?:struct field (\S+)|value) of type (\S+(?: \{\})?)`)

// foreign matches the words only a Go library's error holds: the net
// package's around an address it dialed or looked up, a Go type or struct,
// the TLS stack's. An address alone is not among them: a message may
// rightly quote one the user gave (an upstream URL, a trusted proxy).
var foreign = regexp.MustCompile(`(?:dial|read|write) (?:tcp|udp|unix)|lookup \S+ on |Go (?:struct|value)|cannot unmarshal|` +
	`interface \{\}|\bx509:|\btls:`)

// Text is a message fit to show users, from one that may hold a foreign
// error's words: the boundaries (problem documents, JSON-RPC errors) pass
// every message through it, so that an error a handler quoted by mistake
// is caught in one place. A decoder's type error is rewritten in JSON's
// terms, naming the field; a message that still holds a Go library's words
// becomes a generic phrase. Any other message is returned as it is.
func Text(msg string) string {
	if !foreign.MatchString(msg) {
		return msg
	}
	msg = goDecode.ReplaceAllStringFunc(msg, func(s string) string {
		m := goDecode.FindStringSubmatch(s)
		out := "must be " + jsonGoKind(strings.TrimPrefix(m[3], "*")) + ", not " + jsonValue(m[1])
		if m[2] != "" {
			// "registration.redirect_uris": the Go struct's name, then
			// the field's path in the document.
			_, field, _ := strings.Cut(m[2], ".")
			out = field + " " + out
		}
		return out
	})
	msg = yamlType.ReplaceAllStringFunc(msg, func(s string) string {
		m := yamlType.FindStringSubmatch(s)
		return yamlKind(m[1]) + " is not allowed here, " + goKind(m[2]) + " is expected"
	})
	if !foreign.MatchString(msg) {
		return msg
	}
	return "the value could not be read"
}

// jsonGoKind is what a Go type written in an error ("[]string",
// "map[string]any", "int64") is in JSON.
func jsonGoKind(t string) string {
	switch k := goKind(t); k {
	case "a list":
		return "an array"
	case "a mapping":
		return "an object"
	default:
		return k
	}
}
