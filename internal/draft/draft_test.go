package draft

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// memStore keeps the designs created, in memory.
type memStore struct {
	created []design.Design
	by      []string
	txs     int
	fail    error // answered by CreateDesign when set
}

func (m *memStore) CreateDesign(_ context.Context, d design.Design, createdBy string) (design.Server, error) {
	if m.fail != nil {
		return design.Server{}, m.fail
	}
	m.created, m.by = append(m.created, d), append(m.by, createdBy)
	s := d.Server
	s.ID, s.CreatedBy = uuid.New(), createdBy
	return s, nil
}

func (m *memStore) inTx(_ context.Context, fn func(Store) error) error {
	m.txs++
	return fn(m)
}

// weather is a valid imported design of one tool and one prompt.
func weather() design.Design {
	return design.Design{
		Server: design.Server{Name: "weather", Version: "1.0.0", Type: "mock", ProtocolVersion: protocol.Latest,
			AuthMode: "none", Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope},
		Tools:   []design.Tool{{Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Prompts: []design.Prompt{{Name: "forecast"}},
	}
}

func TestCreate(t *testing.T) {
	ctx := context.Background()
	source := json.RawMessage(`{"kind":"openapi","url":"https://api.example.com/openapi.json"}`)

	m := &memStore{}
	out, err := Create(ctx, m.inTx, Import{Design: weather(), Source: source}, "ada@example.com")
	require.NoError(t, err)
	require.Equal(t, 1, m.txs)
	require.Len(t, m.created, 1)
	require.JSONEq(t, string(source), string(m.created[0].Server.Source), "the design keeps its provenance")
	require.Equal(t, []string{"ada@example.com"}, m.by)
	require.Equal(t, "weather", out.Server.Name)
	require.NotEqual(t, uuid.Nil, out.Server.ID)
	require.Equal(t, [3]int{1, 0, 1}, [3]int{out.Tools, out.Resources, out.Prompts})
	require.NotNil(t, out.Warnings, "no warnings is an empty list")
	require.Empty(t, out.Warnings)

	out, err = Create(ctx, m.inTx, Import{Design: weather(), Warnings: []string{"a lossy schema"}}, "ada@example.com")
	require.NoError(t, err)
	require.Equal(t, []string{"a lossy schema"}, out.Warnings)

	bad := weather()
	bad.Server.Name = ""
	bad.Tools = append(bad.Tools, bad.Tools[0])
	m = &memStore{}
	_, err = Create(ctx, m.inTx, Import{Design: bad}, "ada@example.com")
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	var named []string
	for _, fe := range f.Fields {
		named = append(named, fe.Field)
	}
	require.Contains(t, named, "name")
	require.Contains(t, named, "tools[1].name")
	require.Zero(t, m.txs, "a design that does not check out opens no transaction")

	m = &memStore{fail: errors.New("connection lost")}
	_, err = Create(ctx, m.inTx, Import{Design: weather()}, "ada@example.com")
	require.ErrorIs(t, err, m.fail)
}
