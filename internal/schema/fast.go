package schema

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// The fast path decides, without allocating, whether a value satisfies a
// schema that uses only common keywords: type, enum, const, the numeric
// bounds, minLength, maxLength, pattern, properties, required,
// additionalProperties, min/maxProperties, items (one schema), minItems,
// maxItems and uniqueItems, plus annotations. It is built from the
// library's compiled tree, so every keyword means what the library made of
// it (Draft 4's boolean exclusive bounds included), and then the tree is
// dropped. When the fast path says "valid", the library is never run; when
// it says "invalid" or cannot tell, the library runs as before, so every
// violation reported is the library's.

// verdict is the fast path's answer.
type verdict uint8

const (
	undecided verdict = iota // the library must decide
	accepted
	rejected
)

// Type bits of a fastNode.
const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeString
	typeArray
	typeObject
	typeInteger
	typeNumber // also accepts integers, as "number" does
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "string": typeString, "array": typeArray,
	"object": typeObject, "integer": typeInteger, "number": typeNumber,
}

// Bits of fastNode.has.
const (
	hasMinimum uint16 = 1 << iota
	hasMaximum
	hasExclusiveMinimum
	hasExclusiveMaximum
	hasMultipleOf
	hasMinLength
	hasMaxLength
	hasMinItems
	hasMaxItems
	hasMinProperties
	hasMaxProperties
	hasEnum
	hasConst
	uniqueItems
)

// fastNode is one subschema of a fast-path schema.
type fastNode struct {
	never bool  // the false schema
	types uint8 // 0: any type
	has   uint16
	x     *fastExtra // set when has is not 0 or there is a pattern

	props      []fastProp // sorted by name
	required   []string
	additional *fastNode
	items      *fastNode
}

// fastExtra holds the keywords most subschemas lack, to keep nodes small.
type fastExtra struct {
	// Numbers are held as float64 only when the library's exact value of
	// the keyword is that of the float64's shortest decimal form, which is
	// how the library reads a float64 value: comparing the floats is then
	// exact.
	minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf float64

	minLength, maxLength int
	minItems, maxItems   float64
	minProps, maxProps   float64

	enum  []fastConst
	cnst  fastConst
	regex *regexp.Regexp
	size  regexlimit.Size // of regex, for the estimate
}

type fastProp struct {
	name string
	node *fastNode
}

// fastConst is a scalar of an "enum" or "const".
type fastConst struct {
	kind uint8 // one of the type bits; typeNumber for every number
	str  string
	num  float64
	b    bool
}

// buildFast returns the fast path for tree, or nil when the tree uses a
// keyword outside the fast path's subset.
func buildFast(tree *jsonschema.Schema, sizes map[string]regexlimit.Size) *fastNode {
	// The nodes and properties are allocated together: a schema kept for
	// long is then a few objects, not scattered over the heap.
	var c fastCount
	countFast(tree, 0, &c)
	b := fastBuilder{sizes: sizes, nodes: make([]fastNode, 0, c.nodes), props: make([]fastProp, 0, c.props),
		extras: make([]fastExtra, 0, c.extras)}
	n := b.node(tree)
	if !b.ok {
		return nil
	}
	return n
}

type fastBuilder struct {
	sizes  map[string]regexlimit.Size
	ok     bool
	depth  int
	nodes  []fastNode // allocated in advance, handed out in order
	props  []fastProp
	extras []fastExtra
}

// fastCount is how many nodes, properties and extras buildFast allocates.
type fastCount struct{ nodes, props, extras int }

// countFast counts what buildFast allocates for s, at most: an extra for
// every node that may need one.
func countFast(s *jsonschema.Schema, depth int, c *fastCount) {
	if s == nil || depth > maxDepth {
		return
	}
	c.nodes++
	if s.Boolean == nil && (len(s.Enum) > 0 || s.Const != nil || s.Minimum != nil || s.Maximum != nil ||
		s.ExclusiveMinimum != nil || s.ExclusiveMaximum != nil || s.MultipleOf != nil ||
		s.MinLength != nil || s.MaxLength != nil || s.Pattern != nil || s.MinItems != nil || s.MaxItems != nil ||
		s.MinProperties != nil || s.MaxProperties != nil || s.UniqueItems != nil) {
		c.extras++
	}
	if s.Properties != nil {
		for _, sub := range *s.Properties {
			c.props++
			countFast(sub, depth+1, c)
		}
	}
	countFast(s.AdditionalProperties, depth+1, c)
	countFast(s.Items, depth+1, c)
}

