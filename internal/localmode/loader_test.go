package localmode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/localmode"
)

// call is one call of the fake apply.
type call struct {
	name string // base name of the path
	doc  string
	at   time.Time
}

// fakeApply records its calls; a document is applied when it is a JSON
// object with a "name", else it fails as the real apply would.
type fakeApply struct {
	mu    sync.Mutex
	calls []call
	// fail, when set, decides the error of a call first.
	fail func(name, doc string, n int) error
}

func (a *fakeApply) apply(_ context.Context, path string, doc []byte) (localmode.Result, error) {
	a.mu.Lock()
	name := filepath.Base(path)
	a.calls = append(a.calls, call{name: name, doc: string(doc), at: time.Now()})
	n := 0
	for _, c := range a.calls {
		if c.name == name {
			n++
		}
	}
	fail := a.fail
	a.mu.Unlock()
	if fail != nil {
		if err := fail(name, string(doc), n); err != nil {
			return localmode.Result{}, err
		}
	}
	var d struct {
		Name  string `json:"name"`
		Tools []any  `json:"tools"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return localmode.Result{}, failure.Invalid(failure.Field("", "not a JSON document: %v", err))
	}
	var f failure.Fields
	if d.Name == "" {
		f.Add("name", "is required")
	}
	for i, t := range d.Tools {
		if _, ok := t.(map[string]any); !ok {
			f.Add("tools["+string(rune('0'+i))+"]", "must be an object")
		}
	}
	if err := f.Err(); err != nil {
		return localmode.Result{}, err
	}
	id := uuid.NewSHA1(uuid.NameSpaceURL, []byte(d.Name))
	return localmode.Result{ServerID: id, Name: d.Name, Action: "updated",
		EndpointURL: "http://127.0.0.1:9/api/platform/" + id.String() + "/mcp"}, nil
}

// callsOf returns the calls for the file named name.
func (a *fakeApply) callsOf(name string) []call {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []call
	for _, c := range a.calls {
		if c.name == name {
			out = append(out, c)
		}
	}
	return out
}

func (a *fakeApply) names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, c := range a.calls {
		out = append(out, c.name)
	}
	return out
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

func endpoint(name string) string {
	return "http://127.0.0.1:9/api/platform/" + uuid.NewSHA1(uuid.NameSpaceURL, []byte(name)).String() + "/mcp"
}

// start runs the loader over dir, applying through a, until the test ends;
// it returns once the first load is done, with what the loader writes.
func start(t *testing.T, dir string, a *fakeApply) *apitest.Buffer {
	t.Helper()
	out := &apitest.Buffer{}
	l := localmode.New(dir, a.apply, out, nil)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, l.Load(ctx))
	done := make(chan error, 1)
	go func() { done <- l.Watch(ctx) }()
	t.Cleanup(func() { apitest.Stops(t, "Watch", 5*time.Second, cancel, done) })
	return out
}

func TestLoadAppliesEveryFileInNameOrder(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "b.yaml", `{"name":"bravo"}`)
	write(t, dir, "a.json", `{"name":"alpha"}`)
	write(t, dir, "broken.yml", `{"tools":[1]}`)
	write(t, dir, "c.YML", `{"name":"charlie"}`)
	write(t, dir, ".hidden.yaml", `{"name":"hidden"}`)
	write(t, dir, "notes.txt", `{"name":"notes"}`)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder.json"), 0o755))
	require.NoError(t, os.Symlink("a.json", filepath.Join(dir, "linked.json")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing"), filepath.Join(dir, "dangling.json")))

	a := &fakeApply{}
	out := start(t, dir, a)

	require.Equal(t, []string{"a.json", "b.yaml", "broken.yml", "c.YML", "linked.json"}, a.names())
	broken := filepath.Join(dir, "broken.yml")
	require.Equal(t, []string{
		"alpha  " + endpoint("alpha"),
		"bravo  " + endpoint("bravo"),
		broken + ": name: is required",
		broken + ": tools[0]: must be an object",
		"charlie  " + endpoint("charlie"),
		"alpha  " + endpoint("alpha"),
	}, out.Lines())

	// Nothing changes: nothing is applied again.
	time.Sleep(4 * localmode.PollInterval)
	require.Len(t, a.names(), 5)
}

func TestChangedFileIsAppliedWithinASecond(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	write(t, dir, "b.json", `{"name":"bravo"}`)
	a := &fakeApply{}
	start(t, dir, a)

	// Let the first versions age past any timestamp granularity, so what
	// follows is seen through size and modification time too.
	time.Sleep(time.Second)
	changed := time.Now()
	write(t, dir, "a.json", `{"name":"alpha", "tools":[{}]}`)
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 2 }, 3*time.Second, 10*time.Millisecond)
	c := a.callsOf("a.json")[1]
	require.Less(t, c.at.Sub(changed), time.Second)
	require.Equal(t, `{"name":"alpha", "tools":[{}]}`, c.doc)

	// The same content written again (a new modification time) is not
	// applied again, nor is the file nobody touched.
	write(t, dir, "a.json", `{"name":"alpha", "tools":[{}]}`)
	time.Sleep(1500 * time.Millisecond)
	require.Len(t, a.callsOf("a.json"), 2)
	require.Len(t, a.callsOf("b.json"), 1)
}

func TestBrokenFileKeepsTheLastGoodVersion(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	a := &fakeApply{}
	out := start(t, dir, a)

	path := filepath.Join(dir, "a.json")
	write(t, dir, "a.json", `{"name":"alpha","tools":["x"]}`)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "keeps serving") }, 3*time.Second, 10*time.Millisecond)
	require.Equal(t, []string{
		"alpha  " + endpoint("alpha"),
		path + ": tools[0]: must be an object",
		path + ": not applied; the last good version of alpha keeps serving",
	}, out.Lines())

	// The broken content is not applied again until the file changes.
	time.Sleep(4 * localmode.PollInterval)
	require.Len(t, a.callsOf("a.json"), 2)

	write(t, dir, "a.json", `{"name":"alpha","tools":[{}]}`)
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 3 }, 3*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return len(out.Lines()) == 4 }, time.Second, 10*time.Millisecond)
	require.Equal(t, "alpha  "+endpoint("alpha"), out.Lines()[3])
}

func TestNewAndDeletedFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	a := &fakeApply{}
	out := start(t, dir, a)

	write(t, dir, "n.yaml", `{"name":"new"}`)
	require.Eventually(t, func() bool { return len(a.callsOf("n.yaml")) == 1 }, time.Second, 10*time.Millisecond)

	require.NoError(t, os.Remove(filepath.Join(dir, "a.json")))
	want := filepath.Join(dir, "a.json") + ": deleted; server alpha keeps serving (delete it through the API)"
	require.Eventually(t, func() bool { return strings.Contains(out.String(), want) }, 2*time.Second, 10*time.Millisecond)

	// Back again: applied as a new file.
	write(t, dir, "a.json", `{"name":"alpha"}`)
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 2 }, time.Second, 10*time.Millisecond)
}

func TestEditorSaves(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	a := &fakeApply{}
	start(t, dir, a)

	// Save by rename: the editor writes a hidden temporary file, then
	// renames it over the design file.
	write(t, dir, ".a.json.tmp", `{"name":"alpha","tools":[{}]}`)
	require.NoError(t, os.Rename(filepath.Join(dir, ".a.json.tmp"), filepath.Join(dir, "a.json")))
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 2 }, time.Second, 10*time.Millisecond)
	require.Equal(t, `{"name":"alpha","tools":[{}]}`, a.callsOf("a.json")[1].doc)

	// Save in place, slowly: truncated, then half written for longer than
	// a poll, then complete. The half-written file fails and the complete
	// one is applied.
	f, err := os.OpenFile(filepath.Join(dir, "a.json"), os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"name":"al`)
	require.NoError(t, err)
	require.NoError(t, f.Sync())
	time.Sleep(3 * localmode.PollInterval)
	_, err = f.WriteString(`pha","tools":[{},{}]}`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.Eventually(t, func() bool {
		c := a.callsOf("a.json")
		return c[len(c)-1].doc == `{"name":"alpha","tools":[{},{}]}`
	}, time.Second, 10*time.Millisecond)
	require.NotContains(t, a.names(), ".a.json.tmp")
}

func TestRewriteWithinTheTimestampGranularity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	write(t, dir, "a.json", `{"name":"aaaa"}`)
	info, err := os.Stat(path)
	require.NoError(t, err)
	a := &fakeApply{}
	start(t, dir, a)

	// Same size, same modification time, other content: only a file
	// system with coarse timestamps does this, and the loader must still
	// see it.
	write(t, dir, "a.json", `{"name":"bbbb"}`)
	require.NoError(t, os.Chtimes(path, info.ModTime(), info.ModTime()))
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 2 }, time.Second, 10*time.Millisecond)
	require.Equal(t, `{"name":"bbbb"}`, a.callsOf("a.json")[1].doc)
}

