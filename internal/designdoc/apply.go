package designdoc

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/yamljson"
)

// Action is what applying a document does to the server or to one part.
type Action string

// The actions of a plan.
const (
	Created   Action = "created"
	Updated   Action = "updated"
	Deleted   Action = "deleted"
	Unchanged Action = "unchanged"
)

// Plan is what applying a document did, or, in a dry run, would do.
type Plan struct {
	DryRun bool
	// Changed reports whether anything was (or would be) written.
	Changed bool
	Server  ServerPlan
	// Tools, Resources and Prompts list the document's parts in its
	// order, then the parts it deletes, sorted by name (resources by uri).
	Tools     []PartPlan
	Resources []PartPlan
	Prompts   []PartPlan
}

// ServerPlan is what happens to the server.
type ServerPlan struct {
	// ID is the server's id; uuid.Nil for a server a dry run would create
	// without a pinned id.
	ID     uuid.UUID
	Name   string
	Action Action
}

// PartPlan is what happens to one tool, resource or prompt.
type PartPlan struct {
	Name string
	URI  string // a resource's uri, its key; empty for tools and prompts
	// Action is what happens to it.
	Action Action
}

// ApplyOptions are the choices of one Apply.
type ApplyOptions struct {
	// DryRun computes the plan and writes nothing.
	DryRun bool
	// CreatedBy is recorded as the creator of a server the document
	// creates (auth.Principal.Actor() for a caller of the API).
	CreatedBy string
	// EnableByDefault enables the server when the document names no
	// enabled state (local mode serves every file that does not say
	// enabled: false).
	EnableByDefault bool
	// MaxJSONBytes bounds the JSON a YAML document may expand to, its
	// aliases expanded (MAX_BODY_BYTES); 0 means yamljson.DefaultLimit.
	MaxJSONBytes int64
}

// errDryRun rolls back the transaction of a dry run.
var errDryRun = errors.New("dry run")

// Apply makes org's server match the design document raw (JSON or YAML,
// see Parse), in one transaction, and returns the plan it carried out.
//
// The server is the one with the document's id when it has one, else the
// one with its name (two servers of that name: a conflict naming "name").
// When there is none it is created, with the document's id when given (an
// id taken by a server of another organization: a conflict naming "id"),
// as a draft unless the document says enabled. Otherwise it keeps its id
// and gets the document's fields (its enabled state too, when the document
// names one); its tools and prompts, matched by name, and resources,
// matched by uri, are created, updated or deleted so that it holds exactly
// the document's. What already matches is left untouched, so applying a
// document twice changes nothing the second time. With opts.DryRun the
// same plan is computed in a transaction that is rolled back.
//
// org may name the organization by slug (operator use). It is the one
// entry point of documents for the REST API and the command line.
func Apply(ctx context.Context, st *store.Store, org store.OrgRef, raw []byte, opts ApplyOptions) (Plan, error) {
	limit := opts.MaxJSONBytes
	if limit <= 0 {
		limit = yamljson.DefaultLimit
	}
	doc, err := parse(raw, limit)
	if err != nil {
		return Plan{}, err
	}
	if doc.Enabled == nil && opts.EnableByDefault {
		enabled := true
		doc.Enabled = &enabled
	}
	var plan Plan
	err = st.InOrg(ctx, org, func(tx *store.Tx) error {
		var err error
		plan, err = apply(ctx, tx, doc, opts)
		if err == nil && opts.DryRun {
			return errDryRun
		}
		return err
	})
	if errors.Is(err, errDryRun) {
		err = nil
	}
	if err != nil {
		return Plan{}, err
	}
	plan.DryRun = opts.DryRun
	return plan, nil
}

func apply(ctx context.Context, tx *store.Tx, doc Document, opts ApplyOptions) (Plan, error) {
	cur, found, err := target(ctx, tx, doc)
	if err != nil {
		return Plan{}, err
	}
	if !found {
		return create(ctx, tx, doc, opts)
	}
	return update(ctx, tx, cur, doc)
}

