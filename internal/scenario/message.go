package scenario

import (
	"bytes"
	"encoding/json"
)

// NoMatchMessage returns the JSON text
// {"message":"No mock scenario matched the arguments for tool '<tool>'"} with
// the tool name JSON-escaped.
func NoMatchMessage(tool string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// HTML escaping would only make the message harder to read; the text is
	// served as JSON, never embedded in HTML.
	enc.SetEscapeHTML(false)
	// Encoding a struct of one string field cannot fail.
	_ = enc.Encode(struct {
		Message string `json:"message"`
	}{"No mock scenario matched the arguments for tool '" + tool + "'"})
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
