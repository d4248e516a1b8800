package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonenc"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// scene is a scenario compiled for serving: its answers encoded once, its
// notifications encoded but for the progress token, its waits as durations.
type scene struct {
	name string
	// seqID names the scenario to the Sequencer: the tool and the
	// scenario's position.
	seqID string
	// steps holds one answer, or a sequence's answers in order.
	steps    []answer
	sequence bool
	cycle    bool
	notes    []note
	delay    time.Duration
	// broadcast: the list changes a matching call announces to the
	// server's subscriptions/listen streams.
	broadcast changes
	// ask, when set, is the first round of questions of a scenario that
	// asks the client; its branches hold the answers.
	ask *round
	// task, when set, makes the call a task of the tasks extension.
	task *taskScene
	// fault is the scenario's fault, nil when it has none.
	fault *fault
	// change is the scenario's set_state, applied when it answers; nil
	// when it sets none. changeFill, when set, renders it call by call
	// from its answer templates instead.
	change     *mockspec.StateChange
	changeFill *answertmpl.Template
}

// answer is what one call gets: a result or a scripted error, after a
// delay.
type answer struct {
	result []byte
	err    *jsonrpc.Scripted
	delay  time.Duration
	// tmpl, when set, fills the answers to questions into the result.
	tmpl *template
	// fill, when set, renders the answer call by call from its answer
	// template (the form's JSON: the response, the result as shaped, or
	// the error object), in place of result or err's body; structured:
	// a response's result carries structuredContent, which the tool's
	// output schema checks.
	fill       *answertmpl.Template
	form       answerForm
	structured bool
}

// note is a scripted notification: the whole message for a log, or the
// text around the progress token for a progress report.
type note struct {
	progress bool
	level    int    // a log notification's rank in protocol.LogLevels
	before   []byte // up to the token (progress), or the whole message (log)
	after    []byte // after the token (progress)
	delay    time.Duration
}

// step picks the answer of the n-th call (0-based) of a scene.
func (s *scene) step(n int64) (int, *answer) {
	i := 0
	if s.sequence && n > 0 {
		last := int64(len(s.steps) - 1)
		switch {
		case s.cycle:
			i = int(n % int64(len(s.steps)))
		case n > last:
			i = int(last)
		default:
			i = int(n)
		}
	}
	return i, &s.steps[i]
}

// compileScene compiles scenario i of a tool for a server of the given
// protocol version.
func compileScene(toolName string, i int, sc mockspec.Scenario, version string, withStructured bool) (*scene, error) {
	s := &scene{name: sc.Name, seqID: toolName + "/" + strconv.Itoa(i), delay: ms(sc.DelayMS)}
	var err error
	if s.fault, err = compileFault(sc.Fault); err != nil {
		return nil, fmt.Errorf("fault: %w", err)
	}
	for j, n := range sc.Notifications {
		cn, err := compileNote(n)
		if err != nil {
			return nil, fmt.Errorf("notification %d: %w", j, err)
		}
		s.notes = append(s.notes, cn)
	}
	if sc.Task != nil {
		s.task, err = compileTask(s, sc.Task, version, withStructured)
		return s, err
	}
	if sc.Ask != nil {
		s.ask, err = compileRound(s, s.seqID, sc.Ask, sc.Then, version, withStructured)
		return s, err
	}
	if sc.Sequence != nil {
		s.sequence = true
		s.cycle = sc.Sequence.Then == mockspec.ThenCycle
		for j, st := range sc.Sequence.Steps {
			a, err := compileAnswer(st.Response, st.Result, st.Error, version, withStructured)
			if err != nil {
				return nil, fmt.Errorf("step %d: %w", j, err)
			}
			a.delay = s.delay
			if st.DelayMS != nil {
				a.delay = ms(*st.DelayMS)
			}
			s.steps = append(s.steps, a)
		}
		if len(s.steps) == 0 {
			return nil, fmt.Errorf("a sequence without steps")
		}
	} else {
		a, err := compileAnswer(sc.Response, sc.Result, sc.Error, version, withStructured)
		if err != nil {
			return nil, err
		}
		a.delay = s.delay
		s.steps = []answer{a}
	}
	for _, b := range sc.Broadcast {
		s.broadcast |= broadcastChanges[b]
	}
	return s, nil
}

// broadcastChanges are the list changes a scenario may broadcast.
var broadcastChanges = map[string]changes{
	mockspec.BroadcastToolsListChanged:     toolsChanged,
	mockspec.BroadcastPromptsListChanged:   promptsChanged,
	mockspec.BroadcastResourcesListChanged: resourcesChanged,
}

