// Package answertmpl fills templated answers: placeholders inside the JSON
// strings of a tool's answer that are replaced, call by call, with the
// call's arguments, stored state, the time, identifiers and random values.
//
// An answer is compiled once, when it is saved or loaded (CompileJSON), and
// rendered on each call (Template.Render). An answer without a placeholder
// compiles to a constant template that renders its original bytes, so plain
// answers cost nothing more than before. The grammar is closed: a small
// hand-written parser, no template engine and no code execution.
//
// # Grammar
//
// A placeholder is {{ expr }} inside any JSON string of the answer; object
// member names stay literal. White space inside the braces is allowed.
//
//	{{args}}              the call's arguments object
//	{{args.PATH}}         an argument: "city", "address.city", "items[0].id", "items.0.id"
//	{{state.KEY}}         a stored state value; a path may follow: {{state.cart.items[0]}}
//	{{now}}               the time of the call, RFC 3339 in UTC
//	{{now "+1h"}}         the time moved by a Go duration ("-90m", "+1h30m")
//	{{uuid}}              a version 4 UUID drawn from the design's random source
//	{{seq}}               the call's index for this tool (an integer)
//	{{random 1 100}}      an integer from 1 to 100, both included
//	{{pick "a" "b" "c"}}  one of the string literals
//	{{json args.PATH}}    the JSON text of a value, as a string (also json state.KEY)
//	{{"text"}}            the string literal itself: {{"{{"}} writes "{{"
//
// String literals are in double quotes; \" and \\ are their only escapes.
// Paths are written as scenario conditions write them: dotted member names,
// [n] for an array element, and a dotted run of digits that reads an array
// element or a member. A member whose name is the whole path ("a.b")
// wins over the nested one, as in conditions.
//
// A string that is exactly one placeholder, with nothing around it, becomes
// the typed JSON value: "{{args.count}}" renders 3, "{{args.filter}}" an
// object, "{{seq}}" a number. Otherwise each placeholder is written as text
// inside the string: a string as it is, any other value as its compact
// JSON. An argument or state value that is absent renders as null for a
// whole string and as nothing inside text; a value present as null is
// written "null" in text. {{json ...}} of an absent value is the text null.
//
// # Older placeholder forms
//
// Prompts fill {{argument}} and answers given after client questions fill
// {{id.path}}. By default every {{ opens a placeholder and a name that is
// not a helper is an error ("unknown name"). Options.Legacy leaves alone
// each string that uses no helper (IsTemplate is false), and Options.Keep
// keeps as written the placeholders whose name another filler owns, so the
// two forms can live in one answer. Under Legacy a string literal
// placeholder ({{"{{"}}) counts only in a string that uses a helper.
//
// # Errors and limits
//
// Compile errors carry the JSON path of the string in the answer
// (content[0].text) and the byte offset of the problem in the string's
// text (after its JSON escapes are decoded).
// Rendering is bounded: an answer that would grow past Input.Limit bytes is
// refused with ErrTooLarge.
package answertmpl
