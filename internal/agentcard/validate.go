package agentcard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// Patterns of the specification for the names a card and its skills carry:
// the card's name appears in exchange URLs, a skill's name is an identifier.
const (
	NamePattern      = `^[a-z0-9-]+$`
	SkillNamePattern = `^[a-z0-9_]+$`
)

// Lengths of the specification's agent card table, counted in Unicode code
// points so that a description in any script gets the same allowance.
const (
	MaxNameLength             = 50
	MinDescriptionLength      = 200
	MaxDescriptionLength      = 2000
	MinSkillDescriptionLength = 50
)

// The closed vocabularies of the specification, in its order; they are
// exported so that the OpenAPI document and the tests list the same values.
var (
	// Protocols are the values of invocation.protocol.
	Protocols = []string{"mcp", "rest", "grpc", "graphql", "websocket"}
	// AuthTypes are the values of invocation.authentication.type.
	AuthTypes = []string{"none", "bearer", "api_key", "oauth2", "basic", "mtls"}
	// Methods are the values of invocation.method; an empty method is POST.
	Methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
	// Formats are the values of invocation.format.
	Formats = []string{"json-rpc", "rest", "graphql"}
	// InputModes are the values of capabilities.input_modes.
	InputModes = []string{"text", "voice", "image", "video", "file"}
	// OutputModes are the values of capabilities.output_modes.
	OutputModes = []string{"text", "json", "speech", "image", "video", "file"}
)

// DefaultMethod is the HTTP method of an invocation that names none.
const DefaultMethod = "POST"

var (
	namePattern      = regexp.MustCompile(NamePattern)
	skillNamePattern = regexp.MustCompile(SkillNamePattern)
)

// Structural returns the problems no stored card may have, draft or not:
// the card's and its skills' names, which the store keeps in columns of
// their own (unique per organization, searched by the exchange), and the
// NUL characters PostgreSQL refuses in the other text it copies out of the
// card (version, description, tags, categories).
func Structural(c Card) []failure.FieldError {
	v := cardCheck{}
	v.card(c)
	return v.f
}

// Validate returns every problem that keeps c from being published, all at
// once: Structural's and every rule of the specification's agent card
// tables, in a stable order (the card's own fields in the table's order, then
// skills, capabilities, invocation, examples and metadata). links resolves
// the mcp_server values of c's skills (see Card.ServerRefs).
func Validate(c Card, links Links) []failure.FieldError {
	v := cardCheck{publish: true, links: links}
	v.card(c)
	return v.f
}

// cardCheck walks a card once, so that Structural's problems are a subset of
// Validate's, reported once and in the same place.
type cardCheck struct {
	f failure.Fields
	// publish adds the rules a draft may break.
	publish bool
	links   Links
}

func (v *cardCheck) card(c Card) {
	v.name(c.Name)
	v.version(c.Version)
	v.description(c.Description)
	if v.publish {
		v.optionalURL("homepage", c.Homepage)
		v.optionalURL("repository", c.Repository)
	}
	v.skills(c.Skills)
	if v.publish {
		v.capabilities(c.Capabilities)
		v.invocation(c.Invocation)
		v.examples(c)
	}
	v.metadata(c.Metadata)
	v.replies(c.Replies)
	v.auth(c.Auth)
}

