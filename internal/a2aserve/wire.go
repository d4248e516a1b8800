package a2aserve

import (
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/store"
)

// storedMessage is a message of a task's history as kept: the parts the
// agent reads (text and data), in neither era's shape.
type storedMessage struct {
	MessageID string         `json:"messageId"`
	Role      string         `json:"role"` // user or agent
	Parts     []storedPart   `json:"parts"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

type storedPart struct {
	Text *string `json:"text,omitempty"`
	Data any     `json:"data,omitempty"`
}

// wire is the message in era's shape, in the task and context given.
func (m storedMessage) wire(era, taskID, contextID string) map[string]any {
	parts := make([]map[string]any, 0, len(m.Parts))
	for _, p := range m.Parts {
		parts = append(parts, partWire(era, p.Text, p.Data))
	}
	out := map[string]any{"messageId": m.MessageID, "contextId": contextID, "parts": parts}
	if taskID != "" {
		out["taskId"] = taskID
	}
	if len(m.Metadata) > 0 {
		out["metadata"] = m.Metadata
	}
	switch {
	case era == Version03:
		out["kind"] = "message"
		out["role"] = m.Role
	case m.Role == "agent":
		out["role"] = "ROLE_AGENT"
	default:
		out["role"] = "ROLE_USER"
	}
	return out
}

func partWire(era string, text *string, data any) map[string]any {
	p := map[string]any{}
	if text != nil {
		p["text"] = *text
		if era == Version03 {
			p["kind"] = "text"
		}
		return p
	}
	p["data"] = data
	if era == Version03 {
		p["kind"] = "data"
	}
	return p
}

// stateName is a task state in era's spelling: 0.3's lower-case kebab
// names, 1.0's TASK_STATE_ names.
func stateName(era, state string) string {
	if era == Version03 {
		return state
	}
	return "TASK_STATE_" + strings.ToUpper(strings.ReplaceAll(state, "-", "_"))
}

// statusWire is the TaskStatus of v.
func statusWire(era, taskID, contextID string, v view) map[string]any {
	st := map[string]any{"state": stateName(era, v.State), "timestamp": v.At.UTC().Format(time.RFC3339Nano)}
	if v.Message != "" {
		text := v.Message
		m := storedMessage{MessageID: taskID + "-status-" + phaseName(v), Role: "agent", Parts: []storedPart{{Text: &text}}}
		st["message"] = m.wire(era, taskID, contextID)
	}
	return st
}

// phaseName tells the status messages of a task apart: one per step, and
// one for its end.
func phaseName(v view) string {
	if v.Terminal() {
		return v.State
	}
	return strconv.Itoa(v.Phase)
}

func artifactWire(era string, a artifact) map[string]any {
	out := map[string]any{"artifactId": a.ID, "name": a.Name}
	if a.Description != "" {
		out["description"] = a.Description
	}
	var parts []map[string]any
	if a.Text != "" {
		text := a.Text
		parts = append(parts, partWire(era, &text, nil))
	}
	if len(a.Data) > 0 {
		parts = append(parts, partWire(era, nil, a.Data))
	}
	out["parts"] = parts
	return out
}

// taskWire is task t at v in era's Task shape, with the last historyLength
// messages of history (all when nil; none when 0).
func taskWire(era string, t store.A2ATask, sc script, v view, history []storedMessage, historyLength *int) map[string]any {
	id := t.ID.String()
	out := map[string]any{"id": id, "contextId": t.ContextID, "status": statusWire(era, id, t.ContextID, v)}
	if era == Version03 {
		out["kind"] = "task"
	}
	if v.Terminal() && len(v.Artifacts) > 0 {
		arts := make([]map[string]any, len(v.Artifacts))
		for i, a := range v.Artifacts {
			arts[i] = artifactWire(era, a)
		}
		out["artifacts"] = arts
	}
	if historyLength != nil && *historyLength < len(history) {
		history = history[len(history)-*historyLength:]
	}
	if len(history) > 0 {
		h := make([]map[string]any, len(history))
		for i, m := range history {
			h[i] = m.wire(era, id, t.ContextID)
		}
		out["history"] = h
	}
	md := map[string]any{"reply": t.Reply}
	if sc.Skill != "" {
		md["skill"] = sc.Skill
	}
	out["metadata"] = md
	return out
}

// statusEvent is a TaskStatusUpdateEvent as a stream carries it; final
// (0.3 only) marks the last event.
func statusEvent(era, taskID, contextID string, v view, final bool) any {
	ev := map[string]any{"taskId": taskID, "contextId": contextID, "status": statusWire(era, taskID, contextID, v)}
	if era == Version03 {
		ev["kind"] = "status-update"
		ev["final"] = final
		return ev
	}
	return map[string]any{"statusUpdate": ev}
}

// artifactEvent is a TaskArtifactUpdateEvent carrying a whole artifact.
func artifactEvent(era, taskID, contextID string, a artifact) any {
	ev := map[string]any{"taskId": taskID, "contextId": contextID, "artifact": artifactWire(era, a),
		"append": false, "lastChunk": true}
	if era == Version03 {
		ev["kind"] = "artifact-update"
		return ev
	}
	return map[string]any{"artifactUpdate": ev}
}

// taskResult is a Task as SendMessage's result or a stream's event: 1.0
// wraps it as {task}, 0.3 tells it by its kind.
func taskResult(era string, task map[string]any) any {
	if era == Version03 {
		return task
	}
	return map[string]any{"task": task}
}
