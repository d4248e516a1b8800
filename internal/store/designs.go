package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
)

// Designs is the part of the Store that reads whole designs for the MCP
// endpoint, announces their changes, and imports them.
type Designs struct{ *conn }

// DesignsTx is the part of a transaction that writes and reads a whole
// design: a server with its tools, resources and prompts.
type DesignsTx struct{ *txConn }

// servers and components are the parts a whole design is made of.
func (t DesignsTx) servers() ServersTx       { return ServersTx(t) }
func (t DesignsTx) components() ComponentsTx { return ComponentsTx(t) }

// ServedDesign reads the design of an enabled server by id alone, for the
// public MCP endpoint: the server row is visible only through the policy on
// app.public_server_id, and the rest is read as its own organization.
func (s Designs) ServedDesign(ctx context.Context, id uuid.UUID) (design.Design, error) {
	return servedRead(ctx, s.conn, id, func(tx *Tx, srv design.Server) (design.Design, error) {
		limit, err := tx.q.OrganizationPublicLimit(ctx, tx.tx, srv.OrgID)
		if err != nil {
			return design.Design{}, err
		}
		d, err := tx.DesignOf(ctx, srv)
		d.PublicLimit = limit
		return d, err
	})
}

// servedRead runs read on enabled server id, found by id alone, in a
// transaction that reads the server row through the public endpoint's
// policy and the rest as the server's organization (see servedServer).
func servedRead[T any](ctx context.Context, c *conn, id uuid.UUID, read func(*Tx, design.Server) (T, error)) (T, error) {
	var out T
	err := c.inTx(ctx, Scope{PublicServerID: id}, func(tx *Tx) error {
		srv, err := tx.servedServer(ctx, id)
		if err != nil {
			return err
		}
		out, err = read(tx, srv)
		return err
	})
	return out, err
}

// servedServer reads enabled server id in a transaction of scope
// PublicServerID (the row is visible only through the policy on
// app.public_server_id), then makes the transaction its organization's for
// the rest of the design.
func (t DesignsTx) servedServer(ctx context.Context, id uuid.UUID) (design.Server, error) {
	srv, err := found("server", infallible(serverFrom))(t.q.GetServedServer(ctx, t.tx, id))
	if err != nil {
		return srv, err
	}
	return srv, t.SetOrg(ctx, srv.OrgID)
}

// DesignOf reads what server owns: its tools, resources and prompts.
func (t DesignsTx) DesignOf(ctx context.Context, server design.Server) (design.Design, error) {
	d := design.Design{Server: server}
	var err error
	if d.Tools, err = t.components().Tools(ctx, server.ID); err != nil {
		return d, err
	}
	if d.Resources, err = t.components().Resources(ctx, server.ID); err != nil {
		return d, err
	}
	d.Prompts, err = t.components().Prompts(ctx, server.ID)
	return d, err
}

// DesignChannel is the notification channel on which every change to a
// design announces the server's id.
const DesignChannel = "mockmcp_design"

// ListenDesigns is Listen on DesignChannel: fn receives the id, as text, of
// every server whose design changed.
func (s Designs) ListenDesigns(ctx context.Context, fn func(payload string), reset, ready func(), onError func(error)) {
	s.listen(ctx, DesignChannel, fn, reset, ready, onError)
}

// CreateDesign inserts a whole design, a server with its tools, resources
// and prompts, in the transaction's organization (an import). New ids are
// given to everything; the server is a draft.
func (t DesignsTx) CreateDesign(ctx context.Context, d design.Design, createdBy string) (design.Server, error) {
	s := d.Server
	s.ID, s.CreatedBy, s.Enabled = uuid.New(), createdBy, false
	srv, err := t.servers().CreateServer(ctx, s)
	if err != nil {
		return design.Server{}, err
	}
	for _, tool := range d.Tools {
		tool.ID, tool.ServerID = uuid.New(), srv.ID
		if _, err := t.components().CreateTool(ctx, tool); err != nil {
			return design.Server{}, err
		}
	}
	for _, r := range d.Resources {
		r.ID, r.ServerID = uuid.New(), srv.ID
		if _, err := t.components().CreateResource(ctx, r); err != nil {
			return design.Server{}, err
		}
	}
	for _, p := range d.Prompts {
		p.ID, p.ServerID = uuid.New(), srv.ID
		if _, err := t.components().CreatePrompt(ctx, p); err != nil {
			return design.Server{}, err
		}
	}
	return srv, nil
}
