package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/audit"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/httpapi"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/store"
)

// BenchmarkPolicySpecAuditWriter loads GET /api/platform/{id}/mcp/spec with
// 32 concurrent callers on two instances of the REST API over one database:
// one with the policy audit writer, one without. Rounds alternate between
// the two so that both see the same machine; the p99 of each is reported,
// and their ratio. The writer really writes: its records are counted.
func BenchmarkPolicySpecAuditWriter(b *testing.B) {
	const (
		conns  = 32
		rounds = 3
		each   = 2 * time.Second
	)
	env := apitest.New(b, nil)
	owner := env.Signup(b, "Bench Org")
	server := mkServer(b, owner, "bench")
	for i := range 20 {
		mkChild(b, owner, server, "tools", map[string]any{"name": fmt.Sprintf("tool_%d", i),
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}})
	}
	raw := owner.Do("POST", "/api/keys", map[string]any{"name": "bench", "bound_server_id": server}).
		Status(http.StatusCreated).String("raw_key")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := store.Open(ctx, env.Config.DatabaseURL)
	require.NoError(b, err)
	defer st.Close()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ks := keys.New(st, log, keys.Options{})
	aw := audit.New(st, log, audit.Options{})
	var bg sync.WaitGroup
	bg.Go(func() { ks.Run(ctx) })
	bg.Go(func() { aw.Run(ctx) })
	defer bg.Wait()
	defer cancel()
	<-ks.Ready()

	spec, err := api.GetSpec()
	require.NoError(b, err)
	target := func(w *audit.Writer) string {
		e, err := httpapi.New(st, env.Config, log, httpapi.Deps{Spec: spec, Keys: ks, Audit: w, ClientIP: clientip.New(nil)})
		require.NoError(b, err)
		srv := httptest.NewServer(e)
		b.Cleanup(srv.Close)
		return srv.URL + "/api/platform/" + server + "/mcp/spec"
	}
	urls := map[string]string{"audited": target(aw), "unaudited": target(nil)}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}

	load := func(url string) []time.Duration {
		var (
			mu  sync.Mutex
			all []time.Duration
			wg  sync.WaitGroup
		)
		stop := time.Now().Add(each)
		for range conns {
			wg.Go(func() {
				var mine []time.Duration
				for time.Now().Before(stop) {
					req, _ := http.NewRequest("GET", url, nil)
					req.Header.Set("X-API-Key", raw)
					start := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				all = append(all, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return all
	}
	p99 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)*99/100]
	}

	for range b.N {
		lat := map[string][]time.Duration{}
		load(urls["audited"]) // warm up both
		load(urls["unaudited"])
		written := aw.Stats().Written
		b.ResetTimer()
		for range rounds {
			for _, name := range []string{"audited", "unaudited"} {
				lat[name] = append(lat[name], load(urls[name])...)
			}
		}
		b.StopTimer()
		require.Eventually(b, func() bool { return aw.Stats().Written-written >= uint64(len(lat["audited"])) },
			10*time.Second, 10*time.Millisecond, "every audited call is written")
		on, off := p99(lat["audited"]), p99(lat["unaudited"])
		b.ReportMetric(float64(on.Microseconds())/1000, "p99-audited-ms")
		b.ReportMetric(float64(off.Microseconds())/1000, "p99-unaudited-ms")
		b.ReportMetric(float64(on)/float64(off), "p99-ratio")
		b.ReportMetric(float64(len(lat["audited"]))/(rounds*each.Seconds()), "audited-req/s")
		b.ReportMetric(float64(len(lat["unaudited"]))/(rounds*each.Seconds()), "unaudited-req/s")
		b.ReportMetric(float64(aw.Stats().Dropped), "dropped")
	}
}
