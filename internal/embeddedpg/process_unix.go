//go:build unix

package embeddedpg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// RunAs is the user the server runs as when the service runs as root:
// PostgreSQL refuses to run as root.
const RunAs = "nobody"

func runningAsRoot() bool { return os.Geteuid() == 0 }

// lockDir takes the directory's lock for this process's life (released by
// the kernel when it dies, even by kill -9); held reports that another
// mockmcp has it.
func lockDir(path string) (unlock func(), held bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("embedded database lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("embedded database lock: %w", err)
	}
	return func() { f.Close() }, false, nil
}

// isPostgres reports whether pid is a live PostgreSQL process. Where /proc
// tells (Linux) a zombie or another program of a reused pid is not; else
// any live process is taken for one.
func isPostgres(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		_, statErr := os.Stat("/proc/self/stat")
		return statErr != nil // no /proc: trust kill
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open || len(stat) < end+3 {
		return false
	}
	return string(stat[open+1:end]) == "postgres" && stat[end+2] != 'Z'
}

// signalFast asks the postmaster for a fast shutdown (SIGINT).
func signalFast(pid int) error { return syscall.Kill(pid, syscall.SIGINT) }

// signalImmediate asks the postmaster for an immediate shutdown (SIGQUIT).
func signalImmediate(pid int) error { return syscall.Kill(pid, syscall.SIGQUIT) }

// dropPrivileges makes this process (every thread) uid:gid with no
// supplementary groups, in the helper, before anything runs PostgreSQL.
func dropPrivileges(uid, gid int) error {
	if err := syscall.Setgroups(nil); err != nil {
		return err
	}
	if err := syscall.Setgid(gid); err != nil {
		return err
	}
	return syscall.Setuid(uid)
}

// startServer starts the server in a helper process running this
// executable: as root, the helper drops to RunAs, which then owns the
// directory; and embedded-postgres's log file, which the server writes to
// for its whole life, goes in the directory rather than in the shared
// temporary one (the helper's TMPDIR).
func startServer(r request) error {
	if runningAsRoot() {
		u, err := user.Lookup(RunAs)
		if err != nil {
			return fmt.Errorf("running as root, the embedded database runs as %q, which does not exist: %w", RunAs, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := reachable(filepath.Dir(r.Dir), uid); err != nil {
			return err
		}
		if r.Binaries != "" {
			if err := reachable(r.Binaries, uid); err != nil {
				return err
			}
		}
		if err := chownTree(r.Dir, uid, gid); err != nil {
			return err
		}
		// The helper starts as root and drops to RunAs itself: the
		// executable may sit where RunAs cannot read it (a root-only
		// home, go test's build directory).
		r.UID, r.GID = uid, gid
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	body, err := json.Marshal(r)
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, HelperCommand)
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Dir = r.Dir
	// The server inherits this environment: none of the service's
	// secrets.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.Dir, "TMPDIR=" + filepath.Join(r.Dir, "log")}
	if tz, ok := os.LookupEnv("TZ"); ok {
		cmd.Env = append(cmd.Env, "TZ="+tz)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("start the embedded database: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}

// chownTree gives dir and everything in it to uid:gid.
func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := os.Lchown(path, uid, gid); err != nil {
			return fmt.Errorf("give the embedded database's files to %s: %w", RunAs, err)
		}
		return nil
	})
}

// reachable checks that uid may enter dir and every directory above it,
// which the server's data directory needs; a root-only home is the usual
// miss.
func reachable(dir string, uid int) error {
	for {
		info, err := os.Stat(dir)
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if ok && info.Mode().Perm()&0o001 == 0 && int(st.Uid) != uid {
			return fmt.Errorf("running as root, the embedded database runs as %s, which cannot enter %s (mode %v): "+
				"choose directories it can reach (--data-dir or MOCKMCP_DATA_DIR, such as /var/lib/mockmcp; MOCKMCP_POSTGRES_BINARIES)", RunAs, dir, info.Mode().Perm())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}
