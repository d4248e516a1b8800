package outbound

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// CheckURL validates a URL a user gave as a request target, so that a bad
// one is refused up front with a clear message (fit to show the user)
// instead of failing later inside a run: it must be an absolute http or
// https URL with a host and no user information. It does not resolve the
// host: only the connection-time check is safe from DNS rebinding, so
// judging the address here would add nothing but a false sense of safety.
// The messages never repeat the URL, which may carry secrets.
func CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error would quote the URL
		}
		return fmt.Errorf("URL is malformed: %v", err)
	}
	switch {
	case u.Scheme == "":
		return errors.New("URL must be absolute, starting with http:// or https://")
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("URL scheme must be http or https, not %q", u.Scheme)
	case u.Opaque != "":
		return errors.New("URL must have the form " + u.Scheme + "://host/path")
	case u.User != nil:
		return errors.New("URL must not contain user information: send credentials in a header")
	case u.Hostname() == "":
		return errors.New("URL has no host")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("URL port must be between 1 and 65535")
		}
	}
	return nil
}
