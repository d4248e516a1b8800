package schema

import (
	"errors"
	"fmt"
	"maps"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// PatternError is the KeywordError for a regular expression of a schema,
// a "pattern" or a "patternProperties" key, over the limits of package
// regexlimit; its Pointer is that of the "pattern" member, or of the
// "patternProperties" object one of whose keys is refused.
type PatternError = KeywordError

// Keywords whose values are subschemas, by shape. "items" is both: a
// schema, or (before 2020-12) an array of them.
var (
	schemaMapKeywords = []string{"$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies"}
	schemaListKeyword = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaKeywords    = []string{"items", "additionalItems", "additionalProperties", "not", "if", "then", "else",
		"contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema"}
)

// patternScan finds every regular expression of a schema document, checks
// it against the limits, and records its size for the call-time budget.
type patternScan struct {
	root  any
	sizes map[string]regexlimit.Size
	refs  bool            // the document uses $ref or $dynamicRef
	seen  map[string]bool // local $ref targets already scanned
	err   *PatternError
}

// scanPatterns checks the regular expressions of doc, a decoded schema
// document, wherever a subschema may stand (and wherever a local "$ref"
// points), and returns their sizes by expression, and whether the document
// uses references. An expression that does not parse is left to the
// library, which reports it.
func scanPatterns(doc any) (map[string]regexlimit.Size, bool, error) {
	p := &patternScan{root: doc, seen: map[string]bool{}}
	p.schema(doc, "", nil)
	if p.err != nil {
		return nil, false, p.err
	}
	return p.sizes, p.refs, nil
}

func (p *patternScan) schema(v any, ptr string, field []string) {
	obj, ok := v.(map[string]any)
	if !ok || p.err != nil {
		return
	}
	if expr, ok := obj["pattern"].(string); ok {
		p.check(expr, ptr+"/pattern", append(field, "pattern"), "")
	}
	if props, ok := obj["patternProperties"].(map[string]any); ok {
		for _, key := range slices.Sorted(maps.Keys(props)) {
			p.check(key, ptr+"/patternProperties", append(field, "patternProperties"), key)
		}
	}
	for _, kw := range []string{"$ref", "$dynamicRef"} {
		ref, ok := obj[kw].(string)
		if !ok {
			continue
		}
		p.refs = true
		if target, at, ok := p.local(ref); ok && !p.seen[at] {
			p.seen[at] = true
			p.schema(target, at, fieldOf(at))
		}
	}
	for _, kw := range schemaMapKeywords {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				p.schema(m[name], ptr+"/"+kw+"/"+jsonptr.Escape(name), append(field[:len(field):len(field)], kw, name))
			}
		}
	}
	for _, kw := range schemaListKeyword {
		if list, ok := obj[kw].([]any); ok {
			for i, sub := range list {
				p.schema(sub, ptr+"/"+kw+"/"+strconv.Itoa(i), append(field[:len(field):len(field)], kw, "["+strconv.Itoa(i)+"]"))
			}
		}
	}
	for _, kw := range schemaKeywords {
		if sub, ok := obj[kw].(map[string]any); ok {
			p.schema(sub, ptr+"/"+kw, append(field[:len(field):len(field)], kw))
		}
	}
}

// local resolves a "#..." JSON Pointer reference within the document and
// returns the target with its pointer.
func (p *patternScan) local(ref string) (any, string, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, "", false
	}
	target, ok := jsonptr.Get(p.root, frag)
	return target, frag, ok
}

// fieldOf turns a JSON Pointer into the tokens of a field path.
func fieldOf(ptr string) []string {
	tokens, _ := jsonptr.Tokens(ptr)
	return tokens
}

func (p *patternScan) check(expr, ptr string, field []string, key string) {
	if p.err != nil {
		return
	}
	if _, seen := p.sizes[expr]; seen {
		return
	}
	size, err := regexlimit.Check(expr)
	var se *syntax.Error
	switch {
	case errors.As(err, &se):
		return // the library's message for it names the pattern
	case err != nil:
		msg := err.Error()
		if key != "" {
			msg = fmt.Sprintf("the key %s %s", shorten(expr), msg)
		}
		p.err = &PatternError{Pointer: ptr, Field: dottedField(field), Message: msg}
		return
	}
	if p.sizes == nil {
		p.sizes = map[string]regexlimit.Size{}
	}
	p.sizes[expr] = size
}

// shorten quotes s, cut to 40 characters.
func shorten(s string) string {
	if utf8.RuneCountInString(s) <= 40 {
		return strconv.Quote(s)
	}
	r := []rune(s)
	return strconv.Quote(string(r[:39]) + "…")
}

// dottedField joins field tokens with dots, array indexes ("[0]") as they
// are, and names that would be ambiguous quoted in brackets.
func dottedField(tokens []string) string {
	var b strings.Builder
	for i, tok := range tokens {
		switch {
		case strings.HasPrefix(tok, "[") && strings.HasSuffix(tok, "]") && isIndex(tok[1:len(tok)-1]):
			b.WriteString(tok)
		case tok == "" || strings.ContainsAny(tok, `.[]"`):
			b.WriteString("[" + strconv.Quote(tok) + "]")
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
		}
	}
	return b.String()
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != ""
}
