package answertmpl_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// testArgs are the arguments of the tests' calls.
const testArgs = `{
	"name": "Ada",
	"count": 3,
	"ratio": 0.5,
	"flag": true,
	"nothing": null,
	"quote": "say \"hi\"\n\\ok",
	"filter": {"b": [true, null], "a": 1},
	"items": [{"id": "x1"}, {"id": "x2"}],
	"a.b": "dotted",
	"a": {"b": "nested"},
	"big": 9007199254740993
}`

// testState is the stored state of the tests' calls.
var testState = map[string]json.RawMessage{
	"user":   json.RawMessage(`{"name": "Grace", "roles": ["admin"]}`),
	"cart":   json.RawMessage(`{"items": [{"sku": "A-1"}]}`),
	"greet":  json.RawMessage(`"hello"`),
	"cart.x": json.RawMessage(`"whole key"`),
}

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("CET", 3600))

// input is the tests' call: testArgs, testState, testNow, seq 7 and a
// source seeded with 1.
func input(t testing.TB) *answertmpl.Input {
	t.Helper()
	v, err := jsonvalue.Decode([]byte(testArgs))
	require.NoError(t, err)
	return &answertmpl.Input{
		Args: v.(map[string]any),
		State: func(key string) (json.RawMessage, bool) {
			raw, ok := testState[key]
			return raw, ok
		},
		Now:  testNow,
		Seq:  7,
		Rand: answertmpl.NewRand(1),
	}
}

// render compiles s as one string and renders it with input.
func render(t *testing.T, s string) (string, error) {
	t.Helper()
	tmpl, err := answertmpl.Compile(s)
	if err != nil {
		return "", err
	}
	out, err := tmpl.Render(nil, input(t))
	require.NoError(t, err)
	require.True(t, json.Valid(out), "rendering %q gave invalid JSON %s", s, out)
	return string(out), nil
}
