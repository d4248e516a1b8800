package agentcard

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"1.0.0", Version{Major: 1}, true},
		{"0.0.0", Version{}, true},
		{"10.20.30", Version{Major: 10, Minor: 20, Patch: 30}, true},
		{"1.0.0-beta.1", Version{Major: 1, Pre: "beta.1"}, true},
		{"2.0.0-rc.1", Version{Major: 2, Pre: "rc.1"}, true},
		{"1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay", Version{Major: 1, Pre: "alpha-a.b-c-somethinglong", Build: "build.1-aef.1-its-okay"}, true},
		{"1.0.0+exp.sha.5114f85", Version{Major: 1, Build: "exp.sha.5114f85"}, true},
		{"1.0.0+0123", Version{Major: 1, Build: "0123"}, true}, // leading zeros are allowed in build metadata
		{"1.0.0-0a.0", Version{Major: 1, Pre: "0a.0"}, true},
		{"1.0.0--", Version{Major: 1, Pre: "-"}, true},
		{"18446744073709551615.0.0", Version{Major: 1<<64 - 1}, true},

		{"", Version{}, false},
		{"1", Version{}, false},
		{"1.0", Version{}, false},
		{"v1.0.0", Version{}, false},
		{"01.0.0", Version{}, false},
		{"1.01.0", Version{}, false},
		{"1.0.01", Version{}, false},
		{"1.0.0-01", Version{}, false}, // numeric pre-release identifiers have no leading zeros
		{"1.0.0-", Version{}, false},
		{"1.0.0-beta..1", Version{}, false},
		{"1.0.0+", Version{}, false},
		{"1.0.0+a+b", Version{}, false},
		{"1.0.0-bêta", Version{}, false},
		{" 1.0.0", Version{}, false},
		{"1.0.0\n", Version{}, false},
		{"1.0.0.0", Version{}, false},
		{"-1.0.0", Version{}, false},
		{"18446744073709551616.0.0", Version{}, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseVersion(tc.in)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, got)
			if ok {
				require.Equal(t, tc.in, got.String())
			}
		})
	}
}