// newExtra hands out the next extra allocated in advance.
func (b *fastBuilder) newExtra(x fastExtra) *fastExtra {
	if len(b.extras) == cap(b.extras) {
		return &x // not counted: cannot happen, but appending would move the others
	}
	b.extras = append(b.extras, x)
	return &b.extras[len(b.extras)-1]
}

// newNode hands out the next node allocated in advance.
func (b *fastBuilder) newNode(n fastNode) *fastNode {
	if len(b.nodes) == cap(b.nodes) {
		return &n // not counted: cannot happen, but appending would move the others
	}
	b.nodes = append(b.nodes, n)
	return &b.nodes[len(b.nodes)-1]
}

// newProps hands out room for n properties allocated in advance.
func (b *fastBuilder) newProps(n int) []fastProp {
	if len(b.props)+n > cap(b.props) {
		return make([]fastProp, 0, n)
	}
	out := b.props[len(b.props) : len(b.props) : len(b.props)+n]
	b.props = b.props[:len(b.props)+n]
	return out
}

func (b *fastBuilder) fail() *fastNode { b.ok = false; return nil }

func (b *fastBuilder) node(s *jsonschema.Schema) *fastNode {
	if b.depth == 0 {
		b.ok = true
	}
	if s == nil {
		return nil
	}
	if !b.ok || b.depth > maxDepth {
		return b.fail()
	}
	b.depth++
	defer func() { b.depth-- }()
	if s.Boolean != nil {
		return b.newNode(fastNode{never: !*s.Boolean})
	}
	if s.Ref != "" || s.DynamicRef != "" || s.ResolvedRef != nil || s.ResolvedDynamicRef != nil ||
		s.DynamicAnchor != "" || len(s.Vocabulary) > 0 ||
		s.AllOf != nil || s.AnyOf != nil || s.OneOf != nil || s.Not != nil ||
		s.If != nil || s.Then != nil || s.Else != nil || s.DependentSchemas != nil ||
		s.PrefixItems != nil || s.Contains != nil || s.MaxContains != nil || s.MinContains != nil ||
		s.PatternProperties != nil || s.PropertyNames != nil ||
		s.UnevaluatedItems != nil || s.UnevaluatedProperties != nil || s.DependentRequired != nil ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil {
		return b.fail()
	}
	n := b.newNode(fastNode{})
	var x fastExtra
	for _, t := range s.Type {
		bit, ok := typeBits[t]
		if !ok {
			return b.fail()
		}
		n.types |= bit
	}
	if len(s.Enum) > 0 {
		n.has |= hasEnum
		x.enum = make([]fastConst, len(s.Enum))
		for i, e := range s.Enum {
			c, ok := constOf(e)
			if !ok {
				return b.fail()
			}
			x.enum[i] = c
		}
	}
	if s.Const != nil && s.Const.IsSet {
		c, ok := constOf(s.Const.Value)
		if !ok {
			return b.fail()
		}
		n.has, x.cnst = n.has|hasConst, c
	}
	bounds := []struct {
		r   *jsonschema.Rat
		bit uint16
		to  *float64
	}{
		{s.Minimum, hasMinimum, &x.minimum},
		{s.Maximum, hasMaximum, &x.maximum},
		{s.ExclusiveMinimum, hasExclusiveMinimum, &x.exclusiveMinimum},
		{s.ExclusiveMaximum, hasExclusiveMaximum, &x.exclusiveMaximum},
		{s.MultipleOf, hasMultipleOf, &x.multipleOf},
	}
	for _, bd := range bounds {
		if bd.r == nil {
			continue
		}
		f, ok := exactFloat(bd.r)
		if !ok {
			return b.fail()
		}
		n.has, *bd.to = n.has|bd.bit, f
	}
	// multipleOf is decided only for whole divisors, for which the
	// remainder of a float64 is exact.
	if n.has&hasMultipleOf != 0 && (x.multipleOf <= 0 || x.multipleOf != math.Trunc(x.multipleOf) || x.multipleOf >= 1<<53) {
		return b.fail()
	}
	if s.MinLength != nil {
		n.has, x.minLength = n.has|hasMinLength, int(*s.MinLength)
	}
	if s.MaxLength != nil {
		n.has, x.maxLength = n.has|hasMaxLength, int(*s.MaxLength)
	}
	if s.MinItems != nil {
		n.has, x.minItems = n.has|hasMinItems, *s.MinItems
	}
	if s.MaxItems != nil {
		n.has, x.maxItems = n.has|hasMaxItems, *s.MaxItems
	}
	if s.MinProperties != nil {
		n.has, x.minProps = n.has|hasMinProperties, *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.has, x.maxProps = n.has|hasMaxProperties, *s.MaxProperties
	}
	if s.UniqueItems != nil && *s.UniqueItems {
		n.has |= uniqueItems
	}
	if s.Pattern != nil {
		re, err := regexp.Compile(*s.Pattern) // as the library compiles it
		if err != nil {
			return b.fail()
		}
		x.regex = re
		x.size = largest
		if sz, ok := b.sizes[*s.Pattern]; ok {
			x.size = sz
		}
	}
	if s.Properties != nil {
		n.props = b.newProps(len(*s.Properties))
		for name, sub := range *s.Properties {
			n.props = append(n.props, fastProp{name: name, node: b.node(sub)})
		}
		slices.SortFunc(n.props, func(x, y fastProp) int { return strings.Compare(x.name, y.name) })
	}
	if n.has != 0 || x.regex != nil {
		n.x = b.newExtra(x)
	}
	n.required = slices.Clip(s.Required)
	n.additional = b.node(s.AdditionalProperties)
	n.items = b.node(s.Items)
	if !b.ok {
		return nil
	}
	return n
}

