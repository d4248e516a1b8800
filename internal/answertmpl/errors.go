package answertmpl

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooLarge is the error Render returns, wrapped with the limit, when
// the rendered answer would exceed the limit.
var ErrTooLarge = errors.New("the rendered answer exceeds the size limit")

// Error is a placeholder that does not compile.
type Error struct {
	// Path is the JSON path of the string in the document, such as
	// "content[0].text"; "" for the document itself or a lone string.
	Path string
	// Offset is the byte offset of the problem in the string.
	Offset int
	// Message says what is wrong, such as `unknown name "arg" (did you
	// mean args?)`.
	Message string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("offset %d: %s", e.Offset, e.Message)
	}
	return fmt.Sprintf("%s: offset %d: %s", e.Path, e.Offset, e.Message)
}

// Errors are the problems of a document, one per string at most, in
// document order. CompileJSON returns them as its error.
type Errors []*Error

func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// maxErrors bounds the problems CompileJSON reports: past it the document
// has one broken habit, not that many distinct mistakes.
const maxErrors = 20

func errorf(offset int, format string, args ...any) *Error {
	return &Error{Offset: offset, Message: fmt.Sprintf(format, args...)}
}

// unknownName is the error for a placeholder naming no helper.
func unknownName(offset int, name string) *Error {
	if s := suggest(name, 2); s != "" {
		return errorf(offset, "unknown name %q (did you mean %s?)", name, s)
	}
	return errorf(offset, "unknown name %q: want one of %s", name, strings.Join(helperNames, ", "))
}

// aliases are names people reach for that mean args.
var aliases = map[string]string{"arguments": "args", "argument": "args", "params": "args", "input": "args"}

// suggest returns the helper name that name most likely misspells: a
// case-insensitive match, an alias, or one within maxDist edits (one for
// the three-letter names, which too many words are near); "" if none.
func suggest(name string, maxDist int) string {
	lower := strings.ToLower(name)
	if a, ok := aliases[lower]; ok && maxDist > 1 {
		return a
	}
	for _, h := range helperNames {
		if lower == h {
			return h
		}
	}
	for _, h := range helperNames {
		limit := maxDist
		if len(h) <= 3 {
			limit = min(limit, 1)
		}
		if len(name) >= 2 && distance(lower, h, limit) <= limit {
			return h
		}
	}
	return ""
}

// distance is the Levenshtein distance of a and b, or limit+1 when it is
// larger than limit (or the names are long: names are short).
func distance(a, b string, limit int) int {
	if len(a) > 32 || len(b) > 32 || abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	var prev, cur [33]int
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Problems are the compile errors err holds, one per string (a single
// *Error, or each of Errors); nil for any other error.
func Problems(err error) []*Error {
	var all Errors
	var one *Error
	switch {
	case errors.As(err, &all):
		return all
	case errors.As(err, &one):
		return []*Error{one}
	}
	return nil
}
