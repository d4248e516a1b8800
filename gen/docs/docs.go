// Package docs embeds the built files of the OpenAPI viewer (Swagger UI)
// that the /docs page loads, so that the page needs no other host. `make
// generate` copies them here from the npm package pinned in package.json
// and package-lock.json; this file is the only one written by hand.
package docs

import "embed"

// Files holds swagger-ui-bundle.js, swagger-ui.css, and the viewer's
// license and notice.
//
//go:embed swagger-ui-bundle.js swagger-ui.css LICENSE.swagger-ui NOTICE.swagger-ui
var Files embed.FS
