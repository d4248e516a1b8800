package schema

import (
	"sync"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// Schema is a compiled JSON Schema. It is safe for concurrent use.
//
// The library's compiled schemas are not: evaluation fills lazy caches on
// the shared tree (compiled "pattern" regexps, and a "patternProperties"
// regexp map rebuilt on every evaluation, which can crash the process with
// a concurrent map access). So each evaluation gets a tree of its own: the
// one built by Compile when it is free, otherwise a spare compiled from the
// same bytes and pooled. Compilation is deterministic, so every tree behaves
// alike. A schema with a fast path (see fast.go) keeps no primary: it only
// ever uses spares.
type Schema struct {
	raw     []byte
	dialect jsonschema.Dialect

	// bounded: validation is estimated first (see estimate), because the
	// schema runs regular expressions, has references, or applies several
	// subschemas to one value (allOf, anyOf, oneOf, not, if, dependentSchemas).
	bounded bool
	sizes   map[string]regexlimit.Size      // of its regular expressions
	anchors map[string][]*jsonschema.Schema // its subschemas by "$dynamicAnchor"

	// fast decides the values it can without the library (see fast.go).
	// A schema with a fast path keeps no tree: the library's trees of it
	// are compiled on demand, for a value the fast path does not accept,
	// and left in spares, which the garbage collector empties.
	fast *fastNode

	busy    sync.Mutex // held while primary is evaluating
	primary *jsonschema.Schema
	spares  sync.Pool // of *jsonschema.Schema
}

func newSchema(raw []byte, tree *jsonschema.Schema, fast *fastNode) *Schema {
	s := &Schema{raw: raw, dialect: tree.Dialect(), fast: fast}
	if fast == nil {
		s.primary = tree
	}
	s.spares.New = func() any {
		t, err := newCompiler().Compile(s.raw)
		if err != nil {
			// Unreachable: the same bytes compiled in Compile.
			return nil
		}
		return t
	}
	return s
}

// Dialect returns the "$schema" URI of the dialect the schema was compiled
// as, for example "http://json-schema.org/draft-07/schema#".
func (s *Schema) Dialect() string {
	return string(s.dialect)
}

// acquire hands out a tree no other goroutine is evaluating. TryLock keeps
// the common, uncontended call on the primary tree, so an idle schema never
// pays for a recompilation after the pool has been emptied by the GC.
func (s *Schema) acquire() (tree *jsonschema.Schema, spare bool) {
	if s.primary != nil && s.busy.TryLock() {
		return s.primary, false
	}
	t, _ := s.spares.Get().(*jsonschema.Schema)
	return t, true
}

func (s *Schema) release(tree *jsonschema.Schema, spare bool) {
	if spare {
		s.spares.Put(tree)
		return
	}
	s.busy.Unlock()
}