// target finds the server the document is about, locked.
func target(ctx context.Context, tx *store.Tx, doc Document) (design.Server, bool, error) {
	id := doc.ID
	if id == uuid.Nil {
		if err := tx.LockServerName(ctx, doc.Design.Server.Name); err != nil {
			return design.Server{}, false, err
		}
		named, err := tx.ServersNamed(ctx, doc.Design.Server.Name)
		switch {
		case err != nil:
			return design.Server{}, false, err
		case len(named) == 0:
			return design.Server{}, false, nil
		case len(named) > 1:
			return design.Server{}, false, &failure.Error{Kind: failure.KindConflict,
				Detail: "more than one server has this name; give the document the id of the one to update",
				Fields: []failure.FieldError{failure.Field("name", "%d servers are named %q", len(named), doc.Design.Server.Name)}}
		}
		id = named[0].ID
	}
	cur, err := tx.LockServer(ctx, id)
	if failure.Is(err, failure.ErrNotFound) {
		return design.Server{}, false, nil
	}
	return cur, err == nil, err
}

func create(ctx context.Context, tx *store.Tx, doc Document, opts ApplyOptions) (Plan, error) {
	d := doc.Design
	s := d.Server
	s.ID, s.CreatedBy = doc.ID, opts.CreatedBy
	if s.ID == uuid.Nil {
		s.ID = uuid.New()
	}
	srv, err := tx.CreateServer(ctx, s)
	if err != nil {
		if doc.ID != uuid.Nil && store.IsConflict(err) {
			return Plan{}, &failure.Error{Kind: failure.KindConflict,
				Detail: "a server with this id already exists in another organization",
				Fields: []failure.FieldError{failure.Field("id", "is the id of another organization's server")}}
		}
		return Plan{}, err
	}
	if doc.Enabled != nil && *doc.Enabled {
		srv.Enabled = true
		if srv, err = tx.UpdateServer(ctx, srv); err != nil {
			return Plan{}, err
		}
	}
	plan := Plan{Changed: true, Server: ServerPlan{ID: srv.ID, Name: srv.Name, Action: Created}}
	if opts.DryRun && doc.ID == uuid.Nil {
		plan.Server.ID = uuid.Nil
	}
	for _, t := range d.Tools {
		t.ID, t.ServerID = uuid.New(), srv.ID
		if _, err := tx.CreateTool(ctx, t); err != nil {
			return Plan{}, err
		}
		plan.Tools = append(plan.Tools, PartPlan{Name: t.Name, Action: Created})
	}
	for _, r := range d.Resources {
		r.ID, r.ServerID = uuid.New(), srv.ID
		if _, err := tx.CreateResource(ctx, r); err != nil {
			return Plan{}, err
		}
		plan.Resources = append(plan.Resources, PartPlan{Name: r.Name, URI: r.URI, Action: Created})
	}
	for _, p := range d.Prompts {
		p.ID, p.ServerID = uuid.New(), srv.ID
		if _, err := tx.CreatePrompt(ctx, p); err != nil {
			return Plan{}, err
		}
		plan.Prompts = append(plan.Prompts, PartPlan{Name: p.Name, Action: Created})
	}
	return plan, nil
}

