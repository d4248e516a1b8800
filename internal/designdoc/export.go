package designdoc

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// The order of each object's members in an exported document; members not
// listed follow, sorted.
var (
	serverOrder = []string{"apiVersion", "kind", "id", "name", "description", "version", "provider_name",
		"provider_url", "type", "protocol_version", "eras", "cache_ttl_ms", "cache_scope", "auth_mode", "oauth", "fault",
		"state", "seed", "enabled", "tools", "resources", "prompts", "skills"}
	toolOrder = []string{"name", "description", "input_schema", "output_schema", "required_client_capabilities", "required_scopes",
		"fault", "meta", "mock_scenarios"}
	resourceOrder = []string{"name", "uri", "description", "mime_type", "content", "blob", "completions", "meta", "ask", "then"}
	promptOrder   = []string{"name", "description", "arguments", "messages", "ask", "then"}
	argumentOrder = []string{"name", "description", "required", "completions"}
)

// What the REST answers hold that a document does not: ids, timestamps,
// what the service derives, and the upstream, whose URL may carry a
// secret in its query and whose header values are never shown (applying
// a document keeps the server's stored upstream).
var (
	serverNoise = []string{"id", "endpoint_url", "source", "created_by", "created_at", "updated_at",
		"oauth_tokens_not_before", "oauth_refresh_not_before", "upstream"}
	partNoise = []string{"id", "server_id", "created_at", "updated_at"}
)

// Export is d as a design document, JSON text indented by two spaces: the
// REST answers' fields (designwire) less ids, timestamps and derived
// fields, in a fixed order, tools and prompts sorted by name and resources
// by uri. The server's id is not included: the document can be applied in
// any organization. Nor is the upstream, which documents never carry.
func Export(d design.Design) ([]byte, error) {
	m, err := serverMembers(d.Server)
	if err != nil {
		return nil, err
	}
	m["apiVersion"], _ = json.Marshal(APIVersion)
	m["kind"], _ = json.Marshal(Kind)
	if m["tools"], err = toolParts.export(d.Tools); err != nil {
		return nil, err
	}
	if m["resources"], err = resourceParts.export(d.Resources); err != nil {
		return nil, err
	}
	if m["prompts"], err = promptParts.export(d.Prompts); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, ordered(m, serverOrder), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// serverMembers are the server's members in a document, enabled included.
func serverMembers(v design.Server) (map[string]json.RawMessage, error) {
	m, err := members(designwire.Server(v, ""), serverNoise)
	if err != nil {
		return nil, err
	}
	if same(m["oauth"], defaultOAuth) {
		delete(m, "oauth") // the defaults, as a document without it has
	}
	if same(m["state"], []byte("{}")) {
		delete(m, "state") // no initial state, as a document without it has
	}
	if same(m["skills"], []byte("[]")) {
		delete(m, "skills") // no skills, as a document without them has
	}
	return m, nil
}

// defaultOAuth is the answer's form of the default OAuth settings.
var defaultOAuth, _ = json.Marshal(designwire.OAuthSettings(oauthcfg.Settings{}))

func toolJSON(t design.Tool) ([]byte, error) {
	m, err := members(designwire.Tool(t), partNoise)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"required_client_capabilities", "required_scopes"} {
		if string(m[k]) == "[]" {
			delete(m, k)
		}
	}
	return ordered(m, toolOrder), nil
}

func resourceJSON(r design.Resource) ([]byte, error) {
	m, err := members(designwire.Resource(r), partNoise)
	if err != nil {
		return nil, err
	}
	if string(m["completions"]) == "{}" {
		delete(m, "completions")
	}
	return ordered(m, resourceOrder), nil
}

func promptJSON(p design.Prompt) ([]byte, error) {
	m, err := members(designwire.Prompt(p), partNoise)
	if err != nil {
		return nil, err
	}
	var args []map[string]json.RawMessage
	if err := json.Unmarshal(m["arguments"], &args); err != nil {
		return nil, err
	}
	ordArgs := make([]json.RawMessage, len(args))
	for i, a := range args {
		ordArgs[i] = ordered(a, argumentOrder)
	}
	if m["arguments"], err = json.Marshal(ordArgs); err != nil {
		return nil, err
	}
	return ordered(m, promptOrder), nil
}

// members encodes v and returns its members less noise and less those
// that are null (absent in a create body).
func members(v any, noise []string) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range noise {
		delete(m, k)
	}
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	return m, nil
}

// export is the document form of parts, sorted by key.
func (k partKind[T]) export(parts []T) (json.RawMessage, error) {
	return list(slices.SortedFunc(slices.Values(parts), func(a, b T) int { return strings.Compare(k.key(a), k.key(b)) }), k.form)
}

func list[T any](items []T, enc func(T) ([]byte, error)) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		e, err := enc(it)
		if err != nil {
			return nil, err
		}
		b.Write(e)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// ordered writes m as a JSON object, the members of order first, in that
// order, then the others sorted.
func ordered(m map[string]json.RawMessage, order []string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	write := func(k string) {
		v, ok := m[k]
		if !ok {
			return
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k) // a string always encodes
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v)
		delete(m, k)
	}
	for _, k := range order {
		write(k)
	}
	rest := make([]string, 0, len(m))
	for k := range m {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	for _, k := range rest {
		write(k)
	}
	b.WriteByte('}')
	return b.Bytes()
}