// exactFloat returns r as a float64 when the library reads that float64
// back as exactly r.
func exactFloat(r *jsonschema.Rat) (float64, bool) {
	if r == nil || r.Rat == nil {
		return 0, false
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	back := jsonschema.NewRat(f)
	return f, back != nil && back.Cmp(r.Rat) == 0
}

// constOf converts a decoded "enum" or "const" member; objects and arrays
// are left to the library.
func constOf(v any) (fastConst, bool) {
	switch x := v.(type) {
	case nil:
		return fastConst{kind: typeNull}, true
	case bool:
		return fastConst{kind: typeBoolean, b: x}, true
	case string:
		return fastConst{kind: typeString, str: x}, true
	}
	r := jsonschema.NewRat(v)
	if r == nil {
		return fastConst{}, false
	}
	if _, isString := v.(string); isString {
		return fastConst{}, false
	}
	f, ok := exactFloat(r)
	return fastConst{kind: typeNumber, num: f}, ok
}

// number reads a value the library treats as a number. exact is false
// when the float64 may differ from the library's exact value (a
// json.Number that is not a float64's shortest form), so that only a
// strict inequality between floats is conclusive.
func number(v any) (f float64, exact, ok bool) {
	switch x := v.(type) {
	case float64:
		// Not from JSON, but a Go caller's: the library reads neither
		// as a number.
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false, false
		}
		return x, true, true
	case json.Number:
		s := string(x)
		if !jsonNumber(s) {
			return 0, false, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, false
		}
		var buf [32]byte
		return f, string(strconv.AppendFloat(buf[:0], f, 'g', -1, 64)) == s, true
	}
	return 0, false, false
}

// jsonNumber reports whether s is a JSON number token.
func jsonNumber(s string) bool {
	end, ok := jsonvalue.NumberEnd(s, 0)
	return ok && end == len(s)
}

// compare orders a value's number against a keyword's: -1, 0 or 1, and
// false when it cannot tell.
func compare(f float64, exact bool, bound float64) (int, bool) {
	switch {
	case f < bound:
		return -1, true
	case f > bound:
		return 1, true
	case exact:
		return 0, true
	}
	return 0, false
}

