// Package console serves the browser console at GET /: a single page
// (gen/console, built from the TypeScript of web/ over the generated types
// of gen/ts) that signs in with the session cookie and works through the
// REST API. Its files are embedded and its Content-Security-Policy allows
// this origin only, without inline code. A request for / that does not
// ask for HTML (an API client's) is answered by the REST API as before.
package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/gen/console"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// AssetsPath is where the page's files are served, AssetsPath + name.
const AssetsPath = "/console/"

// CSP is the page's Content-Security-Policy: scripts, styles and requests
// to this origin alone, no inline code, and the page may not be framed.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type file struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the page (GET /) and its files (GET AssetsPath+name).
type Handler struct {
	files map[string]file // by name under AssetsPath; "" is the page
}

// New returns the handler over the embedded files.
func New() *Handler {
	h := &Handler{files: map[string]file{}}
	h.add("", "index.html", "text/html; charset=utf-8")
	for _, name := range []string{"app.js", "app.css", "icon.svg", "LICENSE.preact", "LICENSE.openapi-fetch"} {
		h.add(name, name, "")
	}
	return h
}

func (h *Handler) add(name, embedded, contentType string) {
	body, err := fs.ReadFile(console.Files, embedded)
	if err != nil {
		panic(err) // the names are fixed at build time
	}
	if contentType == "" {
		contentType = mime.TypeByExtension(path.Ext(name))
	}
	if contentType == "" {
		contentType = "text/plain; charset=utf-8"
	}
	sum := sha256.Sum256(body)
	h.files[name] = file{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// ForBrowsers sends the requests for / that ask for HTML (a browser's
// navigation: Accept: text/html, …) to page, and every other one to api,
// so that API clients get the REST API's answer for / as before.
func ForBrowsers(page, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept")
		for _, v := range r.Header.Values("Accept") {
			if strings.Contains(v, "text/html") {
				page.ServeHTTP(w, r)
				return
			}
		}
		api.ServeHTTP(w, r)
	})
}

// ServeHTTP answers the page (/) or one of its files (AssetsPath+name).
// Each answer is revalidated by its ETag, so a new build's files are seen
// at once.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		problem.Write(w, problem.New(http.StatusMethodNotAllowed, "the console is read with GET"))
		return
	}
	name := "" // the page
	if r.URL.Path != "/" {
		var asset bool
		name, asset = strings.CutPrefix(r.URL.Path, AssetsPath)
		if _, found := h.files[name]; !asset || !found || name == "" {
			problem.Write(w, problem.New(http.StatusNotFound, "no such file under "+AssetsPath))
			return
		}
	}
	f := h.files[name]
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("ETag", f.etag)
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
