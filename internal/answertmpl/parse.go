package answertmpl

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// helperNames are the names the grammar knows, in the order an error
// lists them.
var helperNames = []string{"args", "state", "now", "uuid", "seq", "random", "pick", "json"}

// op is what an expression computes.
type op uint8

const (
	opArgs op = iota + 1
	opState
	opNow
	opUUID
	opSeq
	opRandom
	opPick
	opJSON
)

// expr is a compiled placeholder.
type expr struct {
	op op
	// ref is the value args and state read (also json's operand).
	ref ref
	// shift is now's offset.
	shift time.Duration
	// lo and hi bound random.
	lo, hi int64
	// choices are pick's literals.
	choices []string
}

// ref is a reference to an argument or a state value.
type ref struct {
	state bool
	// key is the state key, or the whole argument path (a member named
	// like the whole path wins, as in conditions); "" for {{args}}.
	key string
	// segs are the steps after the state key, or the argument path's.
	segs []jsonvalue.Segment
}

// token is one word or string literal of a placeholder.
type token struct {
	text   string // a word as written, a literal unescaped
	quoted bool
	offset int
}

// placeholder is a placeholder as parsed: its tokens and where it ends.
type placeholder struct {
	start, end int // s[start:end] is "{{ ... }}"
	tokens     []token
}

// scan reads the placeholder opening at s[start:] ("{{") into tokens.
func scan(s string, start int) (placeholder, *Error) {
	p := placeholder{start: start}
	i := start + 2
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		switch {
		case i >= len(s):
			return p, errorf(start, "unclosed {{: want }} after the expression")
		case strings.HasPrefix(s[i:], "}}"):
			p.end = i + 2
			if len(p.tokens) == 0 {
				return p, errorf(start, "empty placeholder")
			}
			return p, nil
		case s[i] == '"':
			text, next, err := literal(s, i)
			if err != nil {
				return p, err
			}
			p.tokens = append(p.tokens, token{text: text, quoted: true, offset: i})
			i = next
		case s[i] == '{' || s[i] == '}':
			return p, errorf(i, "unexpected %q in a placeholder", s[i])
		default:
			j := i
			for j < len(s) && !isSpace(s[j]) && s[j] != '"' && s[j] != '{' && s[j] != '}' {
				j++
			}
			p.tokens = append(p.tokens, token{text: s[i:j], offset: i})
			i = j
		}
	}
}

// literal reads the string literal opening at s[i] == '"' and returns its
// text and the offset past its closing quote.
func literal(s string, i int) (string, int, *Error) {
	var b []byte
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			if b == nil {
				return s[i+1 : j], j + 1, nil
			}
			return string(b), j + 1, nil
		case '\\':
			if j+1 >= len(s) || (s[j+1] != '"' && s[j+1] != '\\') {
				return "", 0, errorf(j, `unknown escape in a string literal: only \" and \\ are allowed`)
			}
			if b == nil {
				b = append(b, s[i+1:j]...)
			}
			j++
			b = append(b, s[j])
		default:
			if b != nil {
				b = append(b, s[j])
			}
		}
	}
	return "", 0, errorf(i, "unclosed string literal")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// root is the name a word starts with: up to its first '.' or '['.
func root(word string) string {
	if i := strings.IndexAny(word, ".["); i >= 0 {
		return word[:i]
	}
	return word
}

