package a2aserve

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// incoming is what the agent reads of a sent message: its text parts joined
// by newlines, the data of its first data part, its metadata and context.
type incoming struct {
	Text      string
	Data      any
	Metadata  map[string]any
	ContextID string
	TaskID    string
	MessageID string
	Parts     []storedPart // the text and data parts, as a task's history keeps them
	// Blocking: a task reply is answered once the task has ended or waits
	// for input (1.0 unless configuration.returnImmediately; 0.3 unless
	// configuration.blocking is false).
	Blocking      bool
	HistoryLength *int // configuration.historyLength
}

// stored is the message as a task's history keeps it.
func (in incoming) stored() storedMessage {
	return storedMessage{MessageID: in.MessageID, Role: "user", Parts: in.Parts, Metadata: in.Metadata}
}

// wireMessage reads a Message in either era: 1.0 parts are {text}, {data},
// {raw}, {url}; 0.3 parts are {kind, text|data|file}. Both carry text and
// data under the same names.
type wireMessage struct {
	MessageID string         `json:"messageId"`
	ContextID string         `json:"contextId"`
	TaskID    string         `json:"taskId"`
	Role      string         `json:"role"`
	Parts     []wirePart     `json:"parts"`
	Metadata  map[string]any `json:"metadata"`
}

type wirePart struct {
	Text *string        `json:"text"`
	Data any            `json:"data"`
	Kind string         `json:"kind"`
	Meta map[string]any `json:"metadata"`
}

// readSend reads the params of SendMessage (1.0) or message/send (0.3):
// {message, configuration?, metadata?}.
func readSend(params json.RawMessage, era string) (incoming, error) {
	var p struct {
		Message       *wireMessage `json:"message"`
		Configuration *struct {
			ReturnImmediately bool  `json:"returnImmediately"`
			Blocking          *bool `json:"blocking"`
			HistoryLength     *int  `json:"historyLength"`
		} `json:"configuration"`
	}
	if len(params) == 0 {
		return incoming{}, fmt.Errorf("%w: params.message is required", jsonrpc.ErrInvalidParams)
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return incoming{}, fmt.Errorf("%w: params: %v", jsonrpc.ErrInvalidParams, err)
	}
	m := p.Message
	switch {
	case m == nil:
		return incoming{}, fmt.Errorf("%w: params.message is required", jsonrpc.ErrInvalidParams)
	case m.MessageID == "":
		return incoming{}, fmt.Errorf("%w: params.message.messageId is required", jsonrpc.ErrInvalidParams)
	case len(m.Parts) == 0:
		return incoming{}, fmt.Errorf("%w: params.message.parts must hold at least one part", jsonrpc.ErrInvalidParams)
	case m.Role != userRole(era):
		return incoming{}, fmt.Errorf("%w: params.message.role must be %q", jsonrpc.ErrInvalidParams, userRole(era))
	}
	in := incoming{Metadata: m.Metadata, ContextID: m.ContextID, TaskID: m.TaskID, MessageID: m.MessageID, Blocking: true}
	if c := p.Configuration; c != nil {
		if era == Version03 {
			in.Blocking = c.Blocking == nil || *c.Blocking
		} else {
			in.Blocking = !c.ReturnImmediately
		}
		if c.HistoryLength != nil && *c.HistoryLength < 0 {
			return incoming{}, fmt.Errorf("%w: params.configuration.historyLength must be 0 or more, got %d", jsonrpc.ErrInvalidParams, *c.HistoryLength)
		}
		in.HistoryLength = c.HistoryLength
	}
	var texts []string
	for _, part := range m.Parts {
		if part.Text != nil {
			texts = append(texts, *part.Text)
			in.Parts = append(in.Parts, storedPart{Text: part.Text})
		} else if part.Data != nil {
			if in.Data == nil {
				in.Data = part.Data
			}
			in.Parts = append(in.Parts, storedPart{Data: part.Data})
		}
	}
	in.Text = strings.Join(texts, "\n")
	return in, nil
}

func userRole(era string) string {
	if era == Version03 {
		return "user"
	}
	return "ROLE_USER"
}

// outgoing is the agent's reply, rendered in either era's shape.
type outgoing struct {
	MessageID string
	ContextID string
	TaskID    string
	Text      string
	Skill     string
	Reply     string // the scripted reply's name, "" for the default reply
}

// defaultReply is the reply to in when no scripted reply matches: a
// message naming the skill matched.
func defaultReply(card agentcard.Card, out outgoing) outgoing {
	if out.Skill != "" {
		out.Text = fmt.Sprintf("%s (mock agent): skill %q received your message.", card.Name, out.Skill)
	} else {
		out.Text = fmt.Sprintf("%s (mock agent): received your message.", card.Name)
	}
	return out
}

// wire is the reply as a Message in era's shape.
func (o outgoing) wire(era string) map[string]any {
	if era == Version03 {
		return o.v03()
	}
	return o.v10()
}

func (o outgoing) metadata() map[string]any {
	md := map[string]any{}
	if o.Skill != "" {
		md["skill"] = o.Skill
	}
	if o.Reply != "" {
		md["reply"] = o.Reply
	}
	if len(md) == 0 {
		return nil
	}
	return md
}

// v10 is the reply as an A2A 1.0 Message (proto JSON).
func (o outgoing) v10() map[string]any {
	m := map[string]any{
		"messageId": o.MessageID, "contextId": o.ContextID, "role": "ROLE_AGENT",
		"parts": []map[string]any{{"text": o.Text}},
	}
	if o.TaskID != "" {
		m["taskId"] = o.TaskID
	}
	if md := o.metadata(); md != nil {
		m["metadata"] = md
	}
	return m
}

// v03 is the reply as an A2A 0.3 Message.
func (o outgoing) v03() map[string]any {
	m := map[string]any{
		"kind": "message", "messageId": o.MessageID, "contextId": o.ContextID, "role": "agent",
		"parts": []map[string]any{{"kind": "text", "text": o.Text}},
	}
	if o.TaskID != "" {
		m["taskId"] = o.TaskID
	}
	if md := o.metadata(); md != nil {
		m["metadata"] = md
	}
	return m
}

// MatchSkill picks the skill a message is about: the first skill (in card
// order) whose name (with _ and - read as spaces too) or one of whose
// examples, as the A2A rendering lists them, appears in the text, compared
// without case; else the first skill. False when the card has no skills.
func MatchSkill(card agentcard.Card, text string) (agentcard.Skill, bool) {
	if len(card.Skills) == 0 {
		return agentcard.Skill{}, false
	}
	lower := strings.ToLower(text)
	rendered := agentcard.A2A(card, agentcard.Publisher{}).Skills
	for i, s := range card.Skills {
		if skillMentioned(s.Name, rendered[i].Examples, lower) {
			return s, true
		}
	}
	return card.Skills[0], true
}

func skillMentioned(name string, examples []string, lower string) bool {
	name = strings.ToLower(name)
	spaced := strings.NewReplacer("_", " ", "-", " ").Replace(name)
	if contains(lower, name) || contains(lower, spaced) {
		return true
	}
	for _, e := range examples {
		if contains(lower, strings.ToLower(e)) {
			return true
		}
	}
	return false
}

func contains(text, word string) bool {
	return word != "" && strings.Contains(text, word)
}
