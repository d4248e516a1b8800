package promote

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mockmcp/mockmcp/internal/credential"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// redacted replaces a value under a credential-like name.
const redacted = "****"

// redact replaces, at any depth of v, the values under credential-like
// names (credential.Is) by "****", noting each one's path.
func redact(v any, at string, notes *[]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if credential.Is(k) {
				out[k] = redacted
				*notes = append(*notes, at+"."+k)
				continue
			}
			out[k] = redact(e, at+"."+k, notes)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redact(e, fmt.Sprintf("%s[%d]", at, i), notes)
		}
		return out
	}
	return v
}

// redactJSON is redact on JSON text; text that does not decode is kept.
func redactJSON(raw json.RawMessage, at string, notes *[]string) json.RawMessage {
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return raw
	}
	n := len(*notes)
	v = redact(v, at, notes)
	return remarshal(raw, v, len(*notes) > n)
}

// redactStructured redacts the structuredContent of a tool result.
func redactStructured(result json.RawMessage, notes *[]string) json.RawMessage {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil || len(m["structuredContent"]) == 0 {
		return result
	}
	n := len(*notes)
	m["structuredContent"] = redactJSON(m["structuredContent"], "structuredContent", notes)
	return remarshal(result, m, len(*notes) > n)
}

// remarshal is v as JSON when redacting changed it, and the original text
// otherwise (or when v does not encode), so that text nothing was redacted
// from is kept byte for byte.
func remarshal(original json.RawMessage, v any, changed bool) json.RawMessage {
	if !changed {
		return original
	}
	out, err := json.Marshal(v)
	if err != nil {
		return original
	}
	return out
}

// withNotes is the reason followed by the redacted paths.
func withNotes(reason string, notes []string) string {
	if len(notes) == 0 {
		return reason
	}
	sort.Strings(notes)
	r := "redacted " + strings.Join(notes, ", ")
	if reason != "" {
		r = reason + "; " + r
	}
	return r
}
