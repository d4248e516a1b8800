package localmode

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// Result is what applying one design file did to its server.
type Result struct {
	ServerID uuid.UUID
	Name     string
	// Action is what the apply did to the server, as its plan names it
	// (for example "created", "updated" or "unchanged").
	Action string
	// EndpointURL is where the server's MCP endpoint answers.
	EndpointURL string
}

// ApplyFunc applies the design document doc, read from path, and enables
// its server. It must change nothing when it fails (one transaction), so
// the last good version keeps serving. Validation failures are
// failure.Invalid with fields naming document paths (`tools[0].input_schema`);
// a failure of another kind the file cannot cure (bad request, conflict,
// too large, not found) is reported too, and waits for the file to change;
// any other error (the database unreachable, a fault) is retried.
type ApplyFunc func(ctx context.Context, path string, doc []byte) (Result, error)

// PollInterval is how often Watch looks at the folder. A change is applied
// once its content has stayed the same for one interval, so within about
// two intervals of the write.
const PollInterval = 250 * time.Millisecond

// racyWindow is how long after its modification time a file is re-read on
// every poll: a second write within the file system's timestamp
// granularity can leave both size and modification time unchanged.
const racyWindow = 2 * time.Second

// Retry delays after an error that is not the file's fault.
const (
	firstRetry = time.Second
	maxRetry   = 30 * time.Second
)

// IsDesignFile reports whether a folder entry named name is a design file:
// *.yaml, *.yml or *.json, not hidden (editors keep their swap and lock
// files under dot names).
func IsDesignFile(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// Loader applies the design files of one folder and keeps them applied.
// Its methods are not safe for concurrent use: Load, then Watch, from one
// goroutine.
type Loader struct {
	dir      string
	apply    ApplyFunc
	out      io.Writer
	log      *slog.Logger
	interval time.Duration
	now      func() time.Time
	files    map[string]*file
	scans    int
	dirErr   string // the folder's last listing error, logged once
	// root opens the folder's files during a scan: a file that leads
	// out of the folder (a symbolic link, absolute or up and away) is
	// refused by the kernel's own walk, not by a check that a swapped
	// link could pass.
	root *os.Root
	// maxBytes bounds the files read, as a request body is bounded.
	maxBytes int64
}

// file is what the loader knows of one design file.
type file struct {
	size    int64
	modTime time.Time
	readAt  time.Time
	hash    [sha256.Size]byte // of the content last read
	doc     []byte
	// changedScan is the poll at which the content last changed; it is
	// applied from the next poll on, once it has held for an interval.
	changedScan int
	applied     bool              // appliedHash is set
	appliedHash [sha256.Size]byte // the content last applied, well or not
	good        *Result           // the last good apply, nil before one
	retryAt     time.Time         // set after an error not the file's fault
	retryDelay  time.Duration
	missing     int    // consecutive polls that did not find the file
	refused     string // why it is not read (out of the folder, too large); reported once
}

// New returns a loader of the design files in dir that applies each with
// apply, prints one line per server or broken file to out, and logs to
// log (discarded when nil).
func New(dir string, apply ApplyFunc, out io.Writer, log *slog.Logger) *Loader {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Loader{dir: dir, apply: apply, out: out, log: log, interval: PollInterval,
		now: time.Now, files: map[string]*file{}, maxBytes: DefaultMaxFileBytes}
}

// DefaultMaxFileBytes is the largest design file a loader reads unless
// told otherwise: the default of MAX_BODY_BYTES.
const DefaultMaxFileBytes = 1 << 20

// LimitFileSize sets the largest design file the loader reads (the service
// passes MAX_BODY_BYTES, so a file is bounded as an applied body is); a
// larger one is refused by name. Call it before Load.
func (l *Loader) LimitFileSize(n int64) {
	if n > 0 {
		l.maxBytes = n
	}
}

// Run applies every design file of dir (Load), then watches the folder
// (Watch) until ctx is cancelled, when it returns nil. It returns an error
// only when the folder cannot be read at start.
func Run(ctx context.Context, dir string, apply ApplyFunc, out io.Writer, log *slog.Logger) error {
	l := New(dir, apply, out, log)
	if err := l.Load(ctx); err != nil {
		return err
	}
	return l.Watch(ctx)
}

// CheckDir reports whether dir is a folder that can be listed, in words
// that name it.
func CheckDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("designs folder: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("designs folder %s is not a directory", dir)
	}
	if _, err := os.ReadDir(dir); err != nil {
		return fmt.Errorf("designs folder: %w", err)
	}
	return nil
}

