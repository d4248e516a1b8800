package oasimport

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
)

// documentMethods are the keys of a path item that hold operations.
var documentMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace", "query"}

// dataKeys hold example data rather than OpenAPI objects, so a "$ref"
// inside them is data too (unless they name a property).
var dataKeys = map[string]bool{"example": true, "default": true, "enum": true, "const": true, "value": true}

// pruneExternalRefs edits the generic document so that kin-openapi never
// meets a reference outside it: parts of no use to tools (webhooks and
// callbacks) are dropped, each operation that depends on such a reference
// (directly or through references within the document) is removed with a
// warning, and so are components that depend on one, which no remaining
// operation uses.
func (imp *importer) pruneExternalRefs(raw map[string]any, kind string) {
	delete(raw, "webhooks")
	paths, _ := raw["paths"].(map[string]any)
	for _, item := range paths {
		for _, op := range pathOperations(item) {
			delete(op.op, "callbacks")
		}
	}
	s := &refScanner{doc: raw, memo: map[string]refInfo{}}
	var whole refInfo
	s.scan(raw, "", &whole)
	if len(whole.external) == 0 {
		return
	}

	for _, p := range slices.Sorted(maps.Keys(paths)) {
		item, ok := paths[p].(map[string]any)
		if !ok {
			continue
		}
		if ref, ok := item["$ref"].(string); ok && isExternal(ref) {
			delete(paths, p)
			imp.skipped = append(imp.skipped, fmt.Sprintf(
				"%s: the path item is a $ref to %q, outside the document, which is never fetched; its operations are skipped", p, ref))
			continue
		}
		shared := s.externalIn(item["parameters"])
		removed, kept := 0, 0
		for _, o := range pathOperations(item) {
			method := o.method
			ext := append(slices.Clone(shared), s.externalIn(o.op)...)
			if len(ext) == 0 {
				kept++
				continue
			}
			slices.Sort(ext)
			removed++
			if _, fixed := item[method]; fixed {
				delete(item, method)
			} else if extra, ok := item["additionalOperations"].(map[string]any); ok {
				delete(extra, method)
			}
			imp.skipped = append(imp.skipped, fmt.Sprintf(
				"%s %s: it refers to %q, outside the document, which is never fetched; the operation is skipped",
				strings.ToUpper(method), p, ext[0]))
		}
		if kept == 0 && (removed > 0 || len(shared) > 0) {
			delete(paths, p)
		}
	}

	// Components no remaining operation can use (they would have been
	// removed with it) but that the loader would still resolve.
	var sections []map[string]any
	if kind == "swagger" {
		for _, k := range []string{"definitions", "parameters", "responses"} {
			if m, ok := raw[k].(map[string]any); ok {
				sections = append(sections, m)
			}
		}
	} else if comps, ok := raw["components"].(map[string]any); ok {
		for _, v := range comps {
			if m, ok := v.(map[string]any); ok {
				sections = append(sections, m)
			}
		}
	}
	for _, section := range sections {
		for name, v := range section {
			if len(s.externalIn(v)) > 0 {
				delete(section, name)
			}
		}
	}
}

// genericOp is an operation of the generic document.
type genericOp struct {
	method string // its key: a lower-case method, or a key of additionalOperations
	op     map[string]any
}

// pathOperations returns the operations of a generic path item in method
// order, then those of additionalOperations by key.
func pathOperations(item any) []genericOp {
	m, ok := item.(map[string]any)
	if !ok {
		return nil
	}
	var out []genericOp
	for _, method := range documentMethods {
		if op, ok := m[method].(map[string]any); ok {
			out = append(out, genericOp{method, op})
		}
	}
	if extra, ok := m["additionalOperations"].(map[string]any); ok {
		for _, method := range slices.Sorted(maps.Keys(extra)) {
			if op, ok := extra[method].(map[string]any); ok {
				out = append(out, genericOp{method, op})
			}
		}
	}
	return out
}

func isExternal(ref string) bool {
	return ref != "" && !strings.HasPrefix(ref, "#")
}

// refScanner finds the references a part of the document depends on,
// following references within the document.
type refScanner struct {
	doc  map[string]any
	memo map[string]refInfo
}

// refInfo lists the references written in one part of the document.
type refInfo struct {
	external, internal []string
}

// scan collects the references written in node, without following them.
// parent is the key node was found under.
func (s *refScanner) scan(node any, parent string, info *refInfo) {
	switch x := node.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if isExternal(ref) {
				info.external = append(info.external, ref)
			} else if ref != "" {
				info.internal = append(info.internal, ref)
			}
		}
		named := parent == "properties" || parent == "patternProperties"
		for k, v := range x {
			if k == "$ref" || strings.HasPrefix(k, "x-") {
				continue
			}
			if !named {
				if _, isList := v.([]any); dataKeys[k] || (k == "examples" && isList) {
					continue
				}
			}
			s.scan(v, k, info)
		}
	case []any:
		for _, v := range x {
			s.scan(v, parent, info)
		}
	}
}

// externalIn returns the external references node depends on.
func (s *refScanner) externalIn(node any) []string {
	var info refInfo
	s.scan(node, "", &info)
	out := slices.Clone(info.external)
	seen := map[string]bool{}
	queue := info.internal
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		if seen[ref] {
			continue
		}
		seen[ref] = true
		ri := s.info(ref)
		out = append(out, ri.external...)
		queue = append(queue, ri.internal...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *refScanner) info(ref string) refInfo {
	if ri, ok := s.memo[ref]; ok {
		return ri
	}
	var ri refInfo
	if target, ok := lookup(s.doc, ref); ok {
		s.scan(target, "", &ri)
	}
	s.memo[ref] = ri
	return ri
}

// lookup resolves a reference within the document ("#/components/...").
func lookup(doc map[string]any, ref string) (any, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if unescaped, err := url.PathUnescape(frag); err == nil {
		frag = unescaped
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, false // an anchor: left to the loader
	}
	return jsonptr.Get(doc, frag)
}
