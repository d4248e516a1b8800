package answertmpl

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// Options tune what Compile and CompileJSON accept. The zero Options is
// strict: every {{ opens a placeholder and a name that is not a helper
// is an error.
type Options struct {
	// Legacy leaves alone each string that uses no helper (IsTemplate is
	// false): it stays literal text, braces and all, so the older
	// {{argument}} and {{id.path}} forms pass through untouched. Such a
	// string is still refused when a placeholder's name is a near miss
	// of a helper's ("Args", "arg.city", "stat.x"), which is a typo far
	// more often than an older form.
	Legacy bool
	// Keep reports the names whose placeholders another filler owns (the
	// ids of the questions an answer follows): {{name...}} is kept as
	// written, even where name is also a helper's. nil keeps none.
	Keep func(name string) bool
	// Typed reports the JSON paths (as errors name them: "", "n",
	// "structuredContent.items[0]") where a string that is exactly one
	// placeholder renders the typed value; elsewhere it renders text, so
	// that a member the protocol wants a string ("text", "message") stays
	// one. nil: everywhere.
	Typed func(path string) bool
}

// Template is a compiled answer. It is immutable and safe for concurrent
// use.
type Template struct {
	// raw is the whole rendering of a constant template (no placeholder),
	// with its capacity cut to its length so that appending to it copies.
	raw []byte
	// segs are the pieces of a template with placeholders, nil otherwise.
	segs []seg
	// size is the bytes of literal text, what a rendering needs at least.
	size int
	// random, seq and state tell that rendering draws on the random
	// source, reads Input.Seq and reads Input.State.
	random, seq, state bool
}

// seg is a piece of a template: literal JSON bytes, or a placeholder that
// is a whole string (a typed value) or text inside a string.
type seg struct {
	lit   []byte
	x     *expr
	whole bool
}

// Constant reports whether the template has no placeholder: it renders
// the same bytes on every call.
func (t *Template) Constant() bool { return t.segs == nil }

// Size is the bytes of the template's literal text: what a rendering
// holds at least, a fair first guess of its size.
func (t *Template) Size() int { return t.size }

// UsesRandom reports whether rendering draws on Input.Rand ({{uuid}},
// {{random}}, {{pick}}), so that a caller can make a source only then.
func (t *Template) UsesRandom() bool { return t.random }

// UsesSeq reports whether rendering reads Input.Seq, so that a caller
// counts the tool's calls only then.
func (t *Template) UsesSeq() bool { return t.seq }

// UsesState reports whether rendering reads Input.State.
func (t *Template) UsesState() bool { return t.state }

// Compile compiles s, the text of one JSON string, strictly (the zero
// Options). The template renders the JSON string, or the typed value when
// s is one placeholder.
func Compile(s string) (*Template, error) { return Options{}.Compile(s) }

// CompileJSON compiles every string of the JSON document raw strictly
// (the zero Options); see Options.CompileJSON.
func CompileJSON(raw json.RawMessage) (*Template, error) { return Options{}.CompileJSON(raw) }

// Compile compiles s, the text of one JSON string, under o. The error is
// an *Error.
func (o Options) Compile(s string) (*Template, error) {
	var b builder
	if err := o.compileString(&b, s, o.Typed == nil || o.Typed("")); err != nil {
		return nil, err
	}
	return b.template(), nil
}

// CompileJSON compiles every string value of the JSON document raw under
// o; object member names stay literal. A document without a placeholder
// compiles to a constant template that renders raw itself. The error is
// Errors, naming the path of each string that does not compile, or an
// *Error when raw is not valid JSON.
func (o Options) CompileJSON(raw json.RawMessage) (*Template, error) {
	if !json.Valid(raw) {
		return nil, &Error{Message: "not valid JSON"}
	}
	if !bytes.Contains(raw, []byte("{{")) && !bytes.Contains(raw, []byte(`\u007`)) {
		return constant(raw), nil
	}
	var w walker
	w.walk(o, raw)
	if len(w.errs) > 0 {
		return nil, w.errs
	}
	t := w.b.template()
	if t.Constant() && bytes.Equal(t.raw, raw) {
		return constant(raw), nil
	}
	return t, nil
}

