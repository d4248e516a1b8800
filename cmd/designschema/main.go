// Command designschema writes the JSON Schema of design documents
// (designdoc.Schema, derived from the DesignDocument component of the
// OpenAPI document) to the file given as its argument. `make generate`
// runs it to keep gen/schema/design.json current.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mockmcp/mockmcp/internal/designdoc"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: designschema <output file>")
		os.Exit(2)
	}
	out := os.Args[1]
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(out, designdoc.Schema(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
