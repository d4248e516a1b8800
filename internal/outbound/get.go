package outbound

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// ErrStatus is wrapped by Get's error when the target answers with a
// status other than 2xx.
var ErrStatus = errors.New("outbound: the server did not answer 2xx")

// StatusError is Get's error for an answer other than 2xx. It keeps the
// code only: the reason phrase is the target's own text.
type StatusError struct{ Code int }

func (e *StatusError) Error() string {
	return fmt.Sprintf("%v: the server answered %d %s", ErrStatus, e.Code, http.StatusText(e.Code))
}

func (e *StatusError) Unwrap() error { return ErrStatus }

// Get fetches url with client, sending accept, and returns the body of a
// 2xx answer. A body over max bytes is an error wrapping ErrBodyTooLarge;
// another status, one wrapping ErrStatus and naming it.
func Get(ctx context.Context, client *http.Client, url, accept string, max int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, &StatusError{Code: resp.StatusCode}
	}
	body, truncated, err := ReadBody(resp.Body, max)
	if truncated {
		return nil, ErrBodyTooLarge
	}
	return body, err
}
