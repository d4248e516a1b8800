package promote

import (
	"context"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// kind is what a promote does alike for tools, resources and prompts: the
// limit of a server, the key that names one item, and the check an item
// meets before it is written.
type kind[T any] struct {
	name   Kind
	plural string // the name of the limit
	max    int
	held   func(store.Counts) int64 // how many the server holds
	key    func(T) string           // the name, or a resource's URI
	check  func(T) error            // the design's rule
	// bound, when set, is checked first and fails under its own words:
	// a limit promoting would pass, which the design's rule words for
	// an edit.
	bound func(T) error
}

var (
	tools = kind[design.Tool]{name: KindTool, plural: "tools", max: design.MaxTools,
		held: func(c store.Counts) int64 { return c.Tools }, key: func(t design.Tool) string { return t.Name }, check: design.CheckTool,
		bound: scenarioBound}
	resources = kind[design.Resource]{name: KindResource, plural: "resources", max: design.MaxResources,
		held: func(c store.Counts) int64 { return c.Resources }, key: func(r design.Resource) string { return r.URI }, check: design.CheckResource}
	prompts = kind[design.Prompt]{name: KindPrompt, plural: "prompts", max: design.MaxPrompts,
		held: func(c store.Counts) int64 { return c.Prompts }, key: func(p design.Prompt) string { return p.Name }, check: design.CheckPrompt}
)

// keys is the set of the items' keys.
func (k kind[T]) keys(items []T) map[string]bool {
	out := make(map[string]bool, len(items))
	for _, v := range items {
		out[k.key(v)] = true
	}
	return out
}

// fits fails when adding more items would take the server, holding what
// c counts, over its limit.
func (k kind[T]) fits(c store.Counts, adding int) error {
	if k.held(c)+int64(adding) > int64(k.max) {
		return design.Limit(k.plural, k.max)
	}
	return nil
}

// save checks each item and writes it with write, stopping at the first
// failure; a check's failure names the item.
func (k kind[T]) save(ctx context.Context, items []T, write func(context.Context, T) error) error {
	for _, v := range items {
		if k.bound != nil {
			if err := k.bound(v); err != nil {
				return err
			}
		}
		if err := k.check(v); err != nil {
			return naming(k.name, k.key(v), err)
		}
		if err := write(ctx, v); err != nil {
			return err
		}
	}
	return nil
}

// naming is a check's failure of a promoted tool, resource or prompt as
// the request's: each field error under the field kind, naming the item
// and its own field.
func naming(kind Kind, name string, err error) error {
	f, ok := failure.As(err)
	if !ok || len(f.Fields) == 0 {
		return err
	}
	fields := make([]failure.FieldError, len(f.Fields))
	for i, fe := range f.Fields {
		fields[i] = failure.Field(string(kind), "%s %q: %s: %s", kind, name, fe.Field, fe.Message)
	}
	return failure.Invalid(fields...)
}

// scenarioBound fails when promoting gave a tool more scenarios than a tool
// may hold.
func scenarioBound(t design.Tool) error {
	if len(t.Scenarios) > design.MaxScenarios {
		return failure.Invalid(failure.Field("tool",
			"promoting would give tool %q %d scenarios, over the limit of %d", t.Name, len(t.Scenarios), design.MaxScenarios))
	}
	return nil
}