func (v *cardCheck) name(name string) {
	switch {
	case name == "":
		v.f.Add("name", "is required")
	case !namePattern.MatchString(name):
		v.f.Add("name", "must match %s (lowercase letters, digits and hyphens)", NamePattern)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameLength {
		v.f.Add("name", "must be at most %d characters; it has %d", MaxNameLength, n)
	}
}

func (v *cardCheck) version(version string) {
	if !v.noNUL("version", version) || !v.publish {
		return
	}
	switch {
	case version == "":
		v.f.Add("version", "is required")
	case !isVersion(version):
		msg := "must be a semantic version X.Y.Z (a pre-release suffix such as -beta.1 is accepted)"
		if rest, ok := strings.CutPrefix(strings.ToLower(version), "v"); ok && isVersion(rest) {
			msg += fmt.Sprintf("; write %s without the leading v", version[1:])
		}
		v.f.Add("version", "%s", msg)
	}
}

func isVersion(s string) bool {
	_, ok := ParseVersion(s)
	return ok
}

func (v *cardCheck) description(d string) {
	if !v.noNUL("description", d) || !v.publish {
		return
	}
	if strings.TrimSpace(d) == "" {
		v.f.Add("description", "is required")
		return
	}
	if n := utf8.RuneCountInString(d); n < MinDescriptionLength || n > MaxDescriptionLength {
		v.f.Add("description", "must be %d to %d characters; it has %d", MinDescriptionLength, MaxDescriptionLength, n)
	}
}

func (v *cardCheck) skills(skills []Skill) {
	if v.publish && len(skills) == 0 {
		v.f.Add("skills", "at least one skill is required")
	}
	first := map[string]int{}
	for i, s := range skills {
		at := fmt.Sprintf("skills[%d]", i)
		switch {
		case s.Name == "":
			v.f.Add(at+".name", "is required")
		case !skillNamePattern.MatchString(s.Name):
			v.f.Add(at+".name", "must match %s (snake_case: lowercase letters, digits and underscores)", SkillNamePattern)
		}
		if j, dup := first[s.Name]; dup && s.Name != "" {
			v.f.Add(at+".name", "duplicate skill name '%s' (also skills[%d])", s.Name, j)
		} else {
			first[s.Name] = i
		}
		if v.publish {
			v.skill(at, s)
		}
	}
}

func (v *cardCheck) skill(at string, s Skill) {
	switch n := utf8.RuneCountInString(s.Description); {
	case strings.TrimSpace(s.Description) == "":
		v.f.Add(at+".description", "is required")
	case n < MinSkillDescriptionLength:
		v.f.Add(at+".description", "must be at least %d characters; it has %d", MinSkillDescriptionLength, n)
	}
	// null is how a JSON client writes an absent optional object.
	if len(s.Parameters) > 0 && !isJSONNull(s.Parameters) && !isJSONObject(s.Parameters) {
		v.f.Add(at+".parameters", "must be a JSON object")
	}
	for k, e := range s.Examples {
		// A card built in Go rather than decoded could hold anything, and
		// would then fail to encode when served.
		if !json.Valid(e) {
			v.f.Add(fmt.Sprintf("%s.examples[%d]", at, k), "must be a JSON value")
		}
	}
	v.link(at, s)
}

// link checks a skill's mcp_server and mcp_tool, which only mean something
// together: invoking the skill calls that tool on that server.
func (v *cardCheck) link(at string, s Skill) {
	server, tool := at+".mcp_server", at+".mcp_tool"
	switch {
	case s.MCPServer == nil && s.MCPTool == nil:
		return
	case s.MCPServer == nil:
		v.f.Add(server, "is required when mcp_tool is set")
	case s.MCPTool == nil:
		v.f.Add(tool, "is required when mcp_server is set")
	}
	if s.MCPServer != nil && *s.MCPServer == "" {
		v.f.Add(server, "must not be empty")
	}
	if s.MCPTool != nil && *s.MCPTool == "" {
		v.f.Add(tool, "must not be empty")
	}
	if s.MCPServer == nil || *s.MCPServer == "" {
		return
	}
	linked := v.links[*s.MCPServer]
	switch {
	case linked == nil:
		v.f.Add(server, "no MCP server with this id or name in the organization")
	case linked.Ambiguous:
		v.f.Add(server, "several MCP servers of the organization are named '%s'; use the server id", *s.MCPServer)
	case s.MCPTool != nil && *s.MCPTool != "" && !linked.Tools[*s.MCPTool]:
		v.f.Add(tool, "server '%s' has no tool named '%s'", linked.Name, *s.MCPTool)
	}
}

func (v *cardCheck) capabilities(c *Capabilities) {
	if c == nil {
		return
	}
	for i, code := range c.Languages {
		if msg := languageProblem(code); msg != "" {
			v.f.Add(fmt.Sprintf("capabilities.languages[%d]", i), "%s", msg)
		}
	}
	for i, m := range c.InputModes {
		v.oneOf(fmt.Sprintf("capabilities.input_modes[%d]", i), m, InputModes)
	}
	for i, m := range c.OutputModes {
		v.oneOf(fmt.Sprintf("capabilities.output_modes[%d]", i), m, OutputModes)
	}
}

func (v *cardCheck) invocation(inv *Invocation) {
	if inv == nil {
		v.f.Add("invocation", "invocation is required")
		return
	}
	if inv.Protocol == "" {
		v.f.Add("invocation.protocol", "is required")
	} else {
		v.oneOf("invocation.protocol", inv.Protocol, Protocols)
	}
	if inv.Endpoint == "" {
		v.f.Add("invocation.endpoint", "is required")
	} else if msg := httpURLProblem(inv.Endpoint); msg != "" {
		v.f.Add("invocation.endpoint", "%s", msg)
	}
	if a := inv.Authentication; a != nil && a.Type != nil {
		v.oneOf("invocation.authentication.type", *a.Type, AuthTypes)
	}
	if inv.Method != "" {
		v.oneOf("invocation.method", inv.Method, Methods)
	}
	if inv.Format != nil {
		v.oneOf("invocation.format", *inv.Format, Formats)
	}
}

func (v *cardCheck) examples(c Card) {
	for i, e := range c.Examples {
		at := fmt.Sprintf("examples[%d]", i)
		if e.Skill == "" {
			v.f.Add(at+".skill", "is required")
		} else if _, _, ok := c.Skill(e.Skill); !ok {
			v.f.Add(at+".skill", "no skill named '%s' in this card", e.Skill)
		}
		v.requiredObject(at+".input", e.Input)
		v.requiredObject(at+".output", e.Output)
	}
}

func (v *cardCheck) requiredObject(field string, raw json.RawMessage) {
	switch {
	case len(bytes.TrimSpace(raw)) == 0 || isJSONNull(raw):
		v.f.Add(field, "is required")
	case !isJSONObject(raw):
		v.f.Add(field, "must be a JSON object")
	}
}

func (v *cardCheck) metadata(m *Metadata) {
	if m == nil {
		return
	}
	if v.publish {
		v.timestamp("metadata.created_at", m.CreatedAt)
		v.timestamp("metadata.updated_at", m.UpdatedAt)
	}
	v.labels("metadata.tags", m.Tags)
	v.labels("metadata.categories", m.Categories)
}

// labels checks tags or categories, which the exchange searches by exact
// value: an empty one could never be found.
func (v *cardCheck) labels(field string, labels []string) {
	for i, l := range labels {
		at := fmt.Sprintf("%s[%d]", field, i)
		if v.noNUL(at, l) && v.publish && strings.TrimSpace(l) == "" {
			v.f.Add(at, "must not be empty")
		}
	}
}

func (v *cardCheck) timestamp(field string, ts *string) {
	if ts == nil {
		return
	}
	if msg := timestampProblem(*ts); msg != "" {
		v.f.Add(field, "%s", msg)
	}
}

func (v *cardCheck) optionalURL(field string, u *string) {
	if u == nil {
		return
	}
	if msg := httpURLProblem(*u); msg != "" {
		v.f.Add(field, "%s", msg)
	}
}

// oneOf checks value against a closed vocabulary, pointing out a value that
// only differs in case, the commonest slip.
func (v *cardCheck) oneOf(field, value string, allowed []string) {
	if slices.Contains(allowed, value) {
		return
	}
	msg := "must be one of " + strings.Join(allowed, ", ")
	if i := slices.IndexFunc(allowed, func(a string) bool { return strings.EqualFold(a, value) }); i >= 0 {
		msg += fmt.Sprintf("; write it as %s", allowed[i])
	}
	v.f.Add(field, "%s", msg)
}

// noNUL reports s when PostgreSQL would refuse it in a text column, and
// tells the caller whether to go on checking it.
func (v *cardCheck) noNUL(field, s string) bool {
	if strings.IndexByte(s, 0) >= 0 {
		v.f.Add(field, "must not contain the NUL character (U+0000)")
		return false
	}
	return true
}

// httpURLProblem explains why s is not an absolute http or https URL with
// a host, or returns "". url.Parse alone accepts too much for a link other
// people follow: relative references, other schemes, spaces in the path.
func httpURLProblem(s string) string {
	const want = "must be an absolute http or https URL"
	if s == "" {
		return want
	}
	if strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return want + " without white space"
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return want + "; it does not parse"
	case u.Scheme == "":
		return want + "; it has no scheme"
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%s; the scheme %s is not allowed", want, u.Scheme)
	case u.Hostname() == "":
		return want + "; it has no host"
	}
	return ""
}

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// timestampForm is the part of ISO 8601 a card's metadata may use: a
// calendar date, or a calendar date and a time of day (minutes, seconds and
// a decimal fraction of a second with a full stop) that says its time zone.
// A time without a zone names no instant, so it is refused, as are week
// dates, ordinal dates, the basic format without hyphens and 24:00.
var timestampForm = regexp.MustCompile(
	`^(\d{4})-(\d{2})-(\d{2})` +
		`(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:[Zz]|[+-](\d{2}):(\d{2})))?$`)

