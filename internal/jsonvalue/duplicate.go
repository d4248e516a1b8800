package jsonvalue

import (
	"bytes"
	"encoding/json"
)

// FirstDuplicate is the field path (as Dotted writes it: "q.x",
// "items[2].id") of the first member, at any depth of the JSON value data,
// whose object already has a member of that name (escapes decoded); ""
// when no object repeats a name, or data is not valid JSON. JSON leaves a
// repeated name's meaning undefined (RFC 8259 §4): encoding/json keeps the
// last value, other readers the first, so a reader that means to agree
// with every peer refuses it.
func FirstDuplicate(data []byte) string {
	if bytes.IndexByte(data, ':') < 0 {
		return "" // no object has a member
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	path, _ := firstDuplicate(dec, nil, 0)
	return path
}

// maxDuplicateDepth bounds the nesting FirstDuplicate reads.
const maxDuplicateDepth = 10000

// firstDuplicate reads one value from dec, at path at; ok is false when
// the reading failed.
func firstDuplicate(dec *json.Decoder, at []Segment, depth int) (path string, ok bool) {
	tok, err := dec.Token()
	if err != nil || depth > maxDuplicateDepth {
		return "", false
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]struct{}{}
		for dec.More() {
			kt, err := dec.Token()
			k, isKey := kt.(string)
			if err != nil || !isKey {
				return "", false
			}
			member := append(at[:len(at):len(at)], KeySegment(k))
			if _, dup := seen[k]; dup {
				return Dotted(member), true
			}
			seen[k] = struct{}{}
			if path, ok := firstDuplicate(dec, member, depth+1); path != "" || !ok {
				return path, ok
			}
		}
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			element := append(at[:len(at):len(at)], Segment{Index: i, ArrayOnly: true})
			if path, ok := firstDuplicate(dec, element, depth+1); path != "" || !ok {
				return path, ok
			}
		}
	default:
		return "", true
	}
	_, err = dec.Token() // the closing delimiter
	return "", err == nil
}
