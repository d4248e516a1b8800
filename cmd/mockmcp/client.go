package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// The service the REST commands talk to, and the key they send, unless
// --url and --api-key say otherwise.
const (
	envURL     = "MOCKMCP_URL"
	envAPIKey  = "MOCKMCP_API_KEY"
	defaultURL = "http://localhost:8080"
)

// apiFlags are the --url and --api-key flags of a command that talks to
// the REST API. Their defaults are read from the environment when the
// command runs, never shown in --help: the key is a secret.
type apiFlags struct {
	url, key string
}

// add registers the flags on cmd.
func (f *apiFlags) add(cmd *cobra.Command) { f.addAs(cmd, "url") }

// addAs registers the flags on cmd, the service's URL as --urlFlag: a
// command whose own --url names something else calls it another name.
func (f *apiFlags) addAs(cmd *cobra.Command, urlFlag string) {
	cmd.Flags().StringVar(&f.url, urlFlag, "", "the service's base URL (default $"+envURL+", else "+defaultURL+")")
	cmd.Flags().StringVar(&f.key, "api-key", "", "a full-scope platform API key (default $"+envAPIKey+")")
}

// client is the REST client the flags and the environment describe.
func (f *apiFlags) client() (*apiClient, error) {
	base := cmp.Or(f.url, os.Getenv(envURL), defaultURL)
	key := cmp.Or(f.key, os.Getenv(envAPIKey))
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("the service URL %q is not an http or https URL (--url or %s)", base, envURL)
	}
	if key == "" {
		return nil, usagef("an API key is required: --api-key or %s (a full-scope key; see `mockmcp keys create --help`)", envAPIKey)
	}
	return &apiClient{base: strings.TrimRight(base, "/"), key: key, http: &http.Client{}}, nil
}

// apiClient calls the service's REST API with a key.
type apiClient struct {
	base, key string
	http      *http.Client
}

// request is one call of the REST API.
type request struct {
	method, path string
	accept       string // application/json when empty
	contentType  string // of body; application/json when empty
	body         []byte // nil: no body
}

// do sends r and decodes a 2xx answer into out (raw bytes when out is a
// *[]byte, nothing when out is nil); any other answer is an *apiError.
func (c *apiClient) do(ctx context.Context, r request, out any) error {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Accept", cmp.Or(r.accept, "application/json"))
	if r.body != nil {
		req.Header.Set("Content-Type", cmp.Or(r.contentType, "application/json"))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// *url.Error repeats the method and URL.
		var urlErr *url.Error
		if errors.As(err, &urlErr) {
			err = urlErr.Err
		}
		return fmt.Errorf("%s %s: %w", r.method, c.base+r.path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", r.method, c.base+r.path, err)
	}
	if resp.StatusCode/100 != 2 {
		return newAPIError(r.method, r.path, resp, raw)
	}
	switch out := out.(type) {
	case nil:
		return nil
	case *[]byte:
		*out = raw
		return nil
	default:
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", r.method, r.path, err)
		}
		return nil
	}
}

// jsonBody is v encoded as a request body.
func jsonBody(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the commands' own request types are encoded
	}
	return b
}

// apiError is an answer other than 2xx: the service's problem+json when it
// sent one.
type apiError struct {
	Method, Path string
	Status       int
	Title        string       `json:"title"`
	Detail       string       `json:"detail"`
	Errors       []fieldError `json:"errors"`
	body         string       // the answer when it is not a problem
}

// fieldError is one entry of a problem's errors.
type fieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func newAPIError(method, path string, resp *http.Response, raw []byte) *apiError {
	e := &apiError{Method: method, Path: path, Status: resp.StatusCode}
	if json.Unmarshal(raw, e) != nil || (e.Title == "" && e.Detail == "") {
		e.body = strings.TrimSpace(string(raw))
	}
	if e.Title == "" {
		e.Title = http.StatusText(resp.StatusCode)
	}
	return e
}

// Error reads `POST /api/servers/apply: 422 Unprocessable Entity: name:
// must not be blank`: the route, the status and what the service said.
func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Problem())
}

// Problem is what the service said, without the route: the field errors
// when there are any, else the detail.
func (e *apiError) Problem() string {
	if len(e.Errors) > 0 {
		msgs := make([]string, len(e.Errors))
		for i, fe := range e.Errors {
			msgs[i] = fe.Field + ": " + fe.Message
		}
		return e.Title + ": " + strings.Join(msgs, "; ")
	}
	return e.Title + ": " + cmp.Or(e.Detail, e.body)
}
