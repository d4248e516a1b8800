package mcpimport

import (
	"encoding/json"
	"time"
)

// Source is the provenance a server imported from the MCP server at url
// records: the URL, the transport and protocol used, the server's name and
// the time of import.
func Source(url string, res Result, at time.Time) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"kind": "mcp", "url": url, "sha256": nil, "transport": res.Transport,
		"format": "mcp " + res.Design.Server.ProtocolVersion, "title": res.ServerInfo.Name,
		"imported_at": at.UTC().Format(time.RFC3339)}) // strings and nil only: cannot fail
	return raw
}
