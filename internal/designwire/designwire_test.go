package designwire_test

import (
	"testing"

	"github.com/oapi-codegen/nullable"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

func TestServerFromCreateTakesTheDefaults(t *testing.T) {
	v := designwire.ServerFromCreate(api.CreateServerRequest{Name: "  Weather "})
	d := design.ServerDefaults()
	require.Equal(t, "Weather", v.Name)
	require.Equal(t, d.Eras, v.Eras)
	require.Equal(t, d.CacheTTLMs, v.CacheTTLMs)
	require.Equal(t, d.CacheScope, v.CacheScope)

	ttl := 5
	v = designwire.ServerFromCreate(api.CreateServerRequest{Name: "W", CacheTtlMs: &ttl})
	require.Equal(t, 5, v.CacheTTLMs, "a given setting is kept")
}

func TestPatchServer(t *testing.T) {
	provider := "Acme"
	base := func() design.Server {
		return design.Server{Name: "Weather", Description: "d", Version: "1.0.0", ProviderName: &provider,
			Type: "mock", CacheTTLMs: 100, CacheScope: design.CacheScopePrivate,
			Fault: &mockspec.Fault{Rate: 0.5, DelayMS: 10}}
	}

	v := base()
	designwire.PatchServer(&v, api.UpdateServerRequest{})
	require.Equal(t, base(), v, "an empty body changes nothing")

	name, ttl := "  Tides ", 0
	scope := api.CacheScope(design.CacheScopePublic)
	v = base()
	designwire.PatchServer(&v, api.UpdateServerRequest{Name: &name, CacheTtlMs: &ttl, CacheScope: &scope})
	require.Equal(t, "Tides", v.Name)
	require.Equal(t, 0, v.CacheTTLMs, "a zero is a value, not an absence")
	require.Equal(t, design.CacheScopePublic, v.CacheScope)
	require.Equal(t, "d", v.Description, "what the body leaves out is kept")
	require.NotNil(t, v.Fault)

	v = base()
	designwire.PatchServer(&v, api.UpdateServerRequest{ProviderName: nullable.NewNullNullable[string](),
		Fault: nullable.NewNullNullable[api.Fault]()})
	require.Nil(t, v.ProviderName, "null removes the provider")
	require.Nil(t, v.Fault, "null removes the fault")
}