// check decides v against n.
func (n *fastNode) check(v any) verdict {
	if n == nil {
		return accepted
	}
	if n.never {
		return rejected
	}
	var kind uint8
	var f float64
	var exact bool
	switch x := v.(type) {
	case nil:
		kind = typeNull
	case bool:
		kind = typeBoolean
	case string:
		kind = typeString
	case []any:
		kind = typeArray
	case map[string]any:
		kind = typeObject
	default:
		var ok bool
		if f, exact, ok = number(x); !ok {
			return undecided
		}
		kind = typeNumber
	}
	if n.types != 0 {
		want := n.types
		if kind == typeNumber {
			switch {
			case want&typeNumber != 0:
			case want&typeInteger != 0:
				if !exact {
					return undecided
				}
				if f != math.Trunc(f) {
					return rejected
				}
			default:
				return rejected
			}
		} else if want&kind == 0 {
			return rejected
		}
	}
	if n.has&hasEnum != 0 {
		found := false
		for i := range n.x.enum {
			switch equalConst(&n.x.enum[i], kind, v, f, exact) {
			case accepted:
				found = true
			case undecided:
				return undecided
			}
			if found {
				break
			}
		}
		if !found {
			return rejected
		}
	}
	if n.has&hasConst != 0 {
		if r := equalConst(&n.x.cnst, kind, v, f, exact); r != accepted {
			return r
		}
	}
	switch kind {
	case typeNumber:
		return n.checkNumber(f, exact)
	case typeString:
		return n.checkString(v.(string))
	case typeArray:
		return n.checkArray(v.([]any))
	case typeObject:
		return n.checkObject(v.(map[string]any))
	}
	return accepted
}

func equalConst(c *fastConst, kind uint8, v any, f float64, exact bool) verdict {
	if c.kind != kind {
		return rejected
	}
	switch kind {
	case typeNull:
		return accepted
	case typeBoolean:
		return when(v.(bool) == c.b)
	case typeString:
		return when(v.(string) == c.str)
	}
	if cmp, ok := compare(f, exact, c.num); ok {
		return when(cmp == 0)
	}
	return undecided
}

func when(ok bool) verdict {
	if ok {
		return accepted
	}
	return rejected
}

func (n *fastNode) checkNumber(f float64, exact bool) verdict {
	const numeric = hasMinimum | hasMaximum | hasExclusiveMinimum | hasExclusiveMaximum | hasMultipleOf
	if n.has&numeric == 0 {
		return accepted
	}
	if n.has&hasMultipleOf != 0 {
		if !exact || math.Abs(f) >= 1<<53 {
			return undecided
		}
		if f != math.Trunc(f) || math.Mod(f, n.x.multipleOf) != 0 {
			return rejected
		}
	}
	tests := [...]struct {
		bit   uint16
		bound float64
		ok    func(int) bool
	}{
		{hasMinimum, n.x.minimum, func(c int) bool { return c >= 0 }},
		{hasMaximum, n.x.maximum, func(c int) bool { return c <= 0 }},
		{hasExclusiveMinimum, n.x.exclusiveMinimum, func(c int) bool { return c > 0 }},
		{hasExclusiveMaximum, n.x.exclusiveMaximum, func(c int) bool { return c < 0 }},
	}
	for _, t := range tests {
		if n.has&t.bit == 0 {
			continue
		}
		c, ok := compare(f, exact, t.bound)
		if !ok {
			return undecided
		}
		if !t.ok(c) {
			return rejected
		}
	}
	return accepted
}

func (n *fastNode) checkString(s string) verdict {
	if n.has&(hasMinLength|hasMaxLength) != 0 {
		length := utf8.RuneCountInString(s)
		if n.has&hasMinLength != 0 && length < n.x.minLength {
			return rejected
		}
		if n.has&hasMaxLength != 0 && length > n.x.maxLength {
			return rejected
		}
	}
	if n.x != nil && n.x.regex != nil && !n.x.regex.MatchString(s) {
		return rejected
	}
	return accepted
}

func (n *fastNode) checkArray(a []any) verdict {
	if n.has&hasMinItems != 0 && float64(len(a)) < n.x.minItems {
		return rejected
	}
	if n.has&hasMaxItems != 0 && float64(len(a)) > n.x.maxItems {
		return rejected
	}
	result := accepted
	if n.items != nil {
		for _, e := range a {
			switch n.items.check(e) {
			case rejected:
				return rejected
			case undecided:
				result = undecided
			}
		}
	}
	if n.has&uniqueItems != 0 && !(n.items != nil && n.items.never) {
		for i := 1; i < len(a); i++ {
			for j := range i {
				switch equalValues(a[i], a[j], 0) {
				case accepted:
					return rejected
				case undecided:
					result = undecided
				}
			}
		}
	}
	return result
}

