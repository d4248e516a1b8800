package scenario_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func FuzzCompileMatch(f *testing.F) {
	seeds := []struct{ cond, args string }{
		{``, `{}`},
		{`null`, `{"a":1}`},
		{`{"a":1}`, `{"a":1.0}`},
		{`{"address.city":"Paris"}`, `{"address":{"city":"Paris"}}`},
		{`{"items[0].id":"x"}`, `{"items":[{"id":"x"}]}`},
		{`{"items.0.id":"x"}`, `{"items":[{"id":"x"}]}`},
		{`{"a.b":1}`, `{"a.b":1,"a":{"b":2}}`},
		{`{"field":"a","operator":"matches","value":"^x+$"}`, `{"a":"xxx"}`},
		{`{"field":"a","operator":"in","value":[1,"x",null]}`, `{"a":null}`},
		{`{"field":"a","operator":"contains","value":{"k":[1]}}`, `{"a":[{"k":[1]}]}`},
		{`{"field":"n","operator":"gte","value":3}`, `{"n":3}`},
		{`{"field":"a","operator":"exists"}`, `{}`},
		{`{"field":"","operator":"bogus","value":"("}`, `{}`},
		{`"str"`, `[]`},
		{`{"m[1][0]":3}`, `{"m":[[1],[3]]}`},
	}
	for _, s := range seeds {
		f.Add(s.cond, s.args, false)
		f.Add(s.cond, s.args, true)
	}
	f.Fuzz(func(t *testing.T, cond, args string, useNumber bool) {
		c, errs := scenario.Compile(json.RawMessage(cond))
		for _, e := range errs {
			if e.Field == "" || e.Message == "" {
				t.Fatalf("incomplete error %+v for %q", e, cond)
			}
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(args)))
		if useNumber {
			dec.UseNumber()
		}
		var m map[string]any
		if dec.Decode(&m) != nil {
			m = nil
		}
		got := c.Match(m)
		if len(errs) > 0 && got {
			t.Fatalf("condition %q with errors %v matched", cond, errs)
		}
		if again := c.Match(m); again != got {
			t.Fatalf("condition %q matched %v then %v", cond, got, again)
		}
	})
}
