package mcpserve

import (
	"context"
	"encoding/json"
	"maps"
)

// player plays the scenario a tools/call chose, once it is chosen: the
// task and the questions it may start with, then the step of its sequence,
// its notifications, its broadcast, and its answer after the answer's
// delay. What it plays is noted in the call's record (s.call).
type player struct {
	x *Exchange
	d *compiled
	s *state
	t *tool
	// index is the chosen scenario's; params and args, the call's, as its
	// questions and task see them.
	index  int
	params json.RawMessage
	args   map[string]any
	// progressToken is the call's _meta.progressToken, which progress
	// notifications carry (none when absent or null).
	progressToken json.RawMessage
}

// play answers the call from sc.
func (pl *player) play(ctx context.Context, sc *scene) (json.RawMessage, error) {
	change, changeFill := sc.change, sc.changeFill
	sc, answers, out, err := pl.settle(ctx, sc)
	if sc == nil {
		return out, err
	}
	if changeFill != nil {
		if change, err = pl.renderChange(ctx, changeFill); err != nil {
			return nil, err
		}
	}
	if change != nil {
		if err := changeState(ctx, pl.s, pl.d, change); err != nil {
			return nil, err
		}
	}
	step, a := sc.step(pl.count(ctx, sc))
	pl.s.call.scenario = sc.name
	if sc.sequence {
		pl.s.call.step = step
	}
	if err := pl.notify(ctx, sc); err != nil {
		return nil, err
	}
	return pl.answer(ctx, sc, a, answers)
}

// settle plays the task and the questions sc starts with until a scenario
// answers, and returns that scenario with the client's answers; or a nil
// scenario and what ends the call instead (a task handle, input_required,
// the answer of no matching branch, or an error). A scenario that neither
// asks nor runs as a task answers at once.
func (pl *player) settle(ctx context.Context, sc *scene) (*scene, map[string]any, json.RawMessage, error) {
	if sc.task == nil && sc.ask == nil {
		return sc, nil, nil, nil
	}
	pl.s.call.scenario = sc.name
	call := askCall{target: "tools/call " + pl.t.name, index: pl.index, params: pl.params, args: pl.args, name: sc.name}
	var answers map[string]any // the client's answers, from every round
	for sc.task != nil || sc.ask != nil {
		call.first = sc.ask
		if sc.task != nil {
			out, err := startTask(ctx, pl.x, pl.s, pl.d, pl.t, sc, call, answers)
			if err != errNoTask {
				return nil, nil, out, err
			}
			// Answered at once: the task's outcome, or its questions.
			if call.first = sc.task.ask; call.first == nil {
				sc = sc.task.outcome
				continue
			}
		}
		b, got, out, err := ask(ctx, pl.x, pl.s, pl.d, call)
		if b == nil {
			return nil, nil, out, err
		}
		sc = b.leaf
		if answers == nil {
			answers = got
		} else {
			maps.Copy(answers, got)
		}
	}
	return sc, answers, nil, nil
}

// count is how many calls of sequence scenario sc the client made before
// this one (0 for a scenario that is no sequence, or when counting fails:
// the first step is answered rather than the call failed).
func (pl *player) count(ctx context.Context, sc *scene) int64 {
	s := pl.s
	if !sc.sequence || s.seq == nil {
		return 0
	}
	s.call.usedSeq = true
	n, err := s.seq.Next(ctx, pl.d.id, sc.seqID, s.sequenceKey())
	if err != nil {
		// Redis away, say.
		if s.log != nil {
			s.log.WarnContext(ctx, "sequence count failed; answering the first step",
				"server_id", pl.d.id.String(), "error", err.Error())
		}
		return 0
	}
	return n
}

// notify sends sc's notifications, each after its delay: logs (to a modern
// request only those at or above the level it names) and progress reports
// (only when the call carries a progress token).
func (pl *player) notify(ctx context.Context, sc *scene) error {
	x := pl.x
	for k := range sc.notes {
		nt := &sc.notes[k]
		if !nt.progress && x.Modern() && !logWanted(x.Meta().LogLevel, nt.level) {
			continue
		}
		if err := sleep(ctx, nt.delay); err != nil {
			return err
		}
		switch {
		case !nt.progress:
			x.Notify(nt.before)
		case len(pl.progressToken) > 0 && string(pl.progressToken) != "null":
			x.Notify(nt.before, pl.progressToken, nt.after)
		}
	}
	return nil
}

// answer gives a, the step's answer, after its delay: the list changes sc
// announces go to the server's open streams first; then a's error, or its
// result with the client's answers filled in.
func (pl *player) answer(ctx context.Context, sc *scene, a *answer, answers map[string]any) (json.RawMessage, error) {
	if err := sleep(ctx, a.delay); err != nil {
		return nil, err
	}
	if sc.broadcast != 0 && pl.s.hub != nil {
		pl.s.hub.notify(pl.d.id, sc.broadcast, nil)
	}
	if a.tmpl != nil {
		filled, err := a.withAnswers(answers)
		if err != nil {
			return nil, err
		}
		a = &filled
	}
	if a.fill != nil {
		return pl.render(ctx, a)
	}
	if a.err != nil {
		return nil, a.err
	}
	return a.result, nil
}
