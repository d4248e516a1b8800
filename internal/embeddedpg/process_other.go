//go:build !unix

package embeddedpg

import (
	"errors"
	"os"
)

// RunAs is unused where there is no root.
const RunAs = ""

func runningAsRoot() bool { return false }

// lockDir takes no lock: two services on one directory are not detected.
func lockDir(string) (unlock func(), held bool, err error) { return func() {}, false, nil }

func isPostgres(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p != nil
}

func signalFast(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Signal(os.Interrupt)
}

func signalImmediate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func startServer(r request) error { return start(r) }

func dropPrivileges(int, int) error { return errors.ErrUnsupported }
