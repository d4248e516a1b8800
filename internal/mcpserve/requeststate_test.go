package mcpserve

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testclock"
)

func TestRequestStateSigner(t *testing.T) {
	clock := testclock.New(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	oldKey, newKey := []byte(strings.Repeat("o", 32)), []byte(strings.Repeat("n", 32))
	st := askState{Server: "s", Target: "tools/call t", Scenario: 2, Path: []int{1}, Args: "a"}
	tok, err := newStateSigner([][]byte{oldKey}, clock.Now).seal(st)
	require.NoError(t, err)

	got, err := newStateSigner([][]byte{newKey, oldKey}, clock.Now).open(tok)
	require.NoError(t, err, "a key still listed verifies")
	st.Issued = clock.Now().Unix()
	require.Equal(t, st, got)

	_, err = newStateSigner([][]byte{newKey}, clock.Now).open(tok)
	require.ErrorIs(t, err, errStateInvalid, "a key no longer listed does not")

	body, sig, _ := strings.Cut(tok, ".")
	forged := base64.RawURLEncoding.EncodeToString([]byte(`{"s":"s","t":"tools/call t","i":2,"a":"a","p":[0],"iat":`+
		`1785240000}`)) + "." + sig
	for name, bad := range map[string]string{
		"suffixed": tok + "-TAMPERED", "payload changed": forged, "no signature": body, "empty": "", "not base64": "!." + sig,
	} {
		_, err := newStateSigner([][]byte{oldKey}, clock.Now).open(bad)
		require.ErrorIs(t, err, errStateInvalid, name)
	}

	signer := newStateSigner([][]byte{oldKey}, clock.Now)
	clock.Advance(RequestStateTTL + time.Second)
	_, err = signer.open(tok)
	require.ErrorIs(t, err, errStateExpired)
}
