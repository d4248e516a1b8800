package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// The environment `make conformance` sets: the Node 22 binary (the suite's
// CLI calls fs.globSync, which Node 20 lacks) and the suite's CLI, both
// installed under .ci/conformance.
const (
	nodeEnv = "MOCKMCP_CONFORMANCE_NODE"
	cliEnv  = "MOCKMCP_CONFORMANCE_CLI"
)

// suiteTimeout bounds one run of the suite: about 40 scenarios, each a few
// requests, some waiting up to a few seconds for an SSE stream.
const suiteTimeout = 4 * time.Minute

// requirementSets are the runs of the suite: each protocol revision's
// required scenarios (--requirements), against the design that serves them,
// with the scenarios or checks that design is known to fail. The suite
// also runs, without scoring them, the scenarios a revision lists as
// pending, added after its release or of an extension: the design must
// pass those all the same, but for the checks its file lists (the
// suite's exit status ignores them, so the test reads their checks).
var requirementSets = []struct {
	revision, design, expected string
}{
	{revision: "2025-11-25", design: "design.json", expected: "expected-failures-2025-11-25.yml"},
	{revision: "2026-07-28", design: "design-2026.json", expected: "expected-failures-2026-07-28.yml"},
}

// TestOfficialConformanceSuite runs the official MCP conformance suite, once
// per protocol revision and once per scenario of the tasks extension,
// against the designs in testdata, created through the REST API and served
// by the real service. The suite exits non-zero when
// a scored scenario fails or warns in a check the revision's expected
// failures file does not list, or when a listed one passes.
func TestOfficialConformanceSuite(t *testing.T) {
	node, cli := toolchain(t)
	owner := serve(t)
	for _, set := range requirementSets {
		t.Run(set.revision, func(t *testing.T) {
			endpoint := createDesign(t, owner, filepath.Join("testdata", set.design))
			results := runSuite(t, node, cli, endpoint, []string{"--requirements", set.revision}, set.expected, "scenario", suiteTimeout)
			require.Empty(t, unlisted(unmetChecks(t, results), readBaseline(t, set.expected)),
				"checks failed or warned that %s does not list (scenarios run but not scored at %s are read here)", set.expected, set.revision)
		})
	}
	for _, set := range extensionSets {
		t.Run(set.name, func(t *testing.T) {
			runExtension(t, node, cli, createDesign(t, owner, filepath.Join("testdata", set.design)), set)
		})
	}
}

// extensionSet is the run of the suite's scenarios of one extension:
// extension scenarios are in no requirement set, so each runs on its own
// (--scenario), against a design, with the checks that design is known
// to fail.
type extensionSet struct {
	name, prefix, design, expected string
	// everyCheck: every check of the scenarios must run (none SKIPPED),
	// so a design that stops serving what a check needs fails.
	everyCheck bool
}

// extensionSets are the extensions whose scenarios are run: the tasks
// extension (io.modelcontextprotocol/tasks) and the skills extension
// (io.modelcontextprotocol/skills, SEP-2640), both against the 2026-07-28
// design, which has task tools and skills.
var extensionSets = []extensionSet{
	{name: "tasks", prefix: "tasks-", design: "design-2026.json", expected: "expected-failures-tasks.yml"},
	{name: "skills", prefix: "sep-2640-skills-", design: "design-2026.json", expected: "expected-failures-skills.yml", everyCheck: true},
}

// runExtension runs each of the suite's extension scenarios named with
// set's prefix against endpoint, as the suite lists them, so a new one is
// run as soon as the pinned suite has it.
func runExtension(t *testing.T, node, cli, endpoint string, set extensionSet) {
	t.Helper()
	scenarios := extensionScenarios(t, node, cli, set.prefix)
	require.NotEmpty(t, scenarios, "the suite lists no %s* extension scenario", set.prefix)
	for _, scenario := range scenarios {
		t.Run(scenario, func(t *testing.T) {
			results := runSuite(t, node, cli, endpoint, []string{"--scenario", scenario}, set.expected, "check", scenarioTimeout)
			if set.everyCheck {
				require.Empty(t, checksWith(t, results, "SKIPPED"), "checks of %s that did not run", scenario)
			}
		})
	}
}

// runSuite runs the suite's server checks that selection picks
// (--requirements or --scenario) against endpoint, with the expected
// failures of the testdata file expected, within timeout, and returns the
// folder of its results. It fails t when the suite exits non-zero: a
// failing (a scenario or a check) that expected does not list, or a listed
// one that passed.
func runSuite(t *testing.T, node, cli, endpoint string, selection []string, expected, failing string, timeout time.Duration) (results string) {
	t.Helper()
	expectedPath, err := filepath.Abs(filepath.Join("testdata", expected))
	require.NoError(t, err)
	results = t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	args := append([]string{cli, "server"}, selection...)
	cmd := exec.CommandContext(ctx, node, append(args, "--url", endpoint, "--expected-failures", expectedPath, "-o", results)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	t.Logf("conformance server %s --url %s\n%s", strings.Join(selection, " "), endpoint, ansiColor.ReplaceAll(out, nil))
	require.NoError(t, ctx.Err(), "the suite did not finish within %s", timeout)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("the suite exited with %d: a %s failed that %s does not list, "+
			"or a listed one passed (see the summary above). Failed checks and warnings:\n%s",
			exit.ExitCode(), failing, expected, unlisted(unmetChecks(t, results), nil))
	}
	require.NoError(t, err)
	return results
}

