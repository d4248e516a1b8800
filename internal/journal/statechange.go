package journal

import (
	"encoding/json"
	"maps"
	"slices"
)

// MaxStateChange bounds the state change a record keeps, as JSON. A
// change whose values do not fit is kept as the names of the keys it set
// (Truncated), as many as fit.
const MaxStateChange = 4 << 10

// StateChange is what a call's scenario did to the design's live state
// (its set_state): the keys it set with their values, the keys it
// deleted, and the version of the state it left.
type StateChange struct {
	Set     json.RawMessage // an object of the keys set; {} when none
	Deleted []string
	Version int64
}

// storedChange is a state change as a record keeps it.
type storedChange struct {
	Set       json.RawMessage `json:"set,omitempty"`
	SetKeys   []string        `json:"set_keys,omitempty"`
	Deleted   []string        `json:"deleted,omitempty"`
	Version   int64           `json:"version"`
	Truncated bool            `json:"truncated,omitempty"`
	LeftOut   int             `json:"left_out,omitempty"`
}

// boundStateChange is c as a record keeps it, within MaxStateChange bytes;
// nil when the call changed no state.
func boundStateChange(c *StateChange) json.RawMessage {
	if c == nil {
		return nil
	}
	out := storedChange{Set: c.Set, Deleted: c.Deleted, Version: c.Version}
	if b, err := json.Marshal(out); err == nil && len(b) <= MaxStateChange {
		return b
	}
	var set map[string]json.RawMessage
	_ = json.Unmarshal(c.Set, &set) // an object, or nothing to name
	keys := append(slices.Sorted(maps.Keys(set)), c.Deleted...)
	nSet := len(set)
	out = storedChange{Version: c.Version, Truncated: true}
	size := 64
	for i, k := range keys {
		size += len(k) + 4
		if size > MaxStateChange {
			out.LeftOut = len(keys) - i
			break
		}
		if i < nSet {
			out.SetKeys = append(out.SetKeys, k)
		} else {
			out.Deleted = append(out.Deleted, k)
		}
	}
	b, _ := json.Marshal(out) // strings and numbers always encode
	return b
}
