// Package schema holds the goose migrations, which are also sqlc's schema,
// embedded so the binary migrates its database by itself.
package schema

import "embed"

// Migrations holds the numbered goose migration files.
//
//go:embed *.sql
var Migrations embed.FS
