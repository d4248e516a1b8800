// Package config reads the service's configuration from the environment, once,
// into one typed struct. The README's configuration table documents every
// variable and its default.
package config

import (
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// Config is the whole configuration of one instance.
type Config struct {
	DatabaseURL string
	RedisURL    string
	Env         string // "development" or "production"
	ListenAddr  string
	// MetricsAddr is where the Prometheus metrics are served
	// (METRICS_ADDR, 127.0.0.1:9091 by default), a listener of their own:
	// never the public one. Empty serves no metrics.
	MetricsAddr string
	// Pprof serves the Go runtime's profiles (net/http/pprof, under
	// /debug/pprof/) on the metrics listener (PPROF, false).
	Pprof              bool
	BaseURL            string
	MaxPublicRateLimit int
	PlatformRateLimit  int
	TrustedProxies     []netip.Prefix
	// AllowedHosts, when set, are the only Host (and Origin) values the
	// MCP endpoints answer: protection against DNS rebinding.
	AllowedHosts        []string
	MaxBodyBytes        int64
	MaxBatchMessages    int // the longest JSON-RPC batch answered; longer ones are refused whole
	AllowPrivateTargets bool
	LogLevel            slog.Level
	ShutdownTimeout     time.Duration
	// BcryptCost is not read from the environment: tests lower it to keep
	// account creation cheap.
	BcryptCost int
	// RateWindow is the rate limits' fixed window (one minute); not read
	// from the environment: tests shorten it.
	RateWindow time.Duration
	// KeyTouchInterval is how often API keys' last use is written (5 s); not
	// read from the environment: tests lengthen it to flush by hand.
	KeyTouchInterval time.Duration
	// JournalEnabled turns the call journal of the MCP endpoints on.
	JournalEnabled bool
	// JournalRetention is how long journal records are kept.
	JournalRetention time.Duration
	// JournalMaxPerServer is how many journal records a server keeps at
	// most, the newest.
	JournalMaxPerServer int
	// JournalQueue is how many journal records may wait to be written;
	// more are dropped and counted.
	JournalQueue int
	// JournalMaxRate is how many journal records a second one instance
	// takes; past it calls are answered but not recorded (counted).
	JournalMaxRate int
	// JournalMaxRatePerOrg and JournalMaxRatePerServer are how many
	// journal records a second one instance takes of one organization and
	// of one server, so that a tenant's flood drops its own records and not
	// another's; by default half and a quarter of JournalMaxRate.
	JournalMaxRatePerOrg    int
	JournalMaxRatePerServer int
	// JournalPruneInterval is how often retention runs (one minute); not
	// read from the environment: tests shorten it.
	JournalPruneInterval time.Duration
	// DesignStaleMax bounds how long the MCP endpoints serve a cached
	// design that cannot be revalidated while the database is out.
	DesignStaleMax time.Duration
	// DesignCacheEntries and DesignCacheBytes bound the compiled designs
	// the per-server MCP endpoint keeps in memory: their number, and their
	// approximate size.
	DesignCacheEntries int
	DesignCacheBytes   int
	// DesignWarmBytes bounds what compiling the tools of designs entering
	// the cache, in the background, adds to the designs cached
	// (DESIGN_WARM_BYTES, 8 MiB); 0 compiles each tool on its first call.
	DesignWarmBytes int
	// GCHeadroom is the growth of the heap the garbage collector allows
	// between collections, at least (internal/gctune); unless GOGC or
	// GOMEMLIMIT is set.
	GCHeadroom int
	// AskTimeout is how long a round of questions to a client of the
	// legacy revisions (before protocol.Modern: requests on the reply's event stream)
	// waits for the answers when the round has no timeout branch.
	AskTimeout time.Duration
	// MaxPendingQuestions bounds the questions of one server waiting for
	// clients' answers on one instance.
	MaxPendingQuestions int
	// MaxPendingQuestionsPerClient bounds those of one server asked of one
	// client address.
	MaxPendingQuestionsPerClient int
	// ListenMaxPerAddress and ListenMaxPerOrg bound the open
	// subscriptions/listen streams of one instance from one client
	// address, over every server, and on one organization's servers;
	// ListenMaxLifetime is how long one stream lasts before it ends with
	// its result (the client listens again).
	ListenMaxPerAddress int
	ListenMaxPerOrg     int
	ListenMaxLifetime   time.Duration
	// UpstreamTimeout bounds one call forwarded to a design's upstream;
	// UpstreamMaxConcurrent bounds one server's calls at its upstream at
	// once, on each instance.
	UpstreamTimeout       time.Duration
	UpstreamMaxConcurrent int
	// RequestStateSecrets sign the requestState of modern calls (the
	// revision of protocol.Modern) whose scenario asks the client: the first signs, every one verifies.
	// Empty: a secret generated once and kept in the database.
	RequestStateSecrets [][]byte
	// Clock is the time requestState expiry reads (time.Now when nil);
	// not read from the environment: tests set it.
	Clock func() time.Time
	// OAuthVerifier verifies the bearer tokens of designs whose auth_mode
	// is oauth; not read from the environment. When nil the service uses
	// the verifier of its embedded authorization servers.
	OAuthVerifier oauthcfg.Verifier
	// OAuthRegisterRateLimit and OAuthRateLimit bound, per client address
	// and minute, the registrations and the token, authorization and
	// revocation requests of the designs' authorization servers, in every
	// mode (OAUTH_REGISTER_RATE_LIMIT, 60; OAUTH_RATE_LIMIT, 600).
	OAuthRegisterRateLimit int
	OAuthRateLimit         int
	// OAuthClientIdleTTL is how long a registered OAuth client may go
	// unused before it is deleted (OAUTH_CLIENT_IDLE_TTL, 30 days).
	OAuthClientIdleTTL time.Duration
	// Designs is a directory of design files to serve (MOCKMCP_DESIGNS;
	// `mockmcp serve --designs DIR` overrides it). Empty: designs come
	// from the database only.
	Designs string
	// EmbeddedDatabase is true when DATABASE_URL is not set: serve,
	// migrate and keys start a PostgreSQL of their own (internal/embeddedpg)
	// and DatabaseURL is replaced by its URL.
	EmbeddedDatabase bool
	// DataDir is where the embedded PostgreSQL keeps its files
	// (MOCKMCP_DATA_DIR; `--data-dir` overrides it). Empty: the user's
	// state directory (embeddedpg.DefaultDir).
	DataDir string
	// PostgresBinaries is a directory of preinstalled PostgreSQL binaries
	// (bin/, lib/, share/) for the embedded database, for machines that
	// cannot download them (MOCKMCP_POSTGRES_BINARIES).
	PostgresBinaries string
	// PostgresRepository is the Maven repository the embedded database's
	// binaries are downloaded from, a mirror of Maven Central
	// (MOCKMCP_POSTGRES_REPOSITORY).
	PostgresRepository string
}

// MinRequestStateSecret is the shortest secret REQUEST_STATE_SECRETS takes.
const MinRequestStateSecret = 32

// DefaultDatabaseURL is the local PostgreSQL a fresh machine is expected to run.
const DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/mockmcp?sslmode=disable"

// Production reports whether the instance runs in production mode.
func (c Config) Production() bool { return c.Env == "production" }

// FromEnv reads the configuration from the process environment.
func FromEnv() (Config, error) { return ParseLookup(os.LookupEnv) }

// DefaultMetricsAddr is where the metrics are served when METRICS_ADDR is
// not set: loopback only, since they describe the instance to its operator.
const DefaultMetricsAddr = "127.0.0.1:9091"

// Parse reads the configuration through getenv, so tests can supply their
// own; a variable set to "" reads as unset.
func Parse(getenv func(string) string) (Config, error) {
	return ParseLookup(func(name string) (string, bool) {
		v := getenv(name)
		return v, v != ""
	})
}

// ParseLookup reads the configuration through lookup, which tells a
// variable set to "" from one not set: METRICS_ADDR= turns the metrics
// off.
func ParseLookup(lookup func(string) (string, bool)) (Config, error) {
	getenv := func(name string) string {
		v, _ := lookup(name)
		return v
	}
	metrics, set := lookup("METRICS_ADDR")
	if !set {
		metrics = DefaultMetricsAddr
	}
	c := Config{
		MetricsAddr:                  strings.TrimSpace(metrics),
		DatabaseURL:                  or(getenv("DATABASE_URL"), DefaultDatabaseURL),
		RedisURL:                     getenv("REDIS_URL"),
		Env:                          or(getenv("APP_ENV"), "development"),
		ListenAddr:                   or(getenv("LISTEN_ADDR"), ":8080"),
		BaseURL:                      strings.TrimRight(getenv("BASE_URL"), "/"),
		Designs:                      getenv("MOCKMCP_DESIGNS"),
		MaxPublicRateLimit:           100,
		PlatformRateLimit:            500,
		MaxBodyBytes:                 1 << 20,
		MaxBatchMessages:             100,
		LogLevel:                     slog.LevelInfo,
		ShutdownTimeout:              15 * time.Second,
		BcryptCost:                   12,
		RateWindow:                   time.Minute,
		KeyTouchInterval:             5 * time.Second,
		JournalEnabled:               true,
		JournalRetention:             24 * time.Hour,
		JournalMaxPerServer:          1000,
		JournalQueue:                 10000,
		JournalMaxRate:               1000,
		JournalPruneInterval:         time.Minute,
		DesignStaleMax:               5 * time.Minute,
		DesignCacheEntries:           20_000,
		DesignCacheBytes:             384 << 20,
		DesignWarmBytes:              8 << 20,
		GCHeadroom:                   32 << 20,
		AskTimeout:                   time.Minute,
		MaxPendingQuestions:          100,
		UpstreamTimeout:              30 * time.Second,
		UpstreamMaxConcurrent:        8,
		MaxPendingQuestionsPerClient: 20,
		ListenMaxPerAddress:          50,
		ListenMaxPerOrg:              1000,
		ListenMaxLifetime:            30 * time.Minute,
		OAuthRegisterRateLimit:       60,
		OAuthRateLimit:               600,
		OAuthClientIdleTTL:           30 * 24 * time.Hour,
	}
	c.EmbeddedDatabase = getenv("DATABASE_URL") == ""
	c.DataDir = getenv("MOCKMCP_DATA_DIR")
	c.PostgresBinaries = getenv("MOCKMCP_POSTGRES_BINARIES")
	c.PostgresRepository = getenv("MOCKMCP_POSTGRES_REPOSITORY")
	var errs []string
	bad := func(name, format string, args ...any) {
		errs = append(errs, name+": "+fmt.Sprintf(format, args...))
	}
	if c.Env != "development" && c.Env != "production" {
		bad("APP_ENV", "must be development or production, not %q", c.Env)
	}
	positive := func(name string, dst *int) {
		if v := getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				bad(name, "must be a positive integer, not %q", v)
				return
			}
			*dst = n
		}
	}
	duration := func(name, example string, dst *time.Duration) {
		if v := getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				bad(name, "must be a positive duration such as %s, not %q", example, v)
				return
			}
			*dst = d
		}
	}
	boolean := func(name string, dst *bool) {
		if v := getenv(name); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				bad(name, "must be true or false, not %q", v)
				return
			}
			*dst = b
		}
	}
	positive("MAX_PUBLIC_RATE_LIMIT", &c.MaxPublicRateLimit)
	positive("PLATFORM_RATE_LIMIT", &c.PlatformRateLimit)
	positive("MAX_BATCH_MESSAGES", &c.MaxBatchMessages)
	positive("JOURNAL_MAX_PER_SERVER", &c.JournalMaxPerServer)
	positive("JOURNAL_QUEUE", &c.JournalQueue)
	positive("JOURNAL_MAX_RATE", &c.JournalMaxRate)
	c.JournalMaxRatePerOrg, c.JournalMaxRatePerServer = max(c.JournalMaxRate/2, 1), max(c.JournalMaxRate/4, 1)
	positive("JOURNAL_MAX_RATE_PER_ORG", &c.JournalMaxRatePerOrg)
	positive("JOURNAL_MAX_RATE_PER_SERVER", &c.JournalMaxRatePerServer)
	boolean("JOURNAL_ENABLED", &c.JournalEnabled)
	boolean("PPROF", &c.Pprof)
	duration("JOURNAL_RETENTION", "24h", &c.JournalRetention)
	duration("DESIGN_STALE_MAX", "5m", &c.DesignStaleMax)
	positive("DESIGN_CACHE_ENTRIES", &c.DesignCacheEntries)
	positive("DESIGN_CACHE_BYTES", &c.DesignCacheBytes)
	if v := getenv("DESIGN_WARM_BYTES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			bad("DESIGN_WARM_BYTES", "must be a whole number of bytes, 0 or more, not %q", v)
		} else {
			c.DesignWarmBytes = n
		}
	}
	positive("GC_HEADROOM", &c.GCHeadroom)
	duration("ASK_TIMEOUT", "60s", &c.AskTimeout)
	positive("MAX_PENDING_QUESTIONS", &c.MaxPendingQuestions)
	positive("MAX_PENDING_QUESTIONS_PER_CLIENT", &c.MaxPendingQuestionsPerClient)
	positive("LISTEN_MAX_PER_ADDRESS", &c.ListenMaxPerAddress)
	positive("LISTEN_MAX_PER_ORG", &c.ListenMaxPerOrg)
	duration("LISTEN_MAX_LIFETIME", "30m", &c.ListenMaxLifetime)
	duration("UPSTREAM_TIMEOUT", "30s", &c.UpstreamTimeout)
	positive("UPSTREAM_MAX_CONCURRENT", &c.UpstreamMaxConcurrent)
	positive("OAUTH_REGISTER_RATE_LIMIT", &c.OAuthRegisterRateLimit)
	positive("OAUTH_RATE_LIMIT", &c.OAuthRateLimit)
	duration("OAUTH_CLIENT_IDLE_TTL", "720h", &c.OAuthClientIdleTTL)
	if v := getenv("MAX_BODY_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1024 {
			bad("MAX_BODY_BYTES", "must be an integer of at least 1024, not %q", v)
		} else {
			c.MaxBodyBytes = n
		}
	}
	boolean("ALLOW_PRIVATE_TARGETS", &c.AllowPrivateTargets)
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			bad("LOG_LEVEL", "must be debug, info, warn or error, not %q", v)
		}
	}
	duration("SHUTDOWN_TIMEOUT", "15s", &c.ShutdownTimeout)
	for _, s := range strings.FieldsFunc(getenv("TRUSTED_PROXIES"), func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil {
				bad("TRUSTED_PROXIES", "%q is not a CIDR or an address", s)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	for _, h := range strings.FieldsFunc(getenv("ALLOWED_HOSTS"), func(r rune) bool { return r == ',' || r == ' ' }) {
		if strings.ContainsAny(h, "/@") {
			bad("ALLOWED_HOSTS", "%q is not a host or host:port (no scheme or path)", h)
			continue
		}
		c.AllowedHosts = append(c.AllowedHosts, h)
	}
	if v := getenv("REQUEST_STATE_SECRETS"); v != "" {
		for i, sec := range strings.Split(v, ",") {
			sec = strings.TrimSpace(sec)
			if len(sec) < MinRequestStateSecret {
				bad("REQUEST_STATE_SECRETS", "secret %d has %d characters; each needs at least %d", i+1, len(sec), MinRequestStateSecret)
				continue
			}
			c.RequestStateSecrets = append(c.RequestStateSecrets, []byte(sec))
		}
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
