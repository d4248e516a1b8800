//go:build tools

// Package tools pins the code generators this module runs with `go run`,
// so every checkout generates byte-identical code.
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
	_ "github.com/pressly/goose/v3/cmd/goose"
	_ "github.com/sqlc-dev/sqlc/cmd/sqlc"
	_ "honnef.co/go/tools/cmd/staticcheck"
)
