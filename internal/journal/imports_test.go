package journal_test

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The writer must never run a design's conditions or patterns (a slow one
// would hold up every organization's records): the package does not even
// import what runs them.
func TestWriterCannotRunPatterns(t *testing.T) {
	t.Parallel()
	files, err := os.ReadDir(".")
	require.NoError(t, err)
	checked := 0
	for _, f := range files {
		if !strings.HasSuffix(f.Name(), ".go") || strings.HasSuffix(f.Name(), "_test.go") {
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f.Name(), nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range parsed.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			for _, banned := range []string{"/internal/scenario", "/internal/schema", "/internal/regexlimit"} {
				require.False(t, strings.HasSuffix(path, banned), "%s imports %s", f.Name(), path)
			}
			require.NotEqual(t, "regexp", path, "%s imports regexp", f.Name())
		}
		checked++
	}
	require.GreaterOrEqual(t, checked, 2, "entry.go and writer.go at least")
}
