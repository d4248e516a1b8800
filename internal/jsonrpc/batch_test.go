package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBatchMembers(t *testing.T) {
	for _, body := range []string{
		`[1]`,
		` [ 1 , 2,3 ] `,
		"[\n\t{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n]",
		`[{"a":"]","b":[1,[2,{"c":"}"}]]},"x",null,true,false,-1.5e3]`,
		`["quote \" and ] and \\", "\\\\\"", "", {}, [], [[]], {"":{"":""}}]`,
		`[{"jsonrpc":"2.0","id":"\u005d","method":"tools/call","params":{"name":"a,b","arguments":{"q":"[{"}}}]`,
	} {
		t.Run(body, func(t *testing.T) {
			var want []json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(body), &want))
			b, n, err := OpenBatch([]byte(body), 100)
			require.NoError(t, err)
			require.Equal(t, len(want), n)
			var got []string
			for m, ok := b.Next(); ok; m, ok = b.Next() {
				got = append(got, string(m))
			}
			require.Len(t, got, len(want))
			for i := range want {
				require.Equal(t, string(want[i]), got[i], "member %d", i)
			}
		})
	}
}

func TestOpenBatchRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		code       int64
		message    string
	}{
		{"empty", `[]`, -32600, "Invalid request: an empty batch"},
		{"empty with space", ` [ ] `, -32600, "Invalid request: an empty batch"},
		{"truncated", `[{"jsonrpc":"2.0","id":1,"method":"ping"},`, -32700, "Parse error"},
		{"trailing comma", `[1,]`, -32700, "Parse error"},
		{"two arrays", `[1][2]`, -32700, "Parse error"},
		{"not an array", `{"a":1}`, -32700, "Parse error"},
		{"one past the limit", `[1,2,3,4]`, -32600, "Invalid request: a batch holds at most 3 messages"},
		{"far past the limit", "[" + strings.Repeat("1,", 500_000) + "1]", -32600, "Invalid request: a batch holds at most 3 messages"},
		{"nested past encoding/json's depth", strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000), -32700, "Parse error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, n, err := OpenBatch([]byte(tc.body), 3)
			require.Zero(t, n)
			require.Equal(t, tc.code, Wire(err).Code)
			require.Equal(t, tc.message, Wire(err).Message)
		})
	}
	_, n, err := OpenBatch([]byte(`[1,2,3]`), 3)
	require.NoError(t, err)
	require.Equal(t, 3, n, "a batch of exactly the limit")
}

// TestOpenBatchAllocatesNothing: a batch is counted and walked without
// copying its members, whatever their number.
func TestOpenBatchAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts of pooled code are not exact under the race detector")
	}
	body := []byte("[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 99) + "1]")
	allocs := testing.AllocsPerRun(10, func() {
		b, n, err := OpenBatch(body, 100)
		if err != nil || n != 100 {
			t.Fatalf("OpenBatch: %d, %v", n, err)
		}
		for _, ok := b.Next(); ok; _, ok = b.Next() {
		}
	})
	require.Zero(t, allocs)
}

func TestIsBatch(t *testing.T) {
	require.True(t, IsBatch([]byte(" \n[1]")))
	require.False(t, IsBatch([]byte(`{"jsonrpc":"2.0"}`)))
	require.False(t, IsBatch(nil))
}
