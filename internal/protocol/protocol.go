// Package protocol names the MCP protocol revisions the service speaks, the
// one it reports by default, and what changes from one to the next.
//
// A revision is named by its date, YYYY-MM-DD, so revisions order as their
// text does: the feature predicates compare that text, and a revision newer
// than any named here (one a client may send) counts as newer.
package protocol

import "slices"

// The revisions the service serves, oldest first.
const (
	V20241105 = "2024-11-05"
	V20250326 = "2025-03-26"
	V20250618 = "2025-06-18"
	V20251125 = "2025-11-25"
	// V20260728 is the first modern revision: no initialize handshake,
	// every request carrying its version and client capabilities in
	// params._meta.
	V20260728 = "2026-07-28"
)

// Default is what a design reports in initialize unless it names another
// revision, and what the service endpoint answers a client asking for a
// revision it does not speak.
const Default = V20241105

// Latest is the newest revision a client negotiates with initialize.
const Latest = V20251125

// Modern is the modern revision served: a request naming it in
// params._meta is answered statelessly, without initialize.
const Modern = V20260728

// ModernFrom is the first modern revision: every revision from it on (one
// a client may send that is newer than any served) is modern.
const ModernFrom = V20260728

// The revisions where a feature appears or goes.
const (
	// audioFrom is the first revision with audio content and the
	// completions capability.
	audioFrom = V20250326
	// structuredFrom is the first revision whose tools carry an
	// outputSchema and results a structuredContent, with resource_link
	// content, and without JSON-RPC batching.
	structuredFrom = V20250618
	// BatchesRemovedIn is the first revision without JSON-RPC batching.
	BatchesRemovedIn = structuredFrom
)

var supported = []string{V20241105, V20250326, V20250618, V20251125}

// Versions returns the legacy revisions served, the ones negotiated with
// initialize, oldest first.
func Versions() []string { return slices.Clone(supported) }

// Supported reports whether v is a legacy revision the service serves.
func Supported(v string) bool { return slices.Contains(supported, v) }

// IsModern reports whether v names a modern revision (2026-07-28 or
// later), whether or not the service serves it.
func IsModern(v string) bool { return IsDate(v) && v >= ModernFrom }

// Parse returns v when it is a supported revision, and otherwise ok false.
func Parse(v string) (version string, ok bool) {
	if !Supported(v) {
		return "", false
	}
	return v, true
}

// IsDate reports whether v has the shape of a revision name, YYYY-MM-DD,
// whether or not the service serves it.
func IsDate(v string) bool {
	if len(v) != len("2006-01-02") {
		return false
	}
	for i := range len(v) {
		switch c := v[i]; i {
		case 4, 7:
			if c != '-' {
				return false
			}
		default:
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// Compare orders revisions: -1 when a is older than b, 0 when they are the
// same, +1 when a is newer.
func Compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// AtLeast reports whether v is revision from or newer.
func AtLeast(v, from string) bool { return v >= from }

// HasAudio reports whether v has audio content blocks.
func HasAudio(v string) bool { return v >= audioFrom }

// HasCompletions reports whether v has the completions capability
// (completion/complete).
func HasCompletions(v string) bool { return v >= audioFrom }

// HasStructuredContent reports whether v's tool results carry
// structuredContent.
func HasStructuredContent(v string) bool { return v >= structuredFrom }

// HasOutputSchema reports whether v's tools carry an outputSchema.
func HasOutputSchema(v string) bool { return v >= structuredFrom }

// HasResourceLinks reports whether v has resource_link content blocks.
func HasResourceLinks(v string) bool { return v >= structuredFrom }

// HasElicitationModes reports whether v's elicitation/create names its
// mode ("form" or "url").
func HasElicitationModes(v string) bool { return v >= V20251125 }

// HasBatches reports whether a request naming v in its Mcp-Protocol-Version
// header may be a JSON-RPC batch. Anything that is not a revision name,
// including an absent header, keeps batches, as the revisions before
// BatchesRemovedIn have them.
func HasBatches(v string) bool { return !IsDate(v) || v < BatchesRemovedIn }

// LogLevels are the syslog levels of notifications/message, most verbose
// first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogLevelRank is level's place in LogLevels (0 for debug), and ok false
// for a word that is not a level.
func LogLevelRank(level string) (rank int, ok bool) {
	i := slices.Index(LogLevels, level)
	return i, i >= 0
}