// scripted encodes a designed JSON-RPC error once, to be sent as written.
func scripted(e mockspec.RPCError) (*jsonrpc.Scripted, error) {
	wire := jsonrpc.Error{Code: int64(e.Code), Message: e.Message}
	if len(e.Data) > 0 {
		wire.Data = e.Data
	}
	return jsonrpc.NewScripted(wire)
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func compileAnswer(response, result json.RawMessage, rpcErr *mockspec.RPCError, version string, withStructured bool) (answer, error) {
	var a answer
	var err error
	switch {
	case rpcErr != nil:
		if a.err, err = scripted(*rpcErr); err == nil {
			a.withTemplate(formError, a.err.Body, false)
		}
	case len(result) > 0:
		if a.result, err = shapeResult(result, version); err == nil {
			a.withTemplate(formResult, a.result, withStructured)
		}
	default:
		if a.result, err = textResult(response, withStructured); err == nil {
			a.withTemplate(formResponse, response, withStructured)
		}
	}
	return a, err
}

// shapeResult encodes an explicit CallToolResult for a protocol version:
// content blocks the version lacks become text saying what they were, and
// structuredContent is served only where the version has it.
func shapeResult(raw json.RawMessage, version string) ([]byte, error) {
	var r struct {
		Content           []json.RawMessage `json:"content"`
		IsError           bool              `json:"isError"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
		Meta              json.RawMessage   `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	out := struct {
		Content           []json.RawMessage `json:"content"`
		IsError           bool              `json:"isError,omitempty"`
		StructuredContent json.RawMessage   `json:"structuredContent,omitempty"`
		Meta              json.RawMessage   `json:"_meta,omitempty"`
	}{Content: make([]json.RawMessage, len(r.Content)), IsError: r.IsError, Meta: r.Meta}
	for i, c := range r.Content {
		shaped, err := shapeContent(c, version)
		if err != nil {
			return nil, fmt.Errorf("content[%d]: %w", i, err)
		}
		out.Content[i] = shaped
	}
	if protocol.HasStructuredContent(version) && len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		out.StructuredContent = r.StructuredContent
	}
	return jsonenc.Marshal(out)
}

// shapeContent returns a content block as a client of version can read it:
// as written, or, for a type the version does not have, a text block
// naming what was there.
func shapeContent(raw json.RawMessage, version string) (json.RawMessage, error) {
	var c struct {
		Type     string `json:"type"`
		MimeType string `json:"mimeType"`
		URI      string `json:"uri"`
		Name     string `json:"name"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	var text string
	switch {
	case c.Type == "audio" && !protocol.HasAudio(version):
		text = fmt.Sprintf("[audio content (%s) omitted: MCP %s has no audio content]", c.MimeType, version)
	case c.Type == "resource_link" && !protocol.HasResourceLinks(version):
		text = fmt.Sprintf("[resource link: %s <%s>]", c.Name, c.URI)
	default:
		return compact.Bytes(), nil
	}
	return marshalText(text)
}

// marshalText encodes a text block, leaving <, > and & as they are: the
// text is read by a client, never embedded in HTML.
func marshalText(text string) ([]byte, error) {
	return jsonenc.Marshal(textBlock{Type: "text", Text: text})
}

// textResult is a tools/call result whose single text item is the compact
// JSON of response, with the response as structuredContent when asked.
func textResult(response json.RawMessage, structured bool) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, response); err != nil {
		return nil, err
	}
	type item struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	res := struct {
		Content           []item          `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	}{Content: []item{{Type: "text", Text: compact.String()}}}
	if structured {
		res.StructuredContent = compact.Bytes()
	}
	return json.Marshal(res)
}

func compileNote(n mockspec.Notification) (note, error) {
	out := note{delay: ms(n.DelayMS)}
	switch n.Type {
	case mockspec.NotifyLog:
		params := struct {
			Level  string          `json:"level"`
			Logger string          `json:"logger,omitempty"`
			Data   json.RawMessage `json:"data"`
		}{n.Level, n.Logger, n.Data}
		if len(params.Data) == 0 {
			params.Data = json.RawMessage("null")
		}
		body, err := json.Marshal(params)
		if err != nil {
			return note{}, err
		}
		out.before = append(append([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":`), body...), '}')
		out.level, _ = protocol.LogLevelRank(n.Level)
	case mockspec.NotifyProgress:
		out.progress = true
		var progress float64
		if n.Progress != nil {
			progress = *n.Progress
		}
		rest := struct {
			Progress float64  `json:"progress"`
			Total    *float64 `json:"total,omitempty"`
			Message  string   `json:"message,omitempty"`
		}{progress, n.Total, n.Message}
		body, err := json.Marshal(rest)
		if err != nil {
			return note{}, err
		}
		out.before = []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`)
		// body is {"progress":...}: its fields follow the token.
		out.after = append(append([]byte{','}, body[1:]...), '}')
	default:
		return note{}, fmt.Errorf("unknown notification type %q", n.Type)
	}
	return out, nil
}
