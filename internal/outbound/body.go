package outbound

import (
	"errors"
	"fmt"
	"io"
)

// ErrBodyTooLarge is what reading a response body past Options.MaxBody
// fails with (test it with errors.Is). ReadBody turns it into a truncated
// result instead.
var ErrBodyTooLarge = errors.New("outbound: response body too large")

// cappedBody lets limit bytes of a response body through and fails the read
// after them if the body has more, so that a body of exactly limit bytes
// still ends with a plain io.EOF.
type cappedBody struct {
	rc    io.ReadCloser
	left  int64
	limit int64
	err   error // sticky once the body has ended or failed
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if b.left > 0 {
		if int64(len(p)) > b.left {
			p = p[:b.left]
		}
		n, err := b.rc.Read(p)
		b.left -= int64(n)
		b.err = err
		return n, err
	}
	// At the limit: one more byte tells a larger body from one that ends
	// here. It is read and dropped, never returned.
	var one [1]byte
	for range 100 {
		n, err := b.rc.Read(one[:])
		switch {
		case n > 0:
			b.err = fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, b.limit)
		case err != nil:
			b.err = err
		default:
			continue
		}
		return 0, b.err
	}
	b.err = io.ErrNoProgress
	return 0, b.err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// ReadBody reads at most limit bytes of r (DefaultMaxBody when limit is zero
// or less) and reports whether r had more. A body that ends exactly at the
// limit is not truncated. A response body from NewClient's client that hit
// Options.MaxBody counts as truncated, not as an error. On another error,
// body holds what was read before it.
func ReadBody(r io.Reader, limit int64) (body []byte, truncated bool, err error) {
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	body, err = io.ReadAll(io.LimitReader(r, limit))
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		return body, true, nil
	case err != nil:
		return body, false, err
	case int64(len(body)) < limit:
		return body, false, nil // r ended before the limit
	}
	var one [1]byte
	n, err := io.ReadFull(r, one[:])
	switch {
	case n > 0, errors.Is(err, ErrBodyTooLarge):
		return body, true, nil
	case errors.Is(err, io.EOF):
		return body, false, nil
	default:
		return body, false, err
	}
}
