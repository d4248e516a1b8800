package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// CheckJSON checks that b is one JSON value whose objects give each key
// once. Its errors are *Error: Syntax for text that is not JSON (naming
// the line and column, never the text), else a key given twice, naming
// its path and line.
func CheckJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	ck := jsonChecker{dec: dec, src: b}
	if err := ck.value(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		line, _ := position(b, dec.InputOffset())
		return &Error{Line: line, Syntax: true, Reason: "unexpected data after the JSON value"}
	}
	return nil
}

type jsonChecker struct {
	dec  *json.Decoder
	src  []byte
	path []step // written out only for an error, as the converter's
}

func (ck *jsonChecker) fail(reason string) *Error {
	line, _ := position(ck.src, ck.dec.InputOffset())
	return &Error{Line: line, Path: pathString(ck.path), Reason: reason}
}

func (ck *jsonChecker) syntax(err error) *Error {
	// The token reader's offsets are relative to the value it was in;
	// a whole decode's are the document's.
	var v any
	if derr := json.NewDecoder(bytes.NewReader(ck.src)).Decode(&v); derr != nil {
		err = derr
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Syntax: true, Reason: "the JSON text ends early"}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := position(ck.src, se.Offset)
		return &Error{Line: line, Column: col, Syntax: true, Reason: unquoted(se.Error())}
	}
	line, _ := position(ck.src, ck.dec.InputOffset())
	return &Error{Line: line, Syntax: true, Reason: "not valid JSON"}
}

// value reads one value, at ck.path.
func (ck *jsonChecker) value() error {
	tok, err := ck.dec.Token()
	if err != nil {
		return ck.syntax(err)
	}
	if len(ck.path) >= maxDepth && (tok == json.Delim('{') || tok == json.Delim('[')) {
		return ck.fail(fmt.Sprintf("values nest more than %d levels deep", maxDepth))
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for ck.dec.More() {
			tok, err := ck.dec.Token()
			if err != nil {
				return ck.syntax(err)
			}
			k, _ := tok.(string) // an object's tokens start with its keys
			ck.path = append(ck.path, step{key: &k})
			if seen[k] {
				return ck.fail("the key appears twice in its object")
			}
			seen[k] = true
			if err := ck.value(); err != nil {
				return err
			}
			ck.path = ck.path[:len(ck.path)-1]
		}
		if _, err := ck.dec.Token(); err != nil {
			return ck.syntax(err)
		}
	case json.Delim('['):
		for i := 0; ck.dec.More(); i++ {
			ck.path = append(ck.path, step{index: i})
			if err := ck.value(); err != nil {
				return err
			}
			ck.path = ck.path[:len(ck.path)-1]
		}
		if _, err := ck.dec.Token(); err != nil {
			return ck.syntax(err)
		}
	}
	return nil
}

// unquoted drops the character encoding/json quotes from the text
// ("invalid character 'x' looking for beginning of value").
func unquoted(msg string) string {
	const prefix = "invalid character '"
	if !strings.HasPrefix(msg, prefix) || len(msg) < len(prefix)+2 {
		return msg
	}
	rest := msg[len(prefix)+1:]
	if i := strings.Index(rest, "' "); i >= 0 {
		return "invalid character " + rest[i+2:]
	}
	return "invalid character"
}

// position is the line and column (1-based, in characters) of the byte
// before offset in b: encoding/json's offsets point past the character at
// fault.
func position(b []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(b)))
	before := b[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, max(col, 1)
}