func (n *fastNode) checkObject(o map[string]any) verdict {
	if n.has&hasMinProperties != 0 && float64(len(o)) < n.x.minProps {
		return rejected
	}
	if n.has&hasMaxProperties != 0 && float64(len(o)) > n.x.maxProps {
		return rejected
	}
	for _, name := range n.required {
		if _, ok := o[name]; !ok {
			return rejected
		}
	}
	result := accepted
	note := func(r verdict) bool {
		if r == undecided {
			result = undecided
		}
		return r != rejected
	}
	for k, v := range o {
		sub := n.additional
		if p := n.prop(k); p != nil {
			sub = p.node
		} else if sub == nil {
			continue
		}
		if !note(sub.check(v)) {
			return rejected
		}
	}
	return result
}

// prop finds a declared property.
func (n *fastNode) prop(name string) *fastProp {
	i, ok := slices.BinarySearchFunc(n.props, name, func(p fastProp, name string) int { return strings.Compare(p.name, name) })
	if !ok {
		return nil
	}
	return &n.props[i]
}

// equalValues compares two decoded values as the library's uniqueItems
// does.
func equalValues(a, b any, depth int) verdict {
	if depth > maxDepth {
		return undecided
	}
	fa, ea, na := number(a)
	fb, eb, nb := number(b)
	switch {
	case na && nb:
		if fa != fb {
			return rejected
		}
		if ea && eb {
			return accepted
		}
		return undecided
	case na || nb:
		if isPlain(a) && isPlain(b) {
			return rejected
		}
		return undecided
	}
	switch x := a.(type) {
	case nil:
		return when(b == nil)
	case bool:
		y, ok := b.(bool)
		return when(ok && x == y)
	case string:
		y, ok := b.(string)
		return when(ok && x == y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return when(false).orPlain(b)
		}
		result := accepted
		for i := range x {
			switch equalValues(x[i], y[i], depth+1) {
			case rejected:
				return rejected
			case undecided:
				result = undecided
			}
		}
		return result
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return when(false).orPlain(b)
		}
		result := accepted
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return rejected
			}
			switch equalValues(xv, yv, depth+1) {
			case rejected:
				return rejected
			case undecided:
				result = undecided
			}
		}
		return result
	}
	return undecided
}

// orPlain keeps a rejection only when other is a value the fast path knows.
func (v verdict) orPlain(other any) verdict {
	if isPlain(other) {
		return v
	}
	return undecided
}

// isPlain reports whether v is of a type encoding/json decodes into.
func isPlain(v any) bool {
	switch v.(type) {
	case nil, bool, string, float64, json.Number, []any, map[string]any:
		return true
	}
	return false
}

// estimateFast charges b as estimate does for the library's tree: visitCost
// for every subschema applied to every value, and each pattern's match.
func estimateFast(n *fastNode, v any, b *regexlimit.Budget, failed *[]step) bool {
	if n == nil {
		return true
	}
	if !b.Spend(visitCost, "") {
		return false
	}
	if n.never || (n.types == 0 && n.x == nil && n.props == nil && n.required == nil &&
		n.additional == nil && n.items == nil) {
		return true
	}
	child := func(c *fastNode, cv any, at step) bool {
		if c == nil || estimateFast(c, cv, b, failed) {
			return true
		}
		*failed = append(*failed, at)
		return false
	}
	switch x := v.(type) {
	case string:
		if n.x != nil && n.x.regex != nil && !b.Spend(n.x.size.MatchCost(len(x)), "") {
			return false
		}
	case map[string]any:
		for k, cv := range x {
			at := keyStep(k)
			if p := n.prop(k); p != nil && !child(p.node, cv, at) {
				return false
			}
			if !child(n.additional, cv, at) {
				return false
			}
		}
	case []any:
		for i, cv := range x {
			if !child(n.items, cv, indexStep(i)) {
				return false
			}
		}
	}
	return true
}