func TestErrorNotTheFilesFaultIsRetried(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	write(t, dir, "b.json", `{"name":"bravo"}`)
	a := &fakeApply{fail: func(name, _ string, n int) error {
		if name == "a.json" && n == 1 {
			return failure.Unavailable(errors.New("connection refused"))
		}
		return nil
	}}
	out := start(t, dir, a)

	path := filepath.Join(dir, "a.json")
	require.Equal(t, []string{
		path + ": the database cannot be reached; try again shortly",
		"bravo  " + endpoint("bravo"),
	}, out.Lines())
	require.Eventually(t, func() bool { return len(a.callsOf("a.json")) == 2 }, 3*time.Second, 10*time.Millisecond)
	require.Eventually(t, func() bool { return len(out.Lines()) == 3 }, time.Second, 10*time.Millisecond)
	require.Equal(t, "alpha  "+endpoint("alpha"), out.Lines()[2])
	time.Sleep(4 * localmode.PollInterval)
	require.Len(t, a.callsOf("a.json"), 2)
}

func TestFolderMustExist(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	err := localmode.Run(context.Background(), missing, (&fakeApply{}).apply, &apitest.Buffer{}, nil)
	require.ErrorContains(t, err, "missing")
	require.Error(t, localmode.CheckDir(missing))
	write(t, dir, "a.json", `{}`)
	require.ErrorContains(t, localmode.CheckDir(filepath.Join(dir, "a.json")), "not a directory")
	require.NoError(t, localmode.CheckDir(dir))
}

func TestRunStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.json", `{"name":"alpha"}`)
	a := &fakeApply{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- localmode.Run(ctx, dir, a.apply, &apitest.Buffer{}, nil) }()
	require.Eventually(t, func() bool { return len(a.names()) == 1 }, time.Second, 10*time.Millisecond)
	apitest.Stops(t, "Run", 2*time.Second, cancel, done)
}

// TestLinksOutOfTheFolderAreRefused: a design file that leads out of the
// folder (`ln -s /etc/shadow mocks/x.yaml`) is refused by name and never
// read, while links within the folder are followed; its content appears
// nowhere.
func TestLinksOutOfTheFolderAreRefused(t *testing.T) {
	parent := t.TempDir()
	const secret = "root:$6$s3cr3tSALT$s3cr3tHASH:19000:0:99999:7:::"
	secretFile := filepath.Join(parent, "shadow")
	require.NoError(t, os.WriteFile(secretFile, []byte(secret+"\n"), 0o600))
	dir := filepath.Join(parent, "mocks")
	require.NoError(t, os.Mkdir(dir, 0o755))
	write(t, dir, "a.json", `{"name":"alpha"}`)
	require.NoError(t, os.Symlink(secretFile, filepath.Join(dir, "absolute.yaml")))
	require.NoError(t, os.Symlink("../shadow", filepath.Join(dir, "relative.yaml")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "a.json"), filepath.Join(dir, "inside-absolute.json")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "..data"), 0o755))
	write(t, filepath.Join(dir, "..data"), "b.json", `{"name":"bravo"}`)
	require.NoError(t, os.Symlink("..data/b.json", filepath.Join(dir, "b.json")))

	a := &fakeApply{}
	out := &apitest.Buffer{}
	var logs bytes.Buffer
	var logMu sync.Mutex
	l := localmode.New(dir, a.apply, out, slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug})))
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, l.Load(ctx))
	done := make(chan error, 1)
	go func() { done <- l.Watch(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	// A relative link within the folder is followed; the others are
	// refused and never read.
	require.Equal(t, []string{"a.json", "b.json"}, a.names())
	refused := func(name string) string {
		return filepath.Join(dir, name) + ": refused: it leads out of the designs folder (a symbolic link to a file outside it); not read"
	}
	require.Equal(t, []string{
		"alpha  " + endpoint("alpha"),
		refused("absolute.yaml"),
		"bravo  " + endpoint("bravo"),
		refused("inside-absolute.json"),
		refused("relative.yaml"),
	}, out.Lines())

	// Reported once, not at every poll; a served file that becomes such a
	// link keeps its last good version serving.
	require.NoError(t, os.Remove(filepath.Join(dir, "a.json")))
	require.NoError(t, os.Symlink(secretFile, filepath.Join(dir, "a.json")))
	require.Eventually(t, func() bool { return len(out.Lines()) == 7 }, 2*time.Second, 10*time.Millisecond)
	time.Sleep(4 * localmode.PollInterval)
	require.Equal(t, []string{
		refused("a.json"),
		filepath.Join(dir, "a.json") + ": not applied; the last good version of alpha keeps serving",
	}, out.Lines()[5:])
	require.Len(t, a.names(), 2)

	// A file in the folder again is read and applied.
	require.NoError(t, os.Remove(filepath.Join(dir, "relative.yaml")))
	write(t, dir, "relative.yaml", `{"name":"charlie"}`)
	require.Eventually(t, func() bool { return len(a.callsOf("relative.yaml")) == 1 }, 2*time.Second, 10*time.Millisecond)

	logMu.Lock()
	defer logMu.Unlock()
	a.mu.Lock()
	for _, c := range a.calls {
		require.NotContains(t, c.doc, "s3cr3t")
	}
	a.mu.Unlock()
	require.NotContains(t, out.String(), "s3cr3t")
	require.NotContains(t, logs.String(), "s3cr3t")
	require.Contains(t, logs.String(), "leads out of the designs folder")
}

// TestLargeFilesAreRefused: a design file larger than the limit (the
// service's MAX_BODY_BYTES) is refused by name and not read; once small
// enough it is applied.
func TestLargeFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "big.json", `{"name":"big","pad":"`+strings.Repeat("x", 2_000)+`"}`)
	a := &fakeApply{}
	out := &apitest.Buffer{}
	l := localmode.New(dir, a.apply, out, nil)
	l.LimitFileSize(1_000)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, l.Load(ctx))
	done := make(chan error, 1)
	go func() { done <- l.Watch(ctx) }()
	defer func() { cancel(); require.NoError(t, <-done) }()

	require.Empty(t, a.names())
	require.Equal(t, []string{filepath.Join(dir, "big.json") + ": refused: it is larger than 1000 bytes, the limit (MAX_BODY_BYTES); not read"}, out.Lines())
	time.Sleep(3 * localmode.PollInterval)
	require.Len(t, out.Lines(), 1, "reported once")

	write(t, dir, "big.json", `{"name":"big"}`)
	require.Eventually(t, func() bool { return len(a.callsOf("big.json")) == 1 }, 2*time.Second, 10*time.Millisecond)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}
