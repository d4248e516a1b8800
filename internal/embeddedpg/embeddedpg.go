// Package embeddedpg runs the service's own PostgreSQL as a child process
// when no DATABASE_URL is given, so that `mockmcp serve` needs nothing
// installed: github.com/fergusstrange/embedded-postgres downloads (or
// takes from a directory of preinstalled binaries), caches, initdb's and
// starts it; this package chooses where its data lives, a free loopback
// port and a password kept between runs, recovers what a killed run left
// behind, and drops root's privileges for it.
package embeddedpg

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// Version is the PostgreSQL the service downloads and runs; a directory of
// preinstalled binaries must hold the same major version (its data
// directory is refused by another).
const Version = embeddedpostgres.V18

// Database is the name of the service's database in the embedded server.
const Database = "mockmcp"

// superuser is the embedded server's superuser; the service migrates as
// it and serves under the application role, as with an external server.
const superuser = "postgres"

// Options say where the embedded server keeps its files and where its
// binaries come from.
type Options struct {
	// Dir holds everything: the data directory (pgdata), the password,
	// the downloaded archive (cache) and its extracted binaries, the logs
	// (postgres.log: initdb and start-up; log/: the running server's).
	Dir string
	// Binaries, when set, is a directory of preinstalled PostgreSQL
	// binaries (bin/, lib/, share/); nothing is downloaded.
	Binaries string
	// Repository is the Maven repository the binaries are downloaded from
	// (embedded-postgres's default, Maven Central, when empty).
	Repository string
	// StartTimeout bounds the start (initdb included) once the binaries
	// are there; one minute when zero.
	StartTimeout time.Duration
	// UID and GID, when UID is not 0, are the user the helper becomes.
	UID, GID int
}

// DB is a running embedded server.
type DB struct {
	// URL connects as the superuser, on 127.0.0.1.
	URL string
	// Dir is Options.Dir.
	Dir string
	// Attached is true when another mockmcp on the same directory runs
	// the server and this one only connects to it (Stop leaves it).
	Attached bool
	unlock   func()
	pgdata   string
}

// DefaultDir is the directory of the embedded server when none is named:
// $XDG_STATE_HOME/mockmcp, else ~/.local/state/mockmcp; as root, whose
// home the unprivileged user the server runs as cannot enter,
// /var/lib/mockmcp unless XDG_STATE_HOME is set.
func DefaultDir(getenv func(string) string) (string, error) {
	if s := getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, "mockmcp"), nil
	}
	if runningAsRoot() {
		return "/var/lib/mockmcp", nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no home directory for the embedded database's data (set MOCKMCP_DATA_DIR): %w", err)
	}
	return filepath.Join(home, ".local", "state", "mockmcp"), nil
}

// Start starts the embedded server in o.Dir, or attaches to the one
// another mockmcp runs there. A server left running by a mockmcp that was
// killed is stopped first, and a stale postmaster.pid removed, so the
// start after a kill -9 works.
func Start(o Options) (*DB, error) {
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("embedded database directory: %w", err)
	}
	password, err := loadPassword(filepath.Join(dir, "password"))
	if err != nil {
		return nil, err
	}
	db := &DB{Dir: dir, pgdata: filepath.Join(dir, "pgdata")}
	unlock, held, err := lockDir(filepath.Join(dir, "lock"))
	if err != nil {
		return nil, err
	}
	if held {
		// Another mockmcp (a `serve`) runs the server: `keys` and
		// `migrate` use it rather than refusing.
		port, err := runningPort(db.pgdata)
		if err != nil {
			return nil, fmt.Errorf("embedded database in %s is locked by another mockmcp, and its server is not running: %w", dir, err)
		}
		db.URL, db.Attached = connURL(password, port), true
		return db, nil
	}
	db.unlock = unlock
	if err := stopOrphan(db.pgdata); err != nil {
		unlock()
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		unlock()
		return nil, err
	}
	if err := clearLogs(filepath.Join(dir, "log")); err != nil {
		unlock()
		return nil, err
	}
	r := request{
		Dir: dir, Binaries: o.Binaries, Repository: o.Repository, Port: port, Password: password,
		StartTimeout: o.StartTimeout,
	}
	if r.StartTimeout == 0 {
		r.StartTimeout = time.Minute
	}
	if err := startServer(r); err != nil {
		unlock()
		return nil, err
	}
	db.URL = connURL(password, port)
	return db, nil
}

// Stop shuts the server down (a fast shutdown: sessions are ended,
// nothing committed is lost) and releases the directory; an attached DB
// only lets go.
func (db *DB) Stop() error {
	if db == nil || db.Attached {
		return nil
	}
	defer db.unlock()
	pid, err := postmasterPID(db.pgdata)
	if err != nil {
		return nil // not running
	}
	return shutdown(pid, db.pgdata)
}