func TestVersionWarnings(t *testing.T) {
	withVersion := func(c Card, v string) Card { c.Version = v; return c }
	withSkill := func(c Card, name string) Card {
		s := c.Skills[0]
		s.Name = name
		c.Skills = append(append([]Skill(nil), c.Skills...), s)
		return c
	}
	renamed := func(c Card, name string) Card {
		c.Skills = append([]Skill(nil), c.Skills...)
		c.Skills[0].Name = name
		return c
	}
	withInvocation := func(c Card, change func(inv *Invocation)) Card {
		inv := *c.Invocation
		change(&inv)
		c.Invocation = &inv
		return c
	}
	base := withSkill(withVersion(validCard(), "1.2.0"), "get_alerts")

	for _, tc := range []struct {
		name          string
		before, after Card
		// contains has one entry per warning, each part of that warning.
		contains []string
	}{
		{"no change", base, base, nil},
		{"description only, patch", base, func() Card {
			c := withVersion(base, "1.2.1")
			c.Description += " Now with more detail."
			c.Skills = append([]Skill(nil), c.Skills...)
			c.Skills[0].Description += " Updated."
			return c
		}(), nil},

		{"skill removed, minor bump", base, withVersion(validCard(), "1.3.0"),
			[]string{"skill 'get_alerts' was removed or renamed; that is a breaking change, but the major version stays at 1 (1.2.0 → 1.3.0); consider 2.0.0"}},
		{"two skills removed", base, func() Card { c := withVersion(base, "1.2.1"); c.Skills = nil; return c }(),
			[]string{"skill 'get_forecast' was removed", "skill 'get_alerts' was removed"}},
		{"skill removed, major bump", base, withVersion(validCard(), "2.0.0"), nil},
		{"skill removed, major bump to a pre-release", base, withVersion(validCard(), "2.0.0-rc.1"), nil},
		{"skill renamed", base, renamed(withVersion(base, "1.2.1"), "forecast"),
			[]string{"skill 'get_forecast' was renamed to 'forecast'; that is a breaking change, but the major version stays at 1 (1.2.0 → 1.2.1); consider 2.0.0"}},
		{"skill renamed, major bump", base, renamed(withVersion(base, "2.0.0"), "forecast"), nil},

		{"endpoint changed", base, withInvocation(withVersion(base, "1.2.1"), func(inv *Invocation) { inv.Endpoint = "https://agents.example/v2" }),
			[]string{"the invocation's endpoint ('https://agents.example/weather/mcp' → 'https://agents.example/v2') changed; that is a breaking change, but the major version stays at 1 (1.2.0 → 1.2.1); consider 2.0.0"}},
		{"protocol and method changed in one warning", base, withInvocation(base, func(inv *Invocation) { inv.Protocol, inv.Method = "rest", "GET" }),
			[]string{"protocol ('mcp' → 'rest'), method ('POST' → 'GET')"}},
		{"format changed", base, withInvocation(base, func(inv *Invocation) { inv.Format = textPtr("rest") }), []string{"format (unset → 'rest')"}},
		{"authentication type changed", base,
			withInvocation(base, func(inv *Invocation) { inv.Authentication = &Authentication{Type: textPtr("bearer")} }),
			[]string{"authentication type ('none' → 'bearer')"}},
		{"authentication now required", base,
			withInvocation(base, func(inv *Invocation) { inv.Authentication = &Authentication{Required: true} }),
			[]string{"authentication (now required)"}},
		{"authentication no longer required", withInvocation(base, func(inv *Invocation) { inv.Authentication = &Authentication{Required: true} }),
			base, nil},
		{"invocation removed", base, func() Card { c := base; c.Invocation = nil; return c }(), []string{"the invocation was removed"}},
		{"invocation added", func() Card { c := base; c.Invocation = nil; return c }(), base, nil},
		{"endpoint changed, major bump", base, withInvocation(withVersion(base, "2.0.0"), func(inv *Invocation) { inv.Endpoint = "https://x.example" }), nil},
		{"method empty and POST are the same", base, withInvocation(base, func(inv *Invocation) { inv.Method = "POST" }), nil},
		{"absent authentication and none are the same", base,
			withInvocation(base, func(inv *Invocation) { inv.Authentication = &Authentication{Type: textPtr("none")} }), nil},

		{"skill added, patch bump", withVersion(validCard(), "1.0.0"), withSkill(withVersion(validCard(), "1.0.1"), "get_alerts"),
			[]string{"skill 'get_alerts' was added; new skills call for a minor version increase (1.0.0 → 1.0.1); consider 1.1.0"}},
		{"skill added, no bump", withVersion(validCard(), "1.0.0"), withSkill(withVersion(validCard(), "1.0.0"), "get_alerts"),
			[]string{"skill 'get_alerts' was added"}},
		{"skill added, minor bump", withVersion(validCard(), "1.0.0"), withSkill(withVersion(validCard(), "1.1.0"), "get_alerts"), nil},
		{"skill added, major bump", withVersion(validCard(), "1.0.0"), withSkill(withVersion(validCard(), "2.0.0"), "get_alerts"), nil},
		{"skill added, minor lowered", withVersion(validCard(), "1.3.0"), withSkill(withVersion(validCard(), "1.2.0"), "get_alerts"), nil},

		{"before had no version", withVersion(base, ""), withVersion(validCard(), "1.0.0"), nil},
		{"unparsable versions, same major", withVersion(base, "1.x"), withVersion(validCard(), "1.y"),
			[]string{"skill 'get_alerts' was removed or renamed; that is a breaking change, but the major version stays at 1 (1.x → 1.y); consider a new major version"}},
		{"unparsable versions, other major", withVersion(base, "1.x"), withVersion(validCard(), "2"), nil},
		{"unparsable versions, skill added without a minor bump", withVersion(validCard(), "1.0"), withSkill(withVersion(validCard(), "1.0.1"), "b"),
			[]string{"consider a new minor version"}},
		{"removal and invocation change and addition", base, withInvocation(func() Card {
			c := withSkill(withSkill(withVersion(validCard(), "1.2.1"), "b"), "c")
			return c
		}(), func(inv *Invocation) { inv.Protocol = "grpc" }),
			[]string{"skill 'get_alerts' was removed", "protocol ('mcp' → 'grpc')", "skill 'b' was added", "skill 'c' was added"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := VersionWarnings(tc.before, tc.after)
			require.Len(t, got, len(tc.contains), "%q", got)
			for i, want := range tc.contains {
				require.Contains(t, got[i], want)
			}
		})
	}
}
