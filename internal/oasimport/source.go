package oasimport

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"
)

// MaxDocumentBytes bounds a document fetched by URL.
const MaxDocumentBytes = 5 << 20

// Source is the provenance a server imported from doc records: where the
// document was fetched from (url, empty when it was given inline or read
// from a file), its SHA-256, its format and title, and the time of import.
func Source(url string, doc []byte, res Result, at time.Time) json.RawMessage {
	sum := sha256.Sum256(doc)
	src := map[string]any{"kind": "openapi", "url": nil, "sha256": hex.EncodeToString(sum[:]),
		"format": res.Format, "title": res.Title, "imported_at": at.UTC().Format(time.RFC3339)}
	if url != "" {
		src["url"] = url
	}
	raw, _ := json.Marshal(src) // strings and nil only: cannot fail
	return raw
}