func update(ctx context.Context, tx *store.Tx, cur design.Server, doc Document) (Plan, error) {
	d := doc.Design
	want := d.Server
	// Documents do not carry the upstream: applying one keeps the stored one.
	want.ID, want.OrgID, want.CreatedBy, want.Source, want.Upstream = cur.ID, cur.OrgID, cur.CreatedBy, cur.Source, cur.Upstream
	want.Enabled = cur.Enabled
	if doc.Enabled != nil {
		want.Enabled = *doc.Enabled
	}
	plan := Plan{Server: ServerPlan{ID: cur.ID, Name: want.Name, Action: Unchanged}}
	if !same(serverMembersJSON(cur), serverMembersJSON(want)) {
		if _, err := tx.UpdateServer(ctx, want); err != nil {
			return Plan{}, err
		}
		plan.Server.Action = Updated
	}

	tools, err := tx.Tools(ctx, cur.ID)
	if err != nil {
		return Plan{}, err
	}
	plan.Tools, err = reconcile(d.Tools, tools, func(t design.Tool) string { return t.Name }, toolJSON,
		func(t design.Tool) PartPlan { return PartPlan{Name: t.Name} },
		func(t *design.Tool, old *design.Tool) error {
			switch {
			case old == nil:
				t.ID, t.ServerID = uuid.New(), cur.ID
				_, err := tx.CreateTool(ctx, *t)
				return err
			case t == nil:
				return tx.DeleteTool(ctx, cur.ID, old.ID)
			}
			t.ID, t.ServerID = old.ID, cur.ID
			_, err := tx.UpdateTool(ctx, *t)
			return err
		})
	if err != nil {
		return Plan{}, err
	}
	resources, err := tx.Resources(ctx, cur.ID)
	if err != nil {
		return Plan{}, err
	}
	plan.Resources, err = reconcile(d.Resources, resources, func(r design.Resource) string { return r.URI }, resourceJSON,
		func(r design.Resource) PartPlan { return PartPlan{Name: r.Name, URI: r.URI} },
		func(r *design.Resource, old *design.Resource) error {
			switch {
			case old == nil:
				r.ID, r.ServerID = uuid.New(), cur.ID
				_, err := tx.CreateResource(ctx, *r)
				return err
			case r == nil:
				return tx.DeleteResource(ctx, cur.ID, old.ID)
			}
			r.ID, r.ServerID = old.ID, cur.ID
			_, err := tx.UpdateResource(ctx, *r)
			return err
		})
	if err != nil {
		return Plan{}, err
	}
	prompts, err := tx.Prompts(ctx, cur.ID)
	if err != nil {
		return Plan{}, err
	}
	plan.Prompts, err = reconcile(d.Prompts, prompts, func(p design.Prompt) string { return p.Name }, promptJSON,
		func(p design.Prompt) PartPlan { return PartPlan{Name: p.Name} },
		func(p *design.Prompt, old *design.Prompt) error {
			switch {
			case old == nil:
				p.ID, p.ServerID = uuid.New(), cur.ID
				_, err := tx.CreatePrompt(ctx, *p)
				return err
			case p == nil:
				return tx.DeletePrompt(ctx, cur.ID, old.ID)
			}
			p.ID, p.ServerID = old.ID, cur.ID
			_, err := tx.UpdatePrompt(ctx, *p)
			return err
		})
	if err != nil {
		return Plan{}, err
	}

	partsChanged := changed(plan.Tools) || changed(plan.Resources) || changed(plan.Prompts)
	plan.Changed = plan.Server.Action != Unchanged || partsChanged
	if partsChanged && plan.Server.Action == Unchanged {
		// Anything cached from the design learns it is stale.
		if err := tx.TouchServer(ctx, cur.ID); err != nil {
			return Plan{}, err
		}
	}
	return plan, nil
}

// reconcile makes have (the server's parts) match want (the document's),
// matching them by key: write(part, nil) creates, write(nil, old) deletes,
// write(part, old) updates a part whose document form differs. Deletions
// run first, so that a key freed by one is free for the rest.
func reconcile[T any](want, have []T, key func(T) string, form func(T) ([]byte, error), plan func(T) PartPlan,
	write func(part, old *T) error) ([]PartPlan, error) {
	wanted := make(map[string]bool, len(want))
	for _, p := range want {
		wanted[key(p)] = true
	}
	byKey := make(map[string]*T, len(have))
	var gone []T
	for i := range have {
		if wanted[key(have[i])] {
			byKey[key(have[i])] = &have[i]
		} else {
			gone = append(gone, have[i])
		}
	}
	slices.SortFunc(gone, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	var deleted []PartPlan
	for i := range gone {
		if err := write(nil, &gone[i]); err != nil {
			return nil, err
		}
		p := plan(gone[i])
		p.Action = Deleted
		deleted = append(deleted, p)
	}
	out := make([]PartPlan, 0, len(want)+len(deleted))
	for i := range want {
		p := plan(want[i])
		old := byKey[key(want[i])]
		switch {
		case old == nil:
			p.Action = Created
		default:
			a, err := form(*old)
			if err != nil {
				return nil, err
			}
			b, err := form(want[i])
			if err != nil {
				return nil, err
			}
			p.Action = Unchanged
			if !same(a, b) {
				p.Action = Updated
			}
		}
		if p.Action != Unchanged {
			if err := write(&want[i], old); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return append(out, deleted...), nil
}

func changed(parts []PartPlan) bool {
	return slices.ContainsFunc(parts, func(p PartPlan) bool { return p.Action != Unchanged })
}

// serverMembersJSON is the server's document form, for comparison.
func serverMembersJSON(v design.Server) []byte {
	m, err := serverMembers(v)
	if err != nil {
		return nil
	}
	return ordered(m, serverOrder)
}

// same compares two document forms as JSON values: jsonb reorders object
// members and may respell numbers, which changes nothing.
func same(a, b []byte) bool {
	va, err := jsonvalue.Decode(a)
	if err != nil {
		return false
	}
	vb, err := jsonvalue.Decode(b)
	if err != nil {
		return false
	}
	return jsonvalue.Equal(va, vb)
}
