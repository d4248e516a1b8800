package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// Members calls fn with the raw key (without its quotes, escapes as sent)
// and the raw value of each member of the JSON object obj, in order, until
// fn returns false. obj must be valid JSON (a parsed request's params are);
// anything but an object has no members. Nothing is copied or decoded, so
// reading a few members of a large object costs one pass and no
// allocation.
func Members(obj []byte, fn func(key, value []byte) bool) {
	s := skipSpace(obj)
	if len(s) == 0 || s[0] != '{' {
		return
	}
	s = s[1:]
	for {
		s = skipSpace(s)
		if len(s) == 0 || s[0] != '"' {
			return // '}' or malformed
		}
		end := stringEnd(s, 0)
		key := s[1:end]
		s = skipSpace(s[end+1:])
		if len(s) == 0 || s[0] != ':' {
			return
		}
		s = skipSpace(s[1:])
		n := valueEnd(s)
		if n == 0 || !fn(key, s[:n]) {
			return
		}
		s = skipSpace(s[n:])
		if len(s) == 0 || s[0] != ',' {
			return
		}
		s = s[1:]
	}
}

// StringValue reads a raw JSON value as a string, as encoding/json
// decodes it: ok is false when it is not one. A string of valid UTF-8
// without escapes is returned without copying.
func StringValue(raw []byte) (s []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return nil, false
	}
	if plainString(raw) {
		return raw[1 : len(raw)-1], true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}

// KeyIs reports whether the raw key of a member (as Members gives it) is
// name, escapes decoded.
func KeyIs(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name
	}
	var k string
	if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) != nil {
		return false
	}
	return k == name
}

// Fields reads the members of the JSON object obj named in names, as a
// JSON-RPC or MCP peer reads them: a name matches only exactly (its
// escapes decoded, in its case), and a name met twice is a duplicate.
// vals[i] receives the raw value of names[i], nil when absent; dup is the
// first name met twice ("" when none is), at which the reading stops.
// This is the one reading of a request's members: the envelope, params
// and params._meta are read with it wherever they are read, so the era,
// the header checks and the dispatch agree on what a message says. A name
// without escapes costs no allocation.
func Fields(obj []byte, names []string, vals [][]byte) (dup string) {
	clear(vals)
	Members(obj, func(k, v []byte) bool {
		i := nameIndex(k, names)
		switch {
		case i < 0:
			return true
		case vals[i] != nil:
			dup = names[i]
			return false
		}
		vals[i] = v
		return true
	})
	return dup
}

// nameIndex is the index in names of the raw key k, escapes decoded; -1
// when k is none of them. The key is decoded at most once, however many
// names there are.
func nameIndex(k []byte, names []string) int {
	if bytes.IndexByte(k, '\\') >= 0 {
		var d string
		if json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &d) != nil {
			return -1
		}
		k = []byte(d)
	}
	for i, name := range names {
		if string(k) == name {
			return i
		}
	}
	return -1
}
