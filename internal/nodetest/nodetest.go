// Package nodetest finds the node binary and the npm packages pinned under
// .ci for tests that run the official JavaScript SDKs.
package nodetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Packages are npm packages pinned in a folder under .ci, which a make
// target installs in its node_modules.
type Packages struct {
	// Name names them in messages: "A2A SDK".
	Name string
	// Dir is their folder, relative to the test's package directory:
	// "../../.ci/a2a".
	Dir string
	// DirEnv and NodeEnv name the variables that override the folder and
	// the node binary (found on PATH otherwise).
	DirEnv, NodeEnv string
	// Installed is a file the install writes, relative to the folder's
	// node_modules: "@a2a-js/sdk/package.json".
	Installed string
	// Target is the make target that installs them: "a2a-packages".
	Target string
	// Unchecked, when not empty, says in the message of a skipped test
	// what goes unchecked without them.
	Unchecked string
}

// Toolchain returns the node binary and the folder whose node_modules
// holds the packages. Without them the test is skipped on a developer's
// machine; under CI (CI=true), which installs them, their absence fails it.
func (p Packages) Toolchain(t *testing.T) (node, dir string) {
	t.Helper()
	dir = os.Getenv(p.DirEnv)
	if dir == "" {
		dir, _ = filepath.Abs(p.Dir)
	}
	node = os.Getenv(p.NodeEnv)
	if node == "" {
		node, _ = exec.LookPath("node")
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p.Installed)))
	if node != "" && err == nil {
		return node, dir
	}
	p.missing(t,
		"node (>= 20) and the "+p.Name+" in "+dir+" are needed under CI",
		"no node, or no "+p.Name+" in "+dir, p.Unchecked)
	return "", ""
}

// Bin returns the path of the packages' command name in dir (from
// Toolchain), under node_modules/.bin; without it the test is skipped, or
// fails under CI, as in Toolchain, saying what goes unchecked: unchecked.
func (p Packages) Bin(t *testing.T, dir, name, unchecked string) string {
	t.Helper()
	path := filepath.Join(dir, "node_modules", ".bin", name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	p.missing(t, "no "+name+" in "+dir+" under CI", "no "+name+" in "+dir, unchecked)
	return ""
}

// missing ends the test for packages that are not installed: under CI it
// fails with underCI, elsewhere it is skipped with absent; both name the
// make target.
func (p Packages) missing(t *testing.T, underCI, absent, unchecked string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: run `make %s`", underCI, p.Target)
	}
	msg := absent + " (`make " + p.Target + "` installs it)"
	if unchecked != "" {
		msg += ": " + unchecked
	}
	t.Skip(msg)
}
