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
	if err := applyParts(ctx, tx, &plan, srv.ID, d, false); err != nil {
		return Plan{}, err
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

	if err := applyParts(ctx, tx, &plan, cur.ID, d, true); err != nil {
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

// applyParts makes the tools, resources and prompts of server the
// design's and records what it did in plan. existing is false for a
// server just created, which has no parts to read.
func applyParts(ctx context.Context, tx *store.Tx, plan *Plan, server uuid.UUID, d design.Design, existing bool) error {
	var err error
	if plan.Tools, err = toolParts.apply(ctx, tx, server, d.Tools, existing); err != nil {
		return err
	}
	if plan.Resources, err = resourceParts.apply(ctx, tx, server, d.Resources, existing); err != nil {
		return err
	}
	plan.Prompts, err = promptParts.apply(ctx, tx, server, d.Prompts, existing)
	return err
}

// partKind is how a document's parts of one kind (tools, resources or
// prompts) are matched, compared, planned and written, and exported in
// the order of their keys.
type partKind[T any] struct {
	// key matches a stored part with the document's and orders an
	// export: the name (a resource's uri).
	key func(T) string
	// form is the part's document form, for comparison.
	form func(T) ([]byte, error)
	// plan names the part in a plan.
	plan func(T) PartPlan
	// ids are the part's own id and its server's.
	ids func(*T) (id, server *uuid.UUID)

	list   func(*store.Tx, context.Context, uuid.UUID) ([]T, error)
	create func(*store.Tx, context.Context, T) (T, error)
	update func(*store.Tx, context.Context, T) (T, error)
	remove func(tx *store.Tx, ctx context.Context, server, id uuid.UUID) error
}

var (
	toolParts = partKind[design.Tool]{
		key:    func(t design.Tool) string { return t.Name },
		form:   toolJSON,
		plan:   func(t design.Tool) PartPlan { return PartPlan{Name: t.Name} },
		ids:    func(t *design.Tool) (*uuid.UUID, *uuid.UUID) { return &t.ID, &t.ServerID },
		list:   (*store.Tx).Tools,
		create: (*store.Tx).CreateTool,
		update: (*store.Tx).UpdateTool,
		remove: (*store.Tx).DeleteTool,
	}
	resourceParts = partKind[design.Resource]{
		key:    func(r design.Resource) string { return r.URI },
		form:   resourceJSON,
		plan:   func(r design.Resource) PartPlan { return PartPlan{Name: r.Name, URI: r.URI} },
		ids:    func(r *design.Resource) (*uuid.UUID, *uuid.UUID) { return &r.ID, &r.ServerID },
		list:   (*store.Tx).Resources,
		create: (*store.Tx).CreateResource,
		update: (*store.Tx).UpdateResource,
		remove: (*store.Tx).DeleteResource,
	}
	promptParts = partKind[design.Prompt]{
		key:    func(p design.Prompt) string { return p.Name },
		form:   promptJSON,
		plan:   func(p design.Prompt) PartPlan { return PartPlan{Name: p.Name} },
		ids:    func(p *design.Prompt) (*uuid.UUID, *uuid.UUID) { return &p.ID, &p.ServerID },
		list:   (*store.Tx).Prompts,
		create: (*store.Tx).CreatePrompt,
		update: (*store.Tx).UpdatePrompt,
		remove: (*store.Tx).DeletePrompt,
	}
)

// apply makes server's parts of this kind want, comparing them with the
// ones it has when it is an existing server, and returns the plan of each.
func (k partKind[T]) apply(ctx context.Context, tx *store.Tx, server uuid.UUID, want []T, existing bool) ([]PartPlan, error) {
	var have []T
	if existing {
		var err error
		if have, err = k.list(tx, ctx, server); err != nil {
			return nil, err
		}
	}
	return k.reconcile(want, have, func(part, old *T) error {
		switch {
		case old == nil:
			id, srv := k.ids(part)
			*id, *srv = uuid.New(), server
			_, err := k.create(tx, ctx, *part)
			return err
		case part == nil:
			oldID, _ := k.ids(old)
			return k.remove(tx, ctx, server, *oldID)
		}
		oldID, _ := k.ids(old)
		id, srv := k.ids(part)
		*id, *srv = *oldID, server
		_, err := k.update(tx, ctx, *part)
		return err
	})
}

// reconcile makes have (the server's parts) match want (the document's),
// matching them by key: write(part, nil) creates, write(nil, old) deletes,
// write(part, old) updates a part whose document form differs. Deletions
// run first, so that a key freed by one is free for the rest.
func (k partKind[T]) reconcile(want, have []T, write func(part, old *T) error) ([]PartPlan, error) {
	key, form, plan := k.key, k.form, k.plan
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
