package oauthas

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mockmcp/mockmcp/internal/outbound"
)

// Bounds of the cache of client ID metadata documents.
const (
	// metadataMaxTTL caps how long a document is kept, whatever its
	// headers say: a client's changes show within the hour.
	metadataMaxTTL = time.Hour
	// metadataDefaultTTL is how long a document without caching headers
	// is kept (a heuristic freshness, as HTTP caches allow).
	metadataDefaultTTL = 5 * time.Minute
	// metadataCacheEntries bounds the documents kept.
	metadataCacheEntries = 1000
)

// metadataCache keeps client ID metadata documents as their HTTP caching
// headers allow, so that an authorization request does not fetch its
// client's document every time.
type metadataCache struct {
	mu      sync.Mutex
	entries map[string]cachedMetadata
}

type cachedMetadata struct {
	doc     clientMetadata
	expires time.Time
}

func (c *metadataCache) get(url string, now time.Time) (clientMetadata, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[url]
	if !ok || !now.Before(e.expires) {
		return clientMetadata{}, false
	}
	return e.doc, true
}

func (c *metadataCache) put(url string, doc clientMetadata, now time.Time, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ttl <= 0 {
		delete(c.entries, url)
		return
	}
	if c.entries == nil {
		c.entries = map[string]cachedMetadata{}
	}
	if _, ok := c.entries[url]; !ok && len(c.entries) >= metadataCacheEntries {
		// Full: drop the expired documents, else the one that expires
		// first.
		var first string
		for u, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, u)
			} else if first == "" || e.expires.Before(c.entries[first].expires) {
				first = u
			}
		}
		if len(c.entries) >= metadataCacheEntries {
			delete(c.entries, first)
		}
	}
	c.entries[url] = cachedMetadata{doc: doc, expires: now.Add(ttl)}
}

// freshness is how long an answer with header h may be kept: none with
// no-store or no-cache, max-age less Age, until Expires, else
// metadataDefaultTTL; never more than metadataMaxTTL.
func freshness(h http.Header, now time.Time) time.Duration {
	ttl, explicit := metadataDefaultTTL, false
	for _, directive := range strings.Split(strings.ToLower(strings.Join(h.Values("Cache-Control"), ",")), ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(directive), "=")
		switch name {
		case "no-store", "no-cache":
			return 0
		case "max-age":
			secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
			if err != nil || secs < 0 {
				return 0
			}
			ttl, explicit = time.Duration(min(secs, int64(metadataMaxTTL/time.Second)))*time.Second, true
		}
	}
	if !explicit {
		if exp := h.Get("Expires"); exp != "" {
			t, err := http.ParseTime(exp)
			if err != nil {
				return 0 // an invalid Expires means already expired (RFC 9111 5.3)
			}
			ttl = t.Sub(now)
		}
	} else if age, err := strconv.ParseInt(h.Get("Age"), 10, 64); err == nil && age > 0 {
		ttl -= time.Duration(age) * time.Second
	}
	return min(ttl, metadataMaxTTL)
}

// fetchMetadata fetches the client ID metadata document at url through
// the outbound address policy and returns its body and how long it may be
// kept.
func (h *Handler) fetchMetadata(ctx context.Context, url string) ([]byte, time.Duration, error) {
	client := outbound.NewClient(outbound.Options{AllowPrivate: h.opts.AllowPrivate, Timeout: metadataTimeout,
		MaxBody: maxMetadataDocument, MaxRedirects: -1})
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, 0, &outbound.StatusError{Code: resp.StatusCode}
	}
	body, truncated, err := outbound.ReadBody(resp.Body, maxMetadataDocument)
	if truncated {
		return nil, 0, outbound.ErrBodyTooLarge
	}
	return body, freshness(resp.Header, h.now()), err
}
