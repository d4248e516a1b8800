package mcptransport

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRequestMetaHasExtension(t *testing.T) {
	const tasks = "io.modelcontextprotocol/tasks"
	for caps, want := range map[string]bool{
		`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`:                             true,
		`{"elicitation":{},"extensions":{"other":{},"io.modelcontextprotocol/tasks":{}}}`: true,
		`{"extensions":{"io.modelcontextprotocol/tasks":null}}`:                           false,
		`{"extensions":{"other":{}}}`:                                                     false,
		`{"io.modelcontextprotocol/tasks":{}}`:                                            false,
		`{"extensions":{"io.modelcontextprotocol/tasks":{}},"extensions":{}}`:             false,
		`{}`: false,
	} {
		m := RequestMeta{ClientCapabilities: []byte(caps)}
		require.Equal(t, want, m.HasExtension(tasks), caps)
	}
}