// parseExpr compiles the tokens of a placeholder whose first token is a
// word naming a helper.
func parseExpr(toks []token) (*expr, *Error) {
	head, args := toks[0], toks[1:]
	name := root(head.text)
	if !slices.Contains(helperNames, name) {
		return nil, unknownName(head.offset, name)
	}
	if name != "args" && name != "state" && head.text != name {
		return nil, errorf(head.offset+len(name), "%s has no members: write {{%s}}", name, name)
	}
	switch name {
	case "args", "state":
		if len(args) > 0 {
			return nil, errorf(args[0].offset, "%s takes no arguments", name)
		}
		r, err := parseRef(head)
		if err != nil {
			return nil, err
		}
		o := opArgs
		if r.state {
			o = opState
		}
		return &expr{op: o, ref: r}, nil
	case "now":
		return parseNow(args)
	case "uuid", "seq":
		if len(args) > 0 {
			return nil, errorf(args[0].offset, "%s takes no arguments", name)
		}
		o := opUUID
		if name == "seq" {
			o = opSeq
		}
		return &expr{op: o}, nil
	case "random":
		return parseRandom(head, args)
	case "pick":
		return parsePick(head, args)
	case "json":
		if len(args) != 1 || args[0].quoted || (root(args[0].text) != "args" && root(args[0].text) != "state") {
			at := head.offset
			if len(args) > 0 {
				at = args[0].offset
			}
			return nil, errorf(at, "json takes one value: json args.PATH or json state.KEY")
		}
		r, err := parseRef(args[0])
		if err != nil {
			return nil, err
		}
		return &expr{op: opJSON, ref: r}, nil
	}
	return nil, unknownName(head.offset, name)
}

// parseRef compiles "args", "args.PATH" or "state.KEY[.PATH]".
func parseRef(t token) (ref, *Error) {
	name := root(t.text)
	rest := t.text[len(name):]
	if name == "args" && rest == "" {
		return ref{}, nil
	}
	if rest == "" || rest[0] != '.' {
		if name == "state" {
			return ref{}, errorf(t.offset, "state needs a key: {{state.KEY}}")
		}
		return ref{}, errorf(t.offset+len(name), "args is an object: write args.NAME")
	}
	path := rest[1:]
	at := t.offset + len(name) + 1
	segs, err := jsonvalue.ParsePath(path, jsonvalue.PathSyntax{})
	if err != nil {
		return ref{}, errorf(at, "path %q %v", path, err)
	}
	if name == "state" {
		return ref{state: true, key: path, segs: segs}, nil
	}
	return ref{key: path, segs: segs}, nil
}

func parseNow(args []token) (*expr, *Error) {
	switch {
	case len(args) == 0:
		return &expr{op: opNow}, nil
	case len(args) > 1:
		return nil, errorf(args[1].offset, `now takes at most one duration: now "+1h"`)
	case !args[0].quoted:
		return nil, errorf(args[0].offset, `now takes a quoted duration: now "+1h"`)
	}
	d, err := time.ParseDuration(args[0].text)
	if err != nil {
		return nil, errorf(args[0].offset, `now: invalid duration %q: want a Go duration such as "+1h" or "-30m"`, args[0].text)
	}
	return &expr{op: opNow, shift: d}, nil
}

func parseRandom(head token, args []token) (*expr, *Error) {
	if len(args) != 2 {
		at := head.offset
		if len(args) > 2 {
			at = args[2].offset
		}
		return nil, errorf(at, "random takes two integers: random MIN MAX")
	}
	var bounds [2]int64
	for i, a := range args {
		n, err := strconv.ParseInt(a.text, 10, 64)
		if a.quoted || err != nil {
			return nil, errorf(a.offset, "random takes integers: %q is not one", a.text)
		}
		bounds[i] = n
	}
	if bounds[0] > bounds[1] {
		return nil, errorf(args[0].offset, "random: the minimum %d is greater than the maximum %d", bounds[0], bounds[1])
	}
	return &expr{op: opRandom, lo: bounds[0], hi: bounds[1]}, nil
}

func parsePick(head token, args []token) (*expr, *Error) {
	if len(args) == 0 {
		return nil, errorf(head.offset, `pick takes one or more string literals: pick "a" "b"`)
	}
	x := &expr{op: opPick, choices: make([]string, len(args))}
	for i, a := range args {
		if !a.quoted {
			return nil, errorf(a.offset, "pick takes string literals: %s is not quoted", a.text)
		}
		x.choices[i] = a.text
	}
	return x, nil
}
