package schema

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestValidateConcurrently exercises the library's lazily filled caches
// ("pattern", "patternProperties") from many goroutines at once on one
// Schema; run with -race.
func TestValidateConcurrently(t *testing.T) {
	s := mustCompile(t, `{
		"type": "object",
		"definitions": {"code": {"type": "string", "pattern": "^[A-Z]{3}$"}},
		"properties": {"from": {"$ref": "#/definitions/code"}, "to": {"$ref": "#/definitions/code"}},
		"patternProperties": {"^x-": {"type": "integer"}},
		"additionalProperties": false,
		"required": ["from", "to"]
	}`, RequireObject)
	values := []string{
		`{"from":"CDG","to":"JFK"}`,
		`{"from":"CDG","to":"jfk","x-seats":"two"}`,
		`{"from":"CDG","x-seats":2,"extra":true}`,
		`{}`,
	}
	want := make([][]Violation, len(values))
	for i, v := range values {
		want[i] = s.Validate(decodeJSON(t, v))
	}
	require.Nil(t, want[0])
	require.NotEmpty(t, want[1])

	const goroutines, rounds = 32, 50
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for r := range rounds {
				i := (g + r) % len(values)
				var v any
				if err := json.Unmarshal([]byte(values[i]), &v); err != nil {
					errs <- err
					return
				}
				if got := s.Validate(v); !slices.Equal(got, want[i]) {
					errs <- fmt.Errorf("%s: got %v, want %v", values[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustCompile(b, `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`, RequireObject)
	cases := []struct {
		name  string
		value string
	}{
		{name: "valid", value: `{"city":"Paris","days":3}`},
		{name: "missing required", value: `{"days":3}`},
	}
	for _, c := range cases {
		v := decodeJSON(b, c.value)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.Validate(v)
			}
		})
		b.Run(c.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					s.Validate(v)
				}
			})
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	raw := []byte(weatherSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(raw, RequireObject); err != nil {
			b.Fatal(err)
		}
	}
}
