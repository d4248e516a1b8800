package answertmpl

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// DefaultLimit is the output bound of a rendering when Input.Limit is 0:
// the default request body limit, which bounds what an answer may be.
const DefaultLimit = 1 << 20

// Input is what a rendering reads: the call and its surroundings.
type Input struct {
	// Args are the call's arguments, decoded as the scenario matcher
	// reads them (jsonvalue's decoding rule); nil reads as {}.
	Args map[string]any
	// State returns the stored state value of a key as JSON, and whether
	// it is there; nil has no state.
	State func(key string) (json.RawMessage, bool)
	// Now is the time of the call; zero reads the clock.
	Now time.Time
	// Seq is the call's index for this tool.
	Seq int
	// Rand is the random source of {{uuid}}, {{random}} and {{pick}}
	// (see NewRand); nil uses math/rand/v2's global source. A *rand.Rand
	// is not safe for concurrent use: give each rendering its own or
	// serialize them.
	Rand *rand.Rand
	// Limit bounds the bytes a rendering appends; 0 is DefaultLimit.
	Limit int
}

// NewRand returns a random source seeded with seed: the same seed gives
// the same values in the same order, so that a design's runs repeat.
func NewRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
}

// SeedFor is the seed of one call's source in a design seeded with seed:
// it depends on the tool and the call's index only, so that a run repeats
// whatever order concurrent calls are answered in.
func SeedFor(seed int64, tool string, seq int) int64 {
	h := fnv.New64a()
	h.Write([]byte(tool))
	return int64(h.Sum64()^uint64(seed)) + int64(seq)*-0x61c8864680b583eb
}

// Render appends the rendered document to dst and returns the result.
// When dst is empty the result of a constant template is the template's
// own bytes, allocated once at compile time: the caller must not modify
// them (appending to them copies). Past the limit Render returns dst as
// it was and an error wrapping ErrTooLarge.
func (t *Template) Render(dst []byte, in *Input) ([]byte, error) {
	if in == nil {
		in = &Input{}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if t.segs == nil {
		if len(t.raw) > limit {
			return dst, tooLarge(limit)
		}
		if len(dst) == 0 {
			return t.raw, nil
		}
		return append(dst, t.raw...), nil
	}
	start := len(dst)
	dst = slices.Grow(dst, t.size+16*len(t.segs))
	for i := range t.segs {
		s := &t.segs[i]
		if s.x == nil {
			dst = append(dst, s.lit...)
		} else {
			dst = s.x.render(dst, in, s.whole)
		}
		if len(dst)-start > limit {
			return dst[:start], tooLarge(limit)
		}
	}
	return dst, nil
}

func tooLarge(limit int) error { return fmt.Errorf("%w of %d bytes", ErrTooLarge, limit) }

// render appends the value of x: typed JSON for a whole string, else the
// escaped text inside a string.
func (x *expr) render(dst []byte, in *Input, whole bool) []byte {
	switch x.op {
	case opArgs, opState:
		v, ok := in.lookup(&x.ref)
		switch {
		case whole && !ok:
			return append(dst, "null"...)
		case whole:
			return appendValue(dst, v)
		case !ok:
			return dst
		}
		if s, isString := v.(string); isString {
			return appendEscaped(dst, s)
		}
		return escapeTail(appendValue(dst, v), len(dst))
	case opJSON:
		v, _ := in.lookup(&x.ref) // absent is null
		if whole {
			dst = append(dst, '"')
		}
		dst = escapeTail(appendValue(dst, v), len(dst))
		if whole {
			dst = append(dst, '"')
		}
		return dst
	case opSeq:
		return strconv.AppendInt(dst, int64(in.Seq), 10)
	case opRandom:
		return strconv.AppendInt(dst, in.between(x.lo, x.hi), 10)
	}
	if whole {
		dst = append(dst, '"')
	}
	switch x.op {
	case opNow:
		now := in.Now
		if now.IsZero() {
			now = time.Now()
		}
		dst = now.UTC().Add(x.shift).AppendFormat(dst, time.RFC3339)
	case opUUID:
		dst = appendUUID(dst, in.uint64(), in.uint64())
	case opPick:
		dst = appendEscaped(dst, x.choices[in.uint64n(uint64(len(x.choices)))])
	}
	if whole {
		dst = append(dst, '"')
	}
	return dst
}

// lookup returns the value r reads and whether it is there.
func (in *Input) lookup(r *ref) (any, bool) {
	if !r.state {
		if r.key == "" {
			if in.Args == nil {
				return map[string]any{}, true
			}
			return in.Args, true
		}
		return lookupPath(in.Args, r.key, r.segs)
	}
	if in.State == nil {
		return nil, false
	}
	raw, ok := in.State(r.segs[0].Key)
	segs := r.segs[1:]
	if len(segs) > 0 {
		// A state key named like the whole path wins, as a member does.
		if v, lit := in.State(r.key); lit {
			raw, ok, segs = v, true, nil
		}
	}
	if !ok {
		return nil, false
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return nil, false
	}
	return jsonvalue.Walk(v, segs)
}

// lookupPath reads path (segs parsed) from args as the scenario matcher
// does: a top-level member named like the whole path wins, then the path
// is walked through objects and arrays.
func lookupPath(args map[string]any, path string, segs []jsonvalue.Segment) (any, bool) {
	cur, ok := args[segs[0].Key]
	if len(segs) == 1 {
		return cur, ok
	}
	if v, lit := args[path]; lit {
		return v, true
	}
	for i := 1; ok && i < len(segs); i++ {
		cur, ok = segs[i].Step(cur)
	}
	return cur, ok
}

func (in *Input) uint64() uint64 {
	if in.Rand != nil {
		return in.Rand.Uint64()
	}
	return rand.Uint64()
}

func (in *Input) uint64n(n uint64) uint64 {
	if in.Rand != nil {
		return in.Rand.Uint64N(n)
	}
	return rand.Uint64N(n)
}

// between is a uniform integer from lo to hi, both included.
func (in *Input) between(lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(in.uint64())
	}
	return int64(uint64(lo) + in.uint64n(span+1))
}

// appendUUID appends the version 4 UUID of the random bits hi and lo.
func appendUUID(dst []byte, hi, lo uint64) []byte {
	const hex = "0123456789abcdef"
	var b [16]byte
	for i := 0; i < 8; i++ {
		b[i], b[8+i] = byte(hi>>(56-8*i)), byte(lo>>(56-8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 9562 variant
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hex[c>>4], hex[c&0x0f])
	}
	return dst
}
