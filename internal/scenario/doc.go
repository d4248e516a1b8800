// Package scenario decides which mock scenario of a tool answers a
// tools/call, and checks scenario conditions when they are saved.
//
// A tool's scenarios are tried in order against the call's arguments and the
// first whose condition matches wins. Conditions are compiled once, when a
// scenario is saved or loaded, so that matching on the MCP endpoint's hot path
// does no parsing, no regexp compilation and no allocation.
//
// # Condition forms
//
// A condition is one of:
//
//   - absent, null or {}: matches every call. This is the fallback scenario.
//   - an operator object {"field": "...", "operator": "...", "value": ...}.
//     An object is read this way when one of its members is named "field"
//     or "operator" (in any case) and another member is too, or is a
//     misspelling of one of them: one edit from "field", two from
//     "operator" (an edit inserts, deletes or changes a letter, or swaps
//     two neighbours). Such an object must have exactly the members
//     "field" and "operator" (both strings) and "value" where the operator
//     takes one: any other member is refused, naming it and the member it
//     misspells ("unknown key 'oprator' (did you mean operator?)"), rather
//     than read as an equality on an argument of that name.
//   - a plain object of field/value pairs: any other object. It matches when
//     the argument at every field deep-equals the paired value.
//
// Because of that rule a plain object cannot require arguments named both
// "field" and "operator" (or a misspelling of one beside the other); use
// the operator form for one of them
// ({"field": "operator", "operator": "equals", "value": ...}). A plain
// object may require "field", or "operator", alongside any other
// argument: {"field": "status", "values": [...]}.
//
// # Field paths
//
// A field is a path into the arguments object: "address.city" reads the member
// "city" of the object "address"; "items[0].id" and "items.0.id" read the
// first element of the array "items". A dot-separated segment made only of
// digits (without leading zeros) indexes an array when the value there is an
// array and is an ordinary key when it is an object; a bracketed index only
// ever indexes an array. Negative indexes are not supported.
//
// If the arguments object has a top-level member whose name is the whole path
// (for example a member literally named "a.b"), that member wins over the
// nested reading. Only the whole path is tried literally, and only at the top
// level. Keys are case-sensitive.
//
// # Equality
//
// Values compare as JSON values: objects member by member with no extra
// members on either side, arrays element by element, strings byte for byte
// (case-sensitive), numbers by numeric value (3 equals 3.0; integers beyond
// 2^53 compare exactly, so 9007199254740993 does not equal
// 9007199254740992), and null equals only null. An absent field equals
// nothing, not even null: a null value requires the argument to be present
// and null. Arguments may hold numbers as float64 or json.Number; condition
// values are decoded by jsonvalue's rule (float64, and json.Number for an
// integer beyond 2^53), and so should arguments be (see jsonvalue.Decode).
// gt, gte, lt and lte compare as float64.
//
// # Operators
//
// Operator names are case-sensitive. Any operator whose argument is absent or
// of the wrong type does not match, with the exceptions of not_equals and
// not_exists, which match an absent argument.
//
//   - equals, not_equals: deep equality as above.
//   - contains: a string argument contains the string value as a substring, or
//     an array argument has an element equal to the value.
//   - starts_with, ends_with: string argument, string value.
//   - matches: the RE2 regular expression in value matches somewhere in the
//     string argument (unanchored; use ^ and $ to anchor).
//   - exists: present and not null. not_exists: absent or null.
//   - gt, gte, lt, lte: numeric argument compared with the numeric value.
//     Strings holding digits are not numbers.
//   - in: value is an array and the argument equals one of its elements.
package scenario