// Load applies every design file of the folder once, in name order. A
// broken file is reported and does not stop the others; only a folder that
// cannot be listed is an error.
func (l *Loader) Load(ctx context.Context) error {
	if _, err := os.ReadDir(l.dir); err != nil {
		return fmt.Errorf("designs folder: %w", err)
	}
	l.scan(ctx, false)
	good := 0
	for _, f := range l.files {
		if f.good != nil {
			good++
		}
	}
	l.log.Info("designs folder loaded; watching it", "dir", l.dir, "files", len(l.files), "applied", good)
	return nil
}

// Watch polls the folder every PollInterval until ctx is cancelled: a new
// or changed file is applied again, a file whose apply failed is applied
// again once it changes, and a deleted file is reported while its server
// keeps serving (deleting a server is done through the API).
func (l *Loader) Watch(ctx context.Context) error {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			l.scan(ctx, true)
		}
	}
}

// entry is one design file found by a listing.
type entry struct {
	name string
	info fs.FileInfo // nil when the file leads out of the folder
}

// list returns the design files of the folder in name order. Symbolic
// links are followed while they stay in the folder (relative links, such
// as a mounted Kubernetes ConfigMap's); a file that leads out of it is
// listed without its info, to be refused.
func (l *Loader) list() ([]entry, error) {
	des, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, de := range des {
		if !IsDesignFile(de.Name()) {
			continue
		}
		info, err := l.root.Stat(de.Name())
		if err != nil {
			if _, serr := os.Stat(filepath.Join(l.dir, de.Name())); serr == nil {
				// It exists, yet not within the root: it leads out.
				out = append(out, entry{name: de.Name()})
			}
			continue // a dangling link, or gone meanwhile
		}
		if !info.Mode().IsRegular() {
			continue // a folder named x.json
		}
		out = append(out, entry{name: de.Name(), info: info})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// scan looks at every design file once and applies those that need it. With
// settle, a file is applied only once its content has held for one poll, so
// an editor's half-written file is usually never applied; without it (the
// first load) every file is applied at once.
func (l *Loader) scan(ctx context.Context, settle bool) {
	l.scans++
	root, err := os.OpenRoot(l.dir)
	if err == nil {
		l.root = root
		defer func() { root.Close(); l.root = nil }()
	}
	var entries []entry
	if err == nil {
		entries, err = l.list()
	}
	if err != nil {
		if msg := err.Error(); msg != l.dirErr {
			l.dirErr = msg
			l.log.Warn("designs folder cannot be listed; still watching", "dir", l.dir, "error", msg)
		}
		return
	}
	if l.dirErr != "" {
		l.dirErr = ""
		l.log.Info("designs folder can be listed again", "dir", l.dir)
	}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		present[e.name] = true
		f := l.files[e.name]
		if f == nil {
			f = &file{changedScan: -1}
			l.files[e.name] = f
		}
		f.missing = 0
		if e.info == nil {
			l.refuse(e.name, f, "it leads out of the designs folder (a symbolic link to a file outside it); not read")
			continue
		}
		if e.info.Size() > l.maxBytes {
			l.refuse(e.name, f, fmt.Sprintf("it is larger than %d bytes, the limit (MAX_BODY_BYTES); not read", l.maxBytes))
			continue
		}
		if f.refused != "" {
			f.refused, f.doc = "", nil // readable again: read it afresh
		}
		l.refresh(e, f)
		if f.doc == nil {
			continue // not read yet
		}
		if !f.applied || f.appliedHash != f.hash || !f.retryAt.IsZero() {
			if settle && f.changedScan == l.scans {
				continue
			}
			if !f.retryAt.IsZero() && l.now().Before(f.retryAt) && f.appliedHash == f.hash {
				continue
			}
			l.applyFile(ctx, e.name, f)
		}
	}
	l.forget(present)
}

// refresh reads f again when its size or modification time changed, or
// when that time is too recent to be trusted.
func (l *Loader) refresh(e entry, f *file) {
	size, mod := e.info.Size(), e.info.ModTime()
	if f.doc != nil && size == f.size && mod.Equal(f.modTime) && f.readAt.Sub(mod) >= racyWindow {
		return
	}
	path := filepath.Join(l.dir, e.name)
	doc, err := l.read(e.name)
	if err != nil {
		l.log.Debug("design file cannot be read; trying again", "path", path, "error", err.Error())
		return
	}
	f.size, f.modTime, f.readAt = size, mod, l.now()
	if doc == nil {
		doc = []byte{}
	}
	if h := sha256.Sum256(doc); f.doc == nil || h != f.hash {
		f.hash, f.doc, f.changedScan = h, doc, l.scans
	}
}

// read reads the design file name within the folder, at most maxBytes
// of it (a file that grew since it was listed is read again next poll).
func (l *Loader) read(name string) ([]byte, error) {
	fh, err := l.root.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	doc, err := io.ReadAll(io.LimitReader(fh, l.maxBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(doc)) > l.maxBytes {
		return nil, fmt.Errorf("larger than %d bytes", l.maxBytes)
	}
	return doc, nil
}

// refuse reports, once, a design file that is not read, and why; the last
// good version of its server keeps serving.
func (l *Loader) refuse(name string, f *file, why string) {
	if f.refused == why {
		return
	}
	f.refused = why
	path := filepath.Join(l.dir, name)
	fmt.Fprintf(l.out, "%s: refused: %s\n", path, why)
	attrs := []any{"path", path, "reason", why}
	if f.good != nil {
		fmt.Fprintf(l.out, "%s: not applied; the last good version of %s keeps serving\n", path, f.good.Name)
		attrs = append(attrs, "serving", f.good.ServerID.String())
	}
	l.log.Warn("design file refused", attrs...)
}

// applyFile applies f's content and reports the outcome.
func (l *Loader) applyFile(ctx context.Context, name string, f *file) {
	path := filepath.Join(l.dir, name)
	retrying := !f.retryAt.IsZero() && f.appliedHash == f.hash
	res, err := l.apply(ctx, path, f.doc)
	if ctx.Err() != nil {
		return // stopping: the outcome is unknown and no longer matters
	}
	f.applied, f.appliedHash = true, f.hash
	if err == nil {
		f.good, f.retryAt, f.retryDelay = &res, time.Time{}, 0
		fmt.Fprintf(l.out, "%s  %s\n", res.Name, res.EndpointURL)
		l.log.Info("design applied", "path", path, "server_id", res.ServerID.String(), "name", res.Name,
			"action", res.Action, "endpoint", res.EndpointURL)
		return
	}
	if fileFault(err) {
		f.retryAt, f.retryDelay = time.Time{}, 0
		l.report(path, f, err)
		return
	}
	// Not the file's fault: try the same content again later.
	if f.retryDelay == 0 {
		f.retryDelay = firstRetry
	} else {
		f.retryDelay = min(2*f.retryDelay, maxRetry)
	}
	f.retryAt = l.now().Add(f.retryDelay)
	if retrying {
		l.log.Debug("design still not applied", "path", path, "error", err.Error(), "retry_in", f.retryDelay)
		return
	}
	l.report(path, f, err)
	l.log.Info("design will be applied again", "path", path, "retry_in", f.retryDelay)
}

// report prints one line per field at fault (`PATH: field: message`), or
// one line for a failure without fields, and says what keeps serving.
func (l *Loader) report(path string, f *file, err error) {
	if e, ok := failure.As(err); ok && len(e.Fields) > 0 {
		for _, fe := range e.Fields {
			fmt.Fprintf(l.out, "%s: %s: %s\n", path, fe.Field, fe.Message)
		}
	} else if ok {
		fmt.Fprintf(l.out, "%s: %s\n", path, e.Detail)
	} else {
		fmt.Fprintf(l.out, "%s: %s\n", path, err.Error())
	}
	attrs := []any{"path", path, "error", err.Error()}
	if f.good != nil {
		fmt.Fprintf(l.out, "%s: not applied; the last good version of %s keeps serving\n", path, f.good.Name)
		attrs = append(attrs, "serving", f.good.ServerID.String())
	}
	l.log.Warn("design not applied", attrs...)
}

// forget reports the files missing from two polls in a row (one poll could
// fall in the middle of an editor's save by rename) and forgets them, so a
// file that comes back is applied as new.
func (l *Loader) forget(present map[string]bool) {
	var gone []string
	for name, f := range l.files {
		if present[name] {
			continue
		}
		if f.missing++; f.missing >= 2 {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		path := filepath.Join(l.dir, name)
		if g := l.files[name].good; g != nil {
			fmt.Fprintf(l.out, "%s: deleted; server %s keeps serving (delete it through the API)\n", path, g.Name)
			l.log.Info("design file deleted; its server keeps serving", "path", path, "server_id", g.ServerID.String())
		} else {
			l.log.Info("design file deleted", "path", path)
		}
		delete(l.files, name)
	}
}

// fileFault reports whether err is a failure that only a change of the file
// can cure.
func fileFault(err error) bool {
	e, ok := failure.As(err)
	if !ok {
		return false
	}
	switch e.Kind {
	case failure.KindInvalid, failure.KindBadRequest, failure.KindConflict, failure.KindTooLarge,
		failure.KindNotFound, failure.KindForbidden:
		return true
	}
	return false
}