// connURL is the superuser's URL of the server on port.
func connURL(password string, port int) string {
	u := url.URL{
		Scheme: "postgres", User: url.UserPassword(superuser, password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Path: "/" + Database,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// loadPassword reads the server's password from path, or makes one and
// keeps it there (0600) for the next start: initdb set it once.
func loadPassword(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err == nil && len(strings.TrimSpace(string(b))) > 0 {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("embedded database password: %w", err)
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	pw := hex.EncodeToString(raw)
	if err := os.WriteFile(path, []byte(pw+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("embedded database password: %w", err)
	}
	return pw, nil
}

// freePort is a TCP port free on 127.0.0.1 now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port for the embedded database: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// pidFile reads postmaster.pid: its first line is the postmaster's pid,
// its fourth the port.
func pidFile(pgdata string) ([]string, error) {
	f, err := os.Open(filepath.Join(pgdata, "postmaster.pid"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 1 {
		return nil, errors.New("postmaster.pid is empty")
	}
	return lines, sc.Err()
}

func postmasterPID(pgdata string) (int, error) {
	lines, err := pidFile(pgdata)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(lines[0])
}

// runningPort is the port of the server running on pgdata.
func runningPort(pgdata string) (int, error) {
	lines, err := pidFile(pgdata)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil || !isPostgres(pid) {
		return 0, errors.New("no postmaster running")
	}
	if len(lines) < 4 {
		return 0, errors.New("postmaster.pid names no port yet")
	}
	return strconv.Atoi(lines[3])
}

// stopOrphan handles the postmaster.pid a killed mockmcp left: its server
// still runs (pg_ctl detaches it) and is shut down, or the pid is dead or
// reused by another program and the file is removed, since PostgreSQL
// refuses to start while a process of that pid lives.
func stopOrphan(pgdata string) error {
	pid, err := postmasterPID(pgdata)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && isPostgres(pid) {
		return shutdown(pid, pgdata)
	}
	if err := os.Remove(filepath.Join(pgdata, "postmaster.pid")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the stale %s: %w", filepath.Join(pgdata, "postmaster.pid"), err)
	}
	return nil
}

// clearLogs makes dir, which holds the log the server writes while it
// runs, and removes the logs of the servers before, stopped by now.
func clearLogs(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	old, _ := filepath.Glob(filepath.Join(dir, "embedded_postgres_log*"))
	for _, f := range old {
		_ = os.Remove(f)
	}
	return nil
}

// shutdown asks the postmaster pid for a fast shutdown and waits for it
// to remove postmaster.pid; an immediate shutdown after 30 s.
func shutdown(pid int, pgdata string) error {
	gone := func(within time.Duration) bool {
		for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(pgdata, "postmaster.pid")); errors.Is(err, os.ErrNotExist) {
				return true
			}
			if !isPostgres(pid) {
				return true
			}
		}
		return false
	}
	if err := signalFast(pid); err != nil {
		return fmt.Errorf("stop the embedded database (pid %d): %w", pid, err)
	}
	if gone(30 * time.Second) {
		return nil
	}
	_ = signalImmediate(pid)
	if gone(10 * time.Second) {
		return nil
	}
	return fmt.Errorf("the embedded database (pid %d) did not stop", pid)
}

// start starts the server as r describes, in this process; run by Start
// directly, or as the unprivileged user in the helper process when the
// service runs as root.
func start(r request) error {
	binaries := r.Binaries
	if binaries == "" {
		// Extracted once per version, beside the cached archive.
		binaries = filepath.Join(r.Dir, "postgres-"+string(Version))
	}
	logf, err := os.OpenFile(filepath.Join(r.Dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cfg := embeddedpostgres.DefaultConfig().
		Version(Version).
		Port(uint32(r.Port)).
		Username(superuser).
		Password(r.Password).
		Database(Database).
		CachePath(filepath.Join(r.Dir, "cache")).
		RuntimePath(filepath.Join(r.Dir, "runtime")).
		DataPath(filepath.Join(r.Dir, "pgdata")).
		BinariesPath(binaries).
		Locale("C").
		Encoding("UTF8").
		StartTimeout(r.StartTimeout).
		Logger(logf).
		// Loopback TCP only: no Unix socket in a shared /tmp.
		StartParameters(map[string]string{"listen_addresses": "127.0.0.1", "unix_socket_directories": ""})
	if r.Repository != "" {
		cfg = cfg.BinaryRepositoryURL(strings.TrimRight(r.Repository, "/"))
	}
	if err := embeddedpostgres.NewDatabase(cfg).Start(); err != nil {
		return fmt.Errorf("start the embedded database (log: %s): %w", filepath.Join(r.Dir, "postgres.log"), err)
	}
	return nil
}

// request is what starting the server needs, passed to the helper
// process on its standard input (the password stays off its command
// line).
type request struct {
	Dir          string
	Binaries     string
	Repository   string
	Port         int
	Password     string
	StartTimeout time.Duration
	// UID and GID, when UID is not 0, are the user the helper becomes.
	UID, GID int
}
