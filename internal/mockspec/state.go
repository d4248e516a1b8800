package mockspec

import (
	"bytes"
	"encoding/json"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/pgtext"
)

// Bounds of a design's state: its initial state, the live state a client
// sets through the API, and each scenario's set_state.
const (
	MaxStateKeys  = 256
	MaxStateBytes = 64 << 10
)

// CheckState checks a state object (a design's initial state, or the live
// state given whole): a JSON object of at most MaxStateKeys keys and
// MaxStateBytes bytes that PostgreSQL keeps as jsonb. Problems name field.
func CheckState(field string, raw json.RawMessage) []failure.FieldError {
	return checkStateObject(field, raw)
}

// CheckSetState checks a scenario's set_state: absent, or an object
// within the bounds of a state, whose null values delete their keys.
func CheckSetState(field string, raw json.RawMessage) []failure.FieldError {
	if emptyObject(raw) {
		return nil
	}
	errs := checkStateObject(field, raw)
	if len(errs) > 0 {
		return errs
	}
	// Its answer templates ({{args...}}, {{state...}}) render when the
	// scenario answers: one that cannot is refused now.
	var f failure.Fields
	_, err := answertmpl.Options{Legacy: true}.CompileJSON(raw)
	for _, e := range answertmpl.Problems(err) {
		f.Add(field+suffix(e.Path), "offset %d: %s", e.Offset, e.Message)
	}
	return f
}

func checkStateObject(field string, raw json.RawMessage) []failure.FieldError {
	var f failure.Fields
	m, ok := object(raw)
	switch {
	case !ok:
		f.Add(field, "must be a JSON object (keys to any JSON values)")
	case len(m) > MaxStateKeys:
		f.Add(field, "at most %d keys, got %d", MaxStateKeys, len(m))
	case len(raw) > MaxStateBytes:
		f.Add(field, "at most %d KiB of JSON, got %d bytes", MaxStateBytes>>10, len(raw))
	default:
		if msg := pgtext.JSONBProblem(raw); msg != "" {
			f.Add(field, "%s", msg)
		}
	}
	return f
}

// StateChange is a set_state split for the one statement that applies
// it: the keys set (an object) and the keys deleted (sorted).
type StateChange struct {
	Sets    json.RawMessage
	Deletes []string
}

// SplitSetState splits a checked set_state into its sets and deletes; the
// zero StateChange when it changes nothing.
func SplitSetState(raw json.RawMessage) (StateChange, error) {
	if emptyObject(raw) {
		return StateChange{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return StateChange{}, err
	}
	sets := make(map[string]json.RawMessage, len(m))
	var deletes []string
	for k, v := range m {
		if string(bytes.TrimSpace(v)) == "null" {
			deletes = append(deletes, k)
			continue
		}
		sets[k] = v
	}
	slices.Sort(deletes)
	b, err := json.Marshal(sets)
	if err != nil {
		return StateChange{}, err
	}
	return StateChange{Sets: b, Deletes: deletes}, nil
}

// emptyObject reports whether raw is absent, null or {}.
func emptyObject(raw json.RawMessage) bool {
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" {
		return true
	}
	m, ok := object(raw)
	return ok && len(m) == 0
}
