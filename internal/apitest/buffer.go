package apitest

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer collects what a service, a loader or a process writes from
// several goroutines, for the test to read while they run.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Lines are the lines written so far, without the last line's newline.
func (b *Buffer) Lines() []string {
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}
