package config

import (
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// requireRefused requires Parse to refuse each setting, given as
// KEY=value, with an error that names the variable and its value.
func requireRefused(t *testing.T, settings ...string) {
	t.Helper()
	for _, setting := range settings {
		key, value, _ := strings.Cut(setting, "=")
		t.Run(setting, func(t *testing.T) {
			_, err := Parse(env(map[string]string{key: value}))
			require.ErrorContains(t, err, key)
			require.ErrorContains(t, err, value)
		})
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, DefaultDatabaseURL, c.DatabaseURL)
	require.Equal(t, "development", c.Env)
	require.False(t, c.Production())
	require.Equal(t, ":8080", c.ListenAddr)
	require.Equal(t, 100, c.MaxPublicRateLimit)
	require.Equal(t, 500, c.PlatformRateLimit)
	require.Equal(t, int64(1<<20), c.MaxBodyBytes)
	require.Equal(t, 100, c.MaxBatchMessages)
	require.False(t, c.AllowPrivateTargets)
	require.Equal(t, slog.LevelInfo, c.LogLevel)
	require.Empty(t, c.TrustedProxies)
	require.Equal(t, 15*time.Second, c.ShutdownTimeout)
	require.Empty(t, c.Designs)
}

func TestParse(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"DATABASE_URL": "postgres://x@db/y", "REDIS_URL": "redis://r:6379/0", "APP_ENV": "production",
		"LISTEN_ADDR": ":9000", "BASE_URL": "https://mock.example.com/", "MAX_PUBLIC_RATE_LIMIT": "7",
		"PLATFORM_RATE_LIMIT": "9", "TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7", "MAX_BODY_BYTES": "2048",
		"ALLOW_PRIVATE_TARGETS": "true", "LOG_LEVEL": "debug", "SHUTDOWN_TIMEOUT": "3s", "MAX_BATCH_MESSAGES": "12",
		"MOCKMCP_DESIGNS": "./designs",
	}))
	require.NoError(t, err)
	require.True(t, c.Production())
	require.Equal(t, "postgres://x@db/y", c.DatabaseURL)
	require.Equal(t, "redis://r:6379/0", c.RedisURL)
	require.Equal(t, "https://mock.example.com", c.BaseURL, "trailing slash trimmed")
	require.Equal(t, 7, c.MaxPublicRateLimit)
	require.Equal(t, 9, c.PlatformRateLimit)
	require.Equal(t, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.7/32")}, c.TrustedProxies)
	require.Equal(t, int64(2048), c.MaxBodyBytes)
	require.Equal(t, 12, c.MaxBatchMessages)
	require.True(t, c.AllowPrivateTargets)
	require.Equal(t, slog.LevelDebug, c.LogLevel)
	require.Equal(t, 3*time.Second, c.ShutdownTimeout)
	require.Equal(t, "./designs", c.Designs)
}

func TestParseErrorsNameTheVariable(t *testing.T) {
	requireRefused(t, "APP_ENV=staging", "MAX_PUBLIC_RATE_LIMIT=0", "PLATFORM_RATE_LIMIT=many", "MAX_BODY_BYTES=10",
		"MAX_BATCH_MESSAGES=0", "ALLOW_PRIVATE_TARGETS=maybe", "LOG_LEVEL=loud", "TRUSTED_PROXIES=10.0.0.0/33",
		"SHUTDOWN_TIMEOUT=-1s")
}

func TestDesignStaleMax(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, 5*time.Minute, c.DesignStaleMax)
	c, err = Parse(env(map[string]string{"DESIGN_STALE_MAX": "90s"}))
	require.NoError(t, err)
	require.Equal(t, 90*time.Second, c.DesignStaleMax)
	for _, bad := range []string{"0", "-1m", "soon"} {
		_, err := Parse(env(map[string]string{"DESIGN_STALE_MAX": bad}))
		require.ErrorContains(t, err, "DESIGN_STALE_MAX", bad)
	}
}

func TestDesignCache(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, 20_000, c.DesignCacheEntries)
	require.Equal(t, 384<<20, c.DesignCacheBytes)
	c, err = Parse(env(map[string]string{"DESIGN_CACHE_ENTRIES": "500", "DESIGN_CACHE_BYTES": "1048576"}))
	require.NoError(t, err)
	require.Equal(t, 500, c.DesignCacheEntries)
	require.Equal(t, 1<<20, c.DesignCacheBytes)
	require.Equal(t, 32<<20, c.GCHeadroom)
	for _, name := range []string{"DESIGN_CACHE_ENTRIES", "DESIGN_CACHE_BYTES", "GC_HEADROOM"} {
		_, err := Parse(env(map[string]string{name: "0"}))
		require.ErrorContains(t, err, name)
	}
}

func TestDesignWarmBytes(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, 8<<20, c.DesignWarmBytes)
	c, err = Parse(env(map[string]string{"DESIGN_WARM_BYTES": "0"}))
	require.NoError(t, err)
	require.Zero(t, c.DesignWarmBytes, "0 turns warming off")
	for _, bad := range []string{"-1", "lots"} {
		_, err := Parse(env(map[string]string{"DESIGN_WARM_BYTES": bad}))
		require.ErrorContains(t, err, "DESIGN_WARM_BYTES")
	}
}

func TestPprof(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.False(t, c.Pprof, "off by default")
	c, err = Parse(env(map[string]string{"PPROF": "true"}))
	require.NoError(t, err)
	require.True(t, c.Pprof)
}

func TestDesigns(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.Designs, "local mode is off by default")
	c, err = Parse(env(map[string]string{"MOCKMCP_DESIGNS": "./mocks"}))
	require.NoError(t, err)
	require.Equal(t, "./mocks", c.Designs)
}

func TestMetricsAddr(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9091", c.MetricsAddr, "on, on loopback, by default")

	c, err = Parse(env(map[string]string{"METRICS_ADDR": ":9100"}))
	require.NoError(t, err)
	require.Equal(t, ":9100", c.MetricsAddr)

	lookup := func(m map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
	}
	c, err = ParseLookup(lookup(map[string]string{"METRICS_ADDR": ""}))
	require.NoError(t, err)
	require.Empty(t, c.MetricsAddr, "set and empty: no metrics")
	c, err = ParseLookup(lookup(nil))
	require.NoError(t, err)
	require.Equal(t, DefaultMetricsAddr, c.MetricsAddr)
	require.Equal(t, ":8080", c.ListenAddr, "the other variables read as before")
}

func TestEmbeddedDatabase(t *testing.T) {
	c, err := Parse(env(map[string]string{"MOCKMCP_DATA_DIR": "/var/lib/m", "MOCKMCP_POSTGRES_BINARIES": "/opt/pg",
		"MOCKMCP_POSTGRES_REPOSITORY": "https://maven.example.com/maven2"}))
	require.NoError(t, err)
	require.True(t, c.EmbeddedDatabase, "no DATABASE_URL")
	require.Equal(t, "/var/lib/m", c.DataDir)
	require.Equal(t, "/opt/pg", c.PostgresBinaries)
	require.Equal(t, "https://maven.example.com/maven2", c.PostgresRepository)

	c, err = Parse(env(map[string]string{"DATABASE_URL": "postgres://x@db/y"}))
	require.NoError(t, err)
	require.False(t, c.EmbeddedDatabase)
	require.Equal(t, "postgres://x@db/y", c.DatabaseURL)
}
