package mcpserve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RequestStateTTL is how long a requestState is accepted after it was
// issued.
const RequestStateTTL = 10 * time.Minute

// maxRequestState bounds an issued requestState, and so the answers a call
// carries from round to round.
const maxRequestState = 64 << 10

// askState is what a requestState carries from one round of questions to
// the next: what it was issued for, the round reached (the branch taken
// in each earlier round), the answers so far and when it was issued.
type askState struct {
	Server   string                     `json:"s"`
	Target   string                     `json:"t"` // method and tool, prompt or resource
	Scenario int                        `json:"i"`
	Args     string                     `json:"a"` // digest of the arguments
	Path     []int                      `json:"p"`
	Answers  map[string]json.RawMessage `json:"r,omitempty"`
	Issued   int64                      `json:"iat"`
}

// stateSigner signs and verifies requestState with HMAC-SHA256: the first
// key signs, every key verifies, so a key can be replaced without
// refusing the states in flight.
type stateSigner struct {
	keys [][]byte
	now  func() time.Time
}

var (
	errStateInvalid = errors.New("invalid requestState")
	errStateExpired = errors.New("invalid requestState: it has expired; call again without it")
)

// newStateSigner signs with keys; without any, with a random key of this
// process (states then verify on this instance only).
func newStateSigner(keys [][]byte, now func() time.Time) *stateSigner {
	if len(keys) == 0 {
		k := make([]byte, 32)
		_, _ = rand.Read(k)
		keys = [][]byte{k}
	}
	if now == nil {
		now = time.Now
	}
	return &stateSigner{keys: keys, now: now}
}

// fallbackSigner signs for exchanges that did not come through a Handler.
var fallbackSigner = newStateSigner(nil, nil)

// seal issues the token of st, stamped with the current time.
func (s *stateSigner) seal(st askState) (string, error) {
	st.Issued = s.now().Unix()
	payload, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	tok := enc.EncodeToString(payload) + "." + enc.EncodeToString(mac(s.keys[0], payload))
	if len(tok) > maxRequestState {
		return "", errStateTooLarge
	}
	return tok, nil
}

var errStateTooLarge = fmt.Errorf("the answers are too large to carry to the next round: a requestState holds at most %d KiB", maxRequestState>>10)

// open verifies a token and returns its state: any change to it, a key
// not in use, or an age past RequestStateTTL fails.
func (s *stateSigner) open(tok string) (askState, error) {
	var st askState
	body, sig, ok := strings.Cut(tok, ".")
	if !ok || len(tok) > maxRequestState {
		return st, errStateInvalid
	}
	enc := base64.RawURLEncoding
	payload, err1 := enc.DecodeString(body)
	got, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return st, errStateInvalid
	}
	valid := false
	for _, k := range s.keys {
		if hmac.Equal(got, mac(k, payload)) {
			valid = true
			break
		}
	}
	if !valid || json.Unmarshal(payload, &st) != nil {
		return askState{}, errStateInvalid
	}
	age := s.now().Sub(time.Unix(st.Issued, 0))
	if age > RequestStateTTL || age < -time.Minute {
		return askState{}, errStateExpired
	}
	return st, nil
}

func mac(key, payload []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write(payload)
	return h.Sum(nil)
}

// argsDigest binds a state to the arguments of the call it was issued for.
func argsDigest(args map[string]any) string {
	b, _ := json.Marshal(args) // keys sorted: the same arguments give the same digest
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}
