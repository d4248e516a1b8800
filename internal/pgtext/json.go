package pgtext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// JSONProblem is a string of a JSON document that PostgreSQL would refuse,
// with where it is.
type JSONProblem struct {
	// Path holds the object keys and array indexes (in decimal) from the
	// document's root to the string; for an object key, to the object
	// holding it.
	Path    []string
	Message string
}

// JSONProblems lists the strings of the JSON document raw, keys included,
// that PostgreSQL would refuse as text or jsonb: a \u0000 escape, an
// unpaired surrogate escape, bytes that are not UTF-8. A document that is
// not valid JSON is listed as far as it can be read: reporting it is the
// decoder's job.
func JSONProblems(raw []byte) []JSONProblem {
	type frame struct {
		array bool
		index int    // the current element of an array
		key   string // the current member of an object
		onKey bool   // an object expects a key next
	}
	var (
		out   []JSONProblem
		stack []*frame
	)
	path := func(n int) []string {
		p := make([]string, 0, n)
		for _, f := range stack[:n] {
			if f.array {
				p = append(p, strconv.Itoa(f.index))
			} else {
				p = append(p, f.key)
			}
		}
		return p
	}
	// valueDone moves the innermost container past the value just read.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := stack[len(stack)-1]; top.array {
			top.index++
		} else {
			top.onKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers are not this walk's business, nor their range
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &frame{array: t == '[', onKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		case string:
			text := raw[before:dec.InputOffset()] // the string as written, after any separator
			msg := JSONBProblem(text)
			if msg == "" && !utf8.Valid(text) {
				msg = UTF8Message
			}
			if top := len(stack) - 1; top >= 0 && !stack[top].array && stack[top].onKey {
				stack[top].key, stack[top].onKey = t, false
				if msg != "" {
					out = append(out, JSONProblem{Path: path(top), Message: msg})
				}
				continue
			}
			if msg != "" {
				out = append(out, JSONProblem{Path: path(len(stack)), Message: msg})
			}
		}
		valueDone()
	}
}
