// Package sequence counts the calls answered by "sequence" mock scenarios,
// per server, scenario and client key, so that each call gets the next
// step: in the instance's memory (Memory), or in Redis when REDIS_URL is
// set (Redis), so that every instance shares one count.
//
// A failing Redis makes Next return an error and count nothing. The
// per-server endpoint then answers the sequence's first step and logs the
// failure: an outage degrades sequences, it does not fail calls.
//
// Both stores implement mcpserve.Sequencer.
package sequence

import (
	"crypto/sha256"
	"encoding/hex"
	"time"
)

// DefaultTTL is how long the counters of a (server, client key) pair are
// kept after their last call.
const DefaultTTL = 24 * time.Hour

// DefaultMaxEntries is how many (server, client key) pairs Memory holds at
// most.
const DefaultMaxEntries = 100_000

// MaxKeyBytes is the longest client key used as it is; a longer one is
// replaced by its SHA-256, so that a client cannot make a store hold
// arbitrarily long keys.
const MaxKeyBytes = 200

// clientKey bounds a client key's length.
func clientKey(key string) string {
	if len(key) <= MaxKeyBytes {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}
