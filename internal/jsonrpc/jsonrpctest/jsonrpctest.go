// Package jsonrpctest holds what the tests of JSON-RPC readers share: an
// oracle for the protocol's rules written with encoding/json, independent
// of the code under test.
package jsonrpctest

import (
	"bytes"
	"encoding/json"
)

// IsID reports whether raw is one JSON string or number, the values a
// request id may take (null aside).
func IsID(raw []byte) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch v.(type) {
	case string, json.Number:
		return true
	}
	return false
}
