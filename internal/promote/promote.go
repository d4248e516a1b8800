// Package promote turns a server's proxied journal records into its design:
// a recorded tools/call becomes a scenario of its tool (the tool is created
// when the design lacks it), a resources/read a resource and a prompts/get
// a prompt the design lacks. Recorded values under credential-like names
// are redacted on the way.
package promote

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Store is what a promote reads and writes, in the caller's transaction on
// the locked server; *store.Tx is one.
type Store interface {
	Journal(ctx context.Context, server uuid.UUID, f store.JournalFilter) (store.JournalPage, error)
	Tools(ctx context.Context, server uuid.UUID) ([]design.Tool, error)
	Resources(ctx context.Context, server uuid.UUID) ([]design.Resource, error)
	Prompts(ctx context.Context, server uuid.UUID) ([]design.Prompt, error)
	CreateTool(ctx context.Context, t design.Tool) (design.Tool, error)
	UpdateTool(ctx context.Context, t design.Tool) (design.Tool, error)
	CreateResource(ctx context.Context, r design.Resource) (design.Resource, error)
	CreatePrompt(ctx context.Context, p design.Prompt) (design.Prompt, error)
}

// Request selects the records to promote; zero values select every
// proxied record of the server.
type Request struct {
	Tool         *string    // only the tools/call records of this tool
	Since, Until *time.Time // received at or after Since, before Until
	// JournalIDs keeps only these records when not nil (an empty list
	// keeps none).
	JournalIDs []uuid.UUID
}

// Check reports the fields of a request that cannot select anything.
func (r Request) Check() error {
	if r.Tool != nil && *r.Tool == "" {
		return failure.Invalid(failure.Field("tool", "must not be empty"))
	}
	if r.Since != nil && r.Until != nil && !r.Since.Before(*r.Until) {
		return failure.Invalid(failure.Field("until", "must be after since"))
	}
	return nil
}

// Kind is what a record promotes into.
type Kind string

// The kinds of promoted items.
const (
	KindTool     Kind = "tool"
	KindResource Kind = "resource"
	KindPrompt   Kind = "prompt"
)

// Action is what a promote did with one record.
type Action string

// The actions of a promote.
const (
	Created Action = "created" // a new scenario, resource or prompt
	Merged  Action = "merged"  // the answer of an existing scenario replaced, or a later record of the same call
	Skipped Action = "skipped" // left out, with the reason
)

// Item is what a promote did with one record.
type Item struct {
	JournalID uuid.UUID
	Kind      Kind
	Name      string // the tool's or prompt's name, the resource's URI; "" when the record names none
	Scenario  string // the tool's scenario it made or met; "" for resources and prompts
	Action    Action
	Reason    string // why, and which values were redacted; "" when nothing to say
}

// Result is what a promote did, record by record, newest first.
type Result struct {
	Items        []Item
	ToolsCreated []string // the tools the design lacked, in the order first met
}

// Run promotes the server's records req selects into its design. counts
// is what the server holds, for its limits. Run writes through st; a dry
// run is the caller's transaction rolled back.
func Run(ctx context.Context, st Store, server uuid.UUID, counts store.Counts, req Request) (Result, error) {
	records, err := selected(ctx, st, server, req)
	if err != nil {
		return Result{}, err
	}
	return promote(ctx, st, server, counts, records)
}