func constant(raw []byte) *Template { return &Template{raw: raw[:len(raw):len(raw)]} }

// builder gathers the pieces of a template, merging adjacent literals.
type builder struct {
	segs []seg
	lit  []byte
	// exprs counts the placeholders; random, seq and state tell what
	// they read.
	exprs              int
	random, seq, state bool
}

func (b *builder) text(p []byte) { b.lit = append(b.lit, p...) }

func (b *builder) expr(x *expr, whole bool) {
	b.flush()
	b.segs = append(b.segs, seg{x: x, whole: whole})
	b.exprs++
	switch {
	case x.op == opUUID || x.op == opRandom || x.op == opPick:
		b.random = true
	case x.op == opSeq:
		b.seq = true
	case x.ref.state:
		b.state = true
	}
}

func (b *builder) flush() {
	if len(b.lit) > 0 {
		b.segs = append(b.segs, seg{lit: b.lit[:len(b.lit):len(b.lit)]})
		b.lit = nil
	}
}

func (b *builder) template() *Template {
	if b.exprs == 0 {
		return constant(b.lit)
	}
	b.flush()
	t := &Template{segs: b.segs, random: b.random, seq: b.seq, state: b.state}
	for _, s := range b.segs {
		t.size += len(s.lit)
	}
	return t
}

// compileString adds the JSON string s to b: quoted text, or one typed
// value when s is exactly one placeholder.
func (o Options) compileString(b *builder, s string, typed bool) *Error {
	if o.Legacy && !IsTemplate(s) {
		if err := o.nearMiss(s); err != nil {
			return err
		}
		b.text(appendQuoted(nil, s))
		return nil
	}
	if typed && strings.HasPrefix(s, "{{") {
		if p, err := scan(s, 0); err == nil && p.end == len(s) {
			x, lit, err := o.resolve(s, p)
			if err != nil {
				return err
			}
			if x != nil {
				b.expr(x, true)
				return nil
			}
			b.text(appendQuoted(nil, lit))
			return nil
		}
	}
	b.text([]byte{'"'})
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			b.text(appendEscaped(nil, s[i:]))
			break
		}
		b.text(appendEscaped(nil, s[i:i+j]))
		p, err := scan(s, i+j)
		if err != nil {
			return err
		}
		x, lit, err := o.resolve(s, p)
		if err != nil {
			return err
		}
		if x != nil {
			b.expr(x, false)
		} else {
			b.text(appendEscaped(nil, lit))
		}
		i = p.end
	}
	b.text([]byte{'"'})
	return nil
}

// resolve compiles a scanned placeholder: an expression, or else the
// literal text it stands for (a kept placeholder as written, or a string
// literal).
func (o Options) resolve(s string, p placeholder) (*expr, string, *Error) {
	head := p.tokens[0]
	if head.quoted {
		if len(p.tokens) > 1 {
			return nil, "", errorf(p.tokens[1].offset, "a string literal stands alone: {{\"text\"}}")
		}
		return nil, head.text, nil
	}
	if o.Keep != nil && o.Keep(root(head.text)) {
		return nil, s[p.start:p.end], nil
	}
	x, err := parseExpr(p.tokens)
	return x, "", err
}