// scenarioTimeout bounds one extension scenario: the suite waits up to 10 s
// for each task it polls to end, and a few run one after another.
const scenarioTimeout = 2 * time.Minute

// extensionLine matches a server scenario of an extension in the suite's
// list: "  - tasks-lifecycle [extension]".
var extensionLine = regexp.MustCompile(`(?m)^\s*- (\S+) \[extension\]\s*$`)

// extensionScenarios lists the suite's server scenarios of an extension
// whose names start with prefix.
func extensionScenarios(t *testing.T, node, cli, prefix string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, cli, "list", "--server")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "conformance list --server\n%s", out)
	var names []string
	for _, m := range extensionLine.FindAllSubmatch(ansiColor.ReplaceAll(out, nil), -1) {
		if name := string(m[1]); strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	return names
}

// ansiColor matches the colour escapes the suite writes even when its
// output is not a terminal.
var ansiColor = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// resultDir matches the directory the suite saves one scenario's checks in:
// server-<scenario>-<time>.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// unmetCheck is a check of a scenario that failed or warned.
type unmetCheck struct {
	scenario, check, status, why string
}

func (c unmetCheck) String() string {
	return fmt.Sprintf("  %s: %s %s: %s\n", c.scenario, c.status, c.check, c.why)
}

// unmetChecks lists the checks of the scenarios saved in dir whose status
// is FAILURE or WARNING: the suite counts a warning as a failure against
// the expected-failures baseline, and its summary names only the
// scenarios.
func unmetChecks(t *testing.T, dir string) []unmetCheck {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	require.NoError(t, err)
	var out []unmetCheck
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var checks []struct {
			ID, Name, Status, ErrorMessage string
			Details                        struct{ Message string }
		}
		require.NoError(t, json.Unmarshal(raw, &checks), f)
		scenario := filepath.Base(filepath.Dir(f))
		if m := resultDir.FindStringSubmatch(scenario); m != nil {
			scenario = m[1]
		}
		for _, c := range checks {
			if c.Status != "FAILURE" && c.Status != "WARNING" {
				continue
			}
			why := c.ErrorMessage
			if why == "" {
				why = c.Details.Message
			}
			out = append(out, unmetCheck{scenario: scenario, check: c.ID, status: c.Status, why: why})
		}
	}
	return out
}

// unlisted is the checks of unmet that baseline names neither as a
// scenario nor as scenario:check, one line each.
func unlisted(unmet []unmetCheck, baseline []baselineEntry) string {
	var b strings.Builder
	for _, c := range unmet {
		if !slices.ContainsFunc(baseline, func(e baselineEntry) bool {
			return e.scenario == c.scenario && (e.check == "" || e.check == c.check)
		}) {
			b.WriteString(c.String())
		}
	}
	return b.String()
}

// checksWith lists the checks saved in dir whose status is status.
func checksWith(t *testing.T, dir, status string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no checks saved in %s", dir)
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var checks []struct{ Name, Status, ErrorMessage string }
		require.NoError(t, json.Unmarshal(raw, &checks), f)
		for _, c := range checks {
			if c.Status == status {
				out = append(out, c.Name+": "+c.ErrorMessage)
			}
		}
	}
	return out
}

// toolchain returns the Node 22 binary and the suite's CLI, skipping the test
// when `make conformance` has not provided them.
func toolchain(t *testing.T) (node, cli string) {
	t.Helper()
	node, cli = os.Getenv(nodeEnv), os.Getenv(cliEnv)
	if node == "" || cli == "" {
		t.Skipf("%s and %s are not set: run `make conformance`", nodeEnv, cliEnv)
	}
	for _, p := range []string{node, cli} {
		_, err := os.Stat(p)
		require.NoError(t, err, "run `make conformance`, which installs the packages of .ci/conformance")
	}
	return node, cli
}

// packagesDir is the directory whose node_modules holds the suite's CLI, where
// the TypeScript SDK is installed too.
func packagesDir(t *testing.T, cli string) string {
	t.Helper()
	for dir := filepath.Dir(cli); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if filepath.Base(dir) == "node_modules" {
			return filepath.Dir(dir)
		}
	}
	t.Fatalf("%s is not inside a node_modules directory", cli)
	return ""
}

// serve boots the service as the suite needs it and signs up the owner of the
// designs.
func serve(t *testing.T) *apitest.Client {
	t.Helper()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		// ALLOWED_HOSTS=127.0.0.1,localhost: the suite's dns-rebinding-protection
		// scenario expects 4xx for Host and Origin evil.example.com, and 2xx for
		// the loopback address it is given.
		c.AllowedHosts = []string{"127.0.0.1", "localhost"}
	}})
	return env.Signup(t, "Conformance")
}

// design is a testdata design file: the bodies of the REST requests that
// create one server with its tools, resources and prompts.
type design struct {
	Server    json.RawMessage   `json:"server"`
	Tools     []json.RawMessage `json:"tools"`
	Resources []json.RawMessage `json:"resources"`
	Prompts   []json.RawMessage `json:"prompts"`
}

// createDesign creates the design of file through the REST API as c, enables
// it and returns its MCP endpoint.
func createDesign(t *testing.T, c *apitest.Client, file string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var d design
	require.NoError(t, json.Unmarshal(raw, &d), file)
	id := c.CreateServer(d.Server, d.Tools, d.Resources, d.Prompts)
	return c.EnableServer(id).String("endpoint_url")
}