// timestampProblem explains why s is not an ISO 8601 timestamp of the form
// timestampForm accepts (2024-05-01, 2024-05-01T10:00Z,
// 2024-05-01T10:00:00.5+02:00, and so RFC 3339), or returns "". Leap
// seconds (:60) are refused: nothing an author writes down needs one.
func timestampProblem(s string) string {
	const want = "must be an ISO 8601 date such as 2024-05-01 or a date-time with a time zone such as 2024-05-01T10:00:00Z"
	m := timestampForm.FindStringSubmatch(s)
	if m == nil {
		return want
	}
	n := make([]int, len(m))
	for i, part := range m[1:] {
		for _, d := range part {
			n[i+1] = n[i+1]*10 + int(d-'0')
		}
	}
	year, month, day := n[1], n[2], n[3]
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return fmt.Sprintf("%s; %s-%s-%s is not a day of the calendar", want, m[1], m[2], m[3])
	}
	hour, minute, second, zoneHour, zoneMinute := n[4], n[5], n[6], n[7], n[8]
	if hour > 23 || minute > 59 || second > 59 || zoneHour > 23 || zoneMinute > 59 {
		return want + "; the time of day or the zone offset is out of range"
	}
	return ""
}

// daysIn is the number of days of month in year of the proleptic Gregorian
// calendar that ISO 8601 uses: day 0 of the next month is its last day.
func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
