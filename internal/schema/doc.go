// Package schema compiles the JSON Schemas that tools declare and checks
// tools/call arguments against them.
//
// A tool's input_schema and output_schema are stored verbatim; this package
// decides, when one is saved, whether it is acceptable, and produces the
// violations reported when a call does not satisfy it.
//
// Compile is strict where a lenient compiler would fail late or leak data:
//
//   - The dialect is Draft 7 unless the top-level "$schema" names Draft 4, 6,
//     7, 2019-09 or 2020-12. Any other "$schema" is rejected rather than
//     silently compiled as Draft 7.
//   - Nothing is ever fetched: a "$ref" may only point inside the schema
//     itself. Every reference is resolved when the schema is compiled, so a
//     dangling one is a save-time error, not a silently ignored keyword at
//     call time.
//   - Each schema is compiled in isolation, so an "$id" declared by one
//     organization's schema can never be referenced from another's.
//   - Schemas are also checked against their own dialect's meta-schema (the
//     library embeds Draft 4's, 6's and 7's; this package embeds 2019-09's
//     and 2020-12's), so mistakes such as "type": "strin" are caught when
//     the schema is saved, at the keyword's place.
//   - Each subschema enforces only the keywords its dialect defines: the
//     library applies every keyword it knows, so the others are removed
//     from the copy it compiles (keywords.go).
//
// A compiled Schema is safe for concurrent use; Validate is the hot path of
// the MCP endpoint. A schema of common keywords gets a fast path (fast.go)
// that accepts a satisfying value without allocating and without the
// library's compiled tree, which such a schema does not keep; every value
// it does not accept is checked by the library, so the violations reported
// are always the library's.
package schema
