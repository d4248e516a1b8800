package store

import (
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const module = "github.com/mockmcp/mockmcp"

// domainPackages hold no database code: they work on the types of package
// design and leave storing them to the store.
var domainPackages = []string{
	"internal/agentcard",
	"internal/design",
	"internal/mcpimport",
	"internal/oasimport",
	"internal/resttest",
	"internal/scenario",
	"internal/testgen",
}

// TestOnlyStoreImportsGeneratedQueries keeps the generated sqlc code behind
// the store, and the domain packages free of the store and of pgx: every Go
// file of the module (tests included) is read for its imports.
func TestOnlyStoreImportsGeneratedQueries(t *testing.T) {
	imports := moduleImports(t)
	require.Contains(t, imports, "internal/store", "the walk must see this package")
	require.Contains(t, imports["internal/store"], module+"/gen/db", "the walk must see the store's own import")

	for dir, imported := range imports {
		if dir == "internal/store" || dir == "gen/db" {
			continue
		}
		require.NotContains(t, imported, module+"/gen/db", "%s imports gen/db; only internal/store may", dir)
	}
	for _, dir := range domainPackages {
		require.Contains(t, imports, dir, "domain package %s not found", dir)
		for _, path := range slices.Sorted(maps.Keys(imports[dir])) {
			require.NotEqual(t, module+"/internal/store", path, "%s imports the store", dir)
			require.False(t, strings.HasPrefix(path, "github.com/jackc/pgx"), "%s imports %s", dir, path)
		}
	}
}

// TestDomainPackagesDependOnNoDatabase follows imports all the way down:
// building a domain package builds neither the store nor pgx.
func TestDomainPackagesDependOnNoDatabase(t *testing.T) {
	goTool, err := exec.LookPath("go")
	require.NoError(t, err, "the go command runs this test")
	for _, dir := range domainPackages {
		cmd := exec.Command(goTool, "list", "-deps", "./"+dir)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.Output()
		require.NoError(t, err, "go list -deps ./%s", dir)
		deps := strings.Fields(string(out))
		require.Contains(t, deps, module+"/"+dir, "go list names the package itself")
		for _, dep := range deps {
			require.NotEqual(t, module+"/internal/store", dep, "%s depends on the store", dir)
			require.NotEqual(t, module+"/gen/db", dep, "%s depends on gen/db", dir)
			require.False(t, strings.HasPrefix(dep, "github.com/jackc/pgx"), "%s depends on %s", dir, dep)
		}
	}
}

// moduleImports maps each directory of the module, relative to its root, to
// the import paths its Go files name.
func moduleImports(t *testing.T) map[string]map[string]bool {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "the module root is two levels up")

	out := map[string]map[string]bool{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if out[rel] == nil {
			out[rel] = map[string]bool{}
		}
		for _, spec := range f.Imports {
			p, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			out[rel][p] = true
		}
		return nil
	})
	require.NoError(t, err)
	return out
}
