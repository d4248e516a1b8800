// Package draft stores an imported design (from an OpenAPI document or a
// live MCP server) as a new draft server of the caller's organization,
// checked as a design made by hand would be, with its provenance.
package draft

import (
	"context"
	"encoding/json"

	"github.com/mockmcp/mockmcp/internal/design"
)

// Store is what creating a draft writes in one transaction of the caller's
// organization; *store.Tx is one.
type Store interface {
	CreateDesign(ctx context.Context, d design.Design, createdBy string) (design.Server, error)
}

// InTx runs fn in one transaction of the caller's organization.
type InTx func(ctx context.Context, fn func(Store) error) error

// Import is a design an importer made, where it came from and what the
// importer could not carry over faithfully.
type Import struct {
	Design   design.Design
	Source   json.RawMessage // the provenance, kept as the server's source
	Warnings []string
}

// Created is the draft server made from an import, with how many tools,
// resources and prompts it holds and the importer's warnings (never nil).
type Created struct {
	Server                    design.Server
	Tools, Resources, Prompts int
	Warnings                  []string
}

// Create checks the design of in, with its source, and creates it as a
// draft server by actor. A design that does not check out writes nothing
// and opens no transaction.
func Create(ctx context.Context, inTx InTx, in Import, actor string) (Created, error) {
	d := in.Design
	d.Server.Source = in.Source
	if err := design.CheckDesign(d); err != nil {
		return Created{}, err
	}
	var srv design.Server
	err := inTx(ctx, func(st Store) (err error) {
		srv, err = st.CreateDesign(ctx, d, actor)
		return err
	})
	if err != nil {
		return Created{}, err
	}
	warnings := in.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return Created{Server: srv, Tools: len(d.Tools), Resources: len(d.Resources), Prompts: len(d.Prompts),
		Warnings: warnings}, nil
}
