package conformance_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// baselineEntry is one server entry of an expected-failures file: a
// scenario expected to fail whole, or one check of it, with its reason.
type baselineEntry struct {
	scenario, check, reason string
}

// readBaseline reads the server entries of the expected-failures file
// name in testdata: `- scenario` or `- scenario:check-id`, each under the
// comment that gives its reason (the comment lines right above it, or
// above the run of entries it belongs to). An entry without one fails t.
func readBaseline(t *testing.T, name string) []baselineEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	var entries []baselineEntry
	var reason []string
	inServer, afterEntry := false, false
	lines := bufio.NewScanner(bytes.NewReader(raw))
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		switch {
		case line == "":
			reason, afterEntry = nil, false
		case strings.HasPrefix(line, "#"):
			if afterEntry {
				reason, afterEntry = nil, false
			}
			reason = append(reason, strings.TrimSpace(strings.TrimPrefix(line, "#")))
		case strings.HasSuffix(line, ":") || strings.Contains(line, ": "), strings.HasSuffix(line, "[]"):
			inServer = strings.HasPrefix(line, "server:")
			reason, afterEntry = nil, false
		case strings.HasPrefix(line, "- ") && inServer:
			scenario, check, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(line, "- ")), ":")
			require.NotEmpty(t, reason, "%s: %q has no comment above it giving its reason", name, line)
			entries = append(entries, baselineEntry{scenario: scenario, check: check, reason: strings.Join(reason, " ")})
			afterEntry = true
		}
	}
	require.NoError(t, lines.Err())
	return entries
}

// listedLine matches a scenario in the suite's list: "  - tools-list
// [2025-06-18,2025-11-25]", "    - json-schema-2020-12 [server]".
var listedLine = regexp.MustCompile(`^\s*- (\S+)(?: \[([^\]]*)\])?\s*$`)

// serverScenarios lists the server scenarios of the suite's list with
// args (every one, or those a requirement set runs, scored or not).
func serverScenarios(t *testing.T, node, cli string, args ...string) []string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), node, append([]string{cli, "list"}, args...)...)
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "conformance list %s\n%s", strings.Join(args, " "), out)
	var names []string
	section := ""
	for _, line := range strings.Split(string(ansiColor.ReplaceAll(out, nil)), "\n") {
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			section = "server"
		case strings.HasPrefix(line, "Client scenarios"), strings.HasPrefix(line, "Authorization server scenarios"):
			section = "other"
		case strings.HasPrefix(line, "Run and reported"):
			section = "unscored"
		}
		m := listedLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if section == "server" || section == "unscored" && m[2] == "server" {
			names = append(names, m[1])
		}
	}
	return names
}

// TestEveryServerScenarioIsAccounted: each server scenario of the pinned
// suite is run by TestOfficialConformanceSuite (a revision's requirements,
// scored or not, or an extension's scenarios run one by one), or named
// whole in an expected-failures file with the reason it is not; and every
// entry of those files gives its reason. A scenario a new suite adds thus
// fails here until it is run or listed. (The authorization server
// scenarios all run in TestOfficialAuthorizationServerSuite; the client
// scenarios test an MCP client, which this service is not.)
func TestEveryServerScenarioIsAccounted(t *testing.T) {
	node, cli := toolchain(t)
	all := serverScenarios(t, node, cli, "--server")
	require.NotEmpty(t, all, "the suite lists no server scenario")
	run := map[string]bool{}
	for _, set := range requirementSets {
		for _, s := range serverScenarios(t, node, cli, "--server", "--requirements", set.revision) {
			run[s] = true
		}
	}
	for _, set := range extensionSets {
		for _, s := range extensionScenarios(t, node, cli, set.prefix) {
			run[s] = true
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "expected-failures-*.yml"))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, f := range files {
		for _, e := range readBaseline(t, filepath.Base(f)) {
			if e.check == "" {
				listed[e.scenario] = true
			}
		}
	}
	for _, s := range all {
		if !run[s] && !listed[s] {
			t.Errorf("the suite's server scenario %s is run by no test here and named in no testdata/expected-failures-*.yml with its reason", s)
		}
	}
}
