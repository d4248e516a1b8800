// Package conformance checks designs served by the real service with the
// official MCP tooling: the conformance suite (@modelcontextprotocol/conformance),
// run at the requirements of the latest legacy revision and of the modern one,
// and the TypeScript SDK clients (1.x, and v2 in both eras). Its tests need
// Node 22 and the packages pinned in .ci/conformance; `make conformance`
// installs them and runs the tests, which skip without them.
package conformance
