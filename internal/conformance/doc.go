// Package conformance checks designs served by the real service with the
// official MCP tooling: the conformance suite (@modelcontextprotocol/conformance)
// and the TypeScript SDK client. Its tests need Node 22 and the packages
// pinned in .ci/conformance; `make conformance` installs them and runs the
// tests, which skip without them.
package conformance
