package agentcard

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Version is a semantic version (semver 2.0.0): MAJOR.MINOR.PATCH with an
// optional pre-release (after -) and build metadata (after +), both without
// their leading sign.
type Version struct {
	Major, Minor, Patch uint64
	Pre, Build          string
}

// String writes v back in the form ParseVersion reads.
func (v Version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if v.Pre != "" {
		s += "-" + v.Pre
	}
	if v.Build != "" {
		s += "+" + v.Build
	}
	return s
}

// semver is the regular expression the semver 2.0.0 specification suggests:
// no leading zeros in numbers or numeric pre-release identifiers, no empty
// identifiers, no "v" prefix.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// ParseVersion parses a semantic version X.Y.Z with optional -prerelease
// and +build (semver 2.0.0). It refuses numbers that do not fit in 64 bits.
func ParseVersion(s string) (Version, bool) {
	m := semver.FindStringSubmatch(s)
	if m == nil {
		return Version{}, false
	}
	var n [3]uint64
	for i := range n {
		var err error
		if n[i], err = strconv.ParseUint(m[i+1], 10, 64); err != nil {
			return Version{}, false
		}
	}
	return Version{Major: n[0], Minor: n[1], Patch: n[2], Pre: m[4], Build: m[5]}, true
}

// VersionWarnings compares a card before and after a change and advises on
// its version by the specification's rule: a major increase for breaking
// changes to skills or invocation, a minor one for skills added compatibly,
// a patch for fixes and description updates. It warns, never refuses: the
// author may know better (a 0.x card, say), and a draft's version may be
// missing or malformed while it is edited. A card that had no version gets
// no advice. Warnings are sentences for the author; nil means none.
func VersionWarnings(before, after Card) []string {
	if before.Version == "" {
		return nil
	}
	b := bumpOf(before.Version, after.Version)
	change := fmt.Sprintf("(%s → %s)", before.Version, after.Version)
	var out []string

	removed, added := skillChanges(before.Skills, after.Skills)
	if b.level < bumpMajor {
		breaking := fmt.Sprintf("that is a breaking change, but the major version stays at %s %s; consider %s",
			b.major, change, b.nextMajor)
		if len(removed) == 1 && len(added) == 1 {
			out = append(out, fmt.Sprintf("skill '%s' was renamed to '%s'; %s", removed[0], added[0], breaking))
			added = nil
		} else {
			for _, name := range removed {
				out = append(out, fmt.Sprintf("skill '%s' was removed or renamed; %s", name, breaking))
			}
		}
		if diff := invocationChanges(before.Invocation, after.Invocation); diff != "" {
			out = append(out, fmt.Sprintf("%s; %s", diff, breaking))
		}
	}
	if b.level < bumpMinor {
		for _, name := range added {
			out = append(out, fmt.Sprintf("skill '%s' was added; new skills call for a minor version increase %s; consider %s",
				name, change, b.nextMinor))
		}
	}
	return out
}

// The levels of a version change, in increasing order.
const (
	bumpNone = iota
	bumpMinor
	bumpMajor
)

// bump is how a version changed, with what the author could write instead.
type bump struct {
	level int
	// major is the unchanged major version, as written.
	major                string
	nextMajor, nextMinor string
}

// bumpOf compares two versions. One that does not parse (a draft being
// edited) is compared by its dot-separated components as written, so
// "1.x" to "1.y" still counts as the same major version; a major or minor
// version that goes down counts as changed, since it is no repeat of the
// old promise either.
func bumpOf(before, after string) bump {
	bv, okB := ParseVersion(before)
	av, okA := ParseVersion(after)
	if okB && okA {
		b := bump{
			major:     strconv.FormatUint(bv.Major, 10),
			nextMajor: fmt.Sprintf("%d.0.0", bv.Major+1),
			nextMinor: fmt.Sprintf("%d.%d.0", bv.Major, bv.Minor+1),
		}
		switch {
		case av.Major != bv.Major:
			b.level = bumpMajor
		case av.Minor != bv.Minor:
			b.level = bumpMinor
		}
		return b
	}
	bp, ap := strings.SplitN(before, ".", 3), strings.SplitN(after, ".", 3)
	b := bump{major: bp[0], nextMajor: "a new major version", nextMinor: "a new minor version"}
	switch {
	case bp[0] != ap[0]:
		b.level = bumpMajor
	case len(bp) < 2 || len(ap) < 2 || bp[1] != ap[1]:
		b.level = bumpMinor
	}
	return b
}

// skillChanges lists, in card order, the skill names of before missing from
// after and those of after missing from before.
func skillChanges(before, after []Skill) (removed, added []string) {
	had, has := skillNames(before), skillNames(after)
	for _, s := range before {
		if !has[s.Name] {
			removed = append(removed, s.Name)
			has[s.Name] = true
		}
	}
	for _, s := range after {
		if !had[s.Name] {
			added = append(added, s.Name)
			had[s.Name] = true
		}
	}
	return removed, added
}

func skillNames(skills []Skill) map[string]bool {
	names := make(map[string]bool, len(skills))
	for _, s := range skills {
		names[s.Name] = true
	}
	return names
}

// invocationChanges describes what changed in an invocation that callers
// rely on, or returns "". Making authentication optional, or a card that had
// no invocation getting one, breaks no caller, so neither is named.
func invocationChanges(before, after *Invocation) string {
	if before == nil {
		return ""
	}
	if after == nil {
		return "the invocation was removed"
	}
	var changed []string
	diff := func(what, b, a string) {
		if b != a {
			changed = append(changed, fmt.Sprintf("%s (%s → %s)", what, quoted(b), quoted(a)))
		}
	}
	diff("protocol", before.Protocol, after.Protocol)
	diff("endpoint", before.Endpoint, after.Endpoint)
	diff("method", invocationMethod(before), invocationMethod(after))
	diff("format", textOf(before.Format), textOf(after.Format))
	diff("authentication type", authType(before), authType(after))
	if !authRequired(before) && authRequired(after) {
		changed = append(changed, "authentication (now required)")
	}
	if len(changed) == 0 {
		return ""
	}
	return "the invocation's " + strings.Join(changed, ", ") + " changed"
}

// quoted shows an unset value as such, not as an empty pair of quotes.
func quoted(s string) string {
	if s == "" {
		return "unset"
	}
	return "'" + s + "'"
}

func invocationMethod(inv *Invocation) string {
	if inv.Method == "" {
		return DefaultMethod
	}
	return inv.Method
}

// authType reads an absent type as none: both ask nothing of the caller.
func authType(inv *Invocation) string {
	if inv.Authentication == nil || textOf(inv.Authentication.Type) == "" {
		return "none"
	}
	return *inv.Authentication.Type
}

func authRequired(inv *Invocation) bool {
	return inv.Authentication != nil && inv.Authentication.Required
}

func textOf(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
