package scenario

import "github.com/mockmcp/mockmcp/internal/jsonenc"

// NoMatchMessage returns the JSON text
// {"message":"No mock scenario matched the arguments for tool '<tool>'"} with
// the tool name JSON-escaped.
func NoMatchMessage(tool string) string {
	// Encoding a struct of one string field cannot fail.
	b, _ := jsonenc.Marshal(struct {
		Message string `json:"message"`
	}{"No mock scenario matched the arguments for tool '" + tool + "'"})
	return string(b)
}
