// Package docpage serves the API reference at GET /docs: the service's
// OpenAPI document (GET /api/openapi.json) rendered by Swagger UI, whose
// files the binary embeds (gen/docs), so that the page works offline and
// loads nothing from another host; its Content-Security-Policy allows this
// origin only.
package docpage

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/gen/docs"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// Path is where the page is served; its files are under Path + "/".
const Path = "/docs"

// CSP is the page's Content-Security-Policy: scripts, styles, the
// document and everything else from this origin alone (images also as
// data: URIs, which the viewer's stylesheet uses for its icons), and the
// page may not be framed.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed page
var page embed.FS

type file struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves GET /docs and the files it loads, GET /docs/{name}.
type Handler struct {
	files map[string]file // by name under /docs/; "" is the page
}

// New returns the handler over the embedded files.
func New() *Handler {
	h := &Handler{files: map[string]file{}}
	h.add("", mustRead(page, "page/index.html"), "text/html; charset=utf-8")
	h.add("init.js", mustRead(page, "page/init.js"), "")
	for _, name := range []string{"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE.swagger-ui", "NOTICE.swagger-ui"} {
		h.add(name, mustRead(docs.Files, name), "")
	}
	return h
}

func (h *Handler) add(name string, body []byte, contentType string) {
	if contentType == "" {
		contentType = mime.TypeByExtension(path.Ext(name))
	}
	if contentType == "" {
		contentType = "text/plain; charset=utf-8"
	}
	sum := sha256.Sum256(body)
	h.files[name] = file{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// mustRead reads an embedded file; the names are fixed at build time.
func mustRead(fsys fs.FS, name string) []byte {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		panic(err)
	}
	return b
}

// ServeHTTP answers the page (Path) or one of its files (Path/name). Each
// answer is revalidated by its ETag, so a new build's files are seen at once.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		problem.Write(w, problem.New(http.StatusMethodNotAllowed, "the documentation is read with GET"))
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, Path)
	if ok && rest == "/" {
		// The page's relative URLs resolve from /docs, not /docs/.
		w.Header().Set("Location", "../docs")
		w.WriteHeader(http.StatusMovedPermanently)
		return
	}
	name, sub := strings.CutPrefix(rest, "/") // "" for the page itself
	f, found := h.files[name]
	if !ok || !found || sub == (rest == "") {
		problem.Write(w, problem.New(http.StatusNotFound, "no such file under /docs"))
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("ETag", f.etag)
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("Referrer-Policy", "no-referrer")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
