// Package console embeds the built console served at / (index.html, icon.svg,
// app.js, app.css and the licenses of the libraries bundled in app.js), so
// that the page needs no other host. `make generate` builds them from
// internal/console/web with the packages pinned in its package-lock.json;
// this file is the only one written by hand.
package console

import "embed"

// Files holds the built console.
//
//go:embed index.html app.js app.css icon.svg LICENSE.preact LICENSE.openapi-fetch
var Files embed.FS