// IsTemplate reports whether s uses the grammar: it has a placeholder
// whose name is a helper's ({{args...}}, {{now}}, {{random 1 6}}, ...).
// Strings for which it is false hold at most the older {{argument}} and
// {{id.path}} forms, or literal braces.
func IsTemplate(s string) bool {
	for i := strings.Index(s, "{{"); i >= 0; {
		if _, _, ok := helperAt(s, i); ok {
			return true
		}
		next := strings.Index(s[i+2:], "{{")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

// IsHelper reports whether name (the part of a placeholder before its
// first '.' or '[') is a helper's: args, state, now, uuid, seq, random,
// pick or json.
func IsHelper(name string) bool { return slices.Contains(helperNames, name) }

// NamesHelper reports whether the placeholder text p ("args.city",
// "seq") reads a helper: the checks and fillers of the older forms skip
// such placeholders.
func NamesHelper(p string) bool { return IsHelper(root(p)) }

// helperAt reads the name of the placeholder opening at s[i:] ("{{"),
// with its offset, and reports whether it is a helper's.
func helperAt(s string, i int) (string, int, bool) {
	j := i + 2
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	k := j
	for k < len(s) && !isSpace(s[k]) && s[k] != '"' && s[k] != '{' && s[k] != '}' {
		k++
	}
	name := root(s[j:k])
	return name, j, IsHelper(name)
}

// nearMiss refuses a string without helpers whose placeholder names a
// near miss of a helper: the same name in another case, or one edit from
// a helper of four letters or more ("arg" for args).
func (o Options) nearMiss(s string) *Error {
	for i := strings.Index(s, "{{"); i >= 0; {
		name, at, _ := helperAt(s, i)
		if name != "" && (o.Keep == nil || !o.Keep(name)) {
			lower := strings.ToLower(name)
			for _, h := range helperNames {
				if lower == h || (len(h) >= 4 && distance(lower, h, 1) <= 1) {
					return errorf(at, "unknown name %q (did you mean %s?)", name, h)
				}
			}
		}
		next := strings.Index(s[i+2:], "{{")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return nil
}

// walker compiles the strings of a JSON document, knowing where each is.
type walker struct {
	b     builder
	errs  Errors
	stack []frame
}

// frame is an open object or array: the member or element being read.
type frame struct {
	object, wantKey bool
	key             string
	index           int
}

// walk compiles raw, which is valid JSON.
func (w *walker) walk(o Options, raw []byte) {
	last := 0
	for i := 0; i < len(raw); {
		switch raw[i] {
		case '{':
			w.stack = append(w.stack, frame{object: true, wantKey: true})
		case '[':
			w.stack = append(w.stack, frame{})
		case '}', ']':
			w.stack = w.stack[:len(w.stack)-1]
		case ',':
			if top := &w.stack[len(w.stack)-1]; top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		case '"':
			end := stringEnd(raw, i)
			s := unquote(raw[i:end])
			if n := len(w.stack); n > 0 && w.stack[n-1].object && w.stack[n-1].wantKey {
				w.stack[n-1].key, w.stack[n-1].wantKey = s, false
			} else if strings.Contains(s, "{{") {
				w.b.text(raw[last:i])
				last = end
				w.compile(o, s)
			}
			i = end
			continue
		}
		i++
	}
	w.b.text(raw[last:])
}

// compile compiles the string s at the walker's place.
func (w *walker) compile(o Options, s string) {
	err := o.compileString(&w.b, s, o.Typed == nil || o.Typed(w.path()))
	if err == nil || len(w.errs) >= maxErrors {
		return
	}
	err.Path = w.path()
	w.errs = append(w.errs, err)
}

// path is the JSON path of the value being read, such as content[0].text.
func (w *walker) path() string {
	var b strings.Builder
	for _, f := range w.stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		} else {
			b.WriteString("[" + strconv.Itoa(f.index) + "]")
		}
	}
	return b.String()
}

// stringEnd is the offset just past the JSON string opening at raw[i].
func stringEnd(raw []byte, i int) int {
	j := i + 1
	for j < len(raw) && raw[j] != '"' {
		if raw[j] == '\\' {
			j++
		}
		j++
	}
	return j + 1
}

// unquote is the text of the valid JSON string q.
func unquote(q []byte) string {
	body := q[1 : len(q)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	var s string
	_ = json.Unmarshal(q, &s) // q is valid: the document was checked
	return s
}
