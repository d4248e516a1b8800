package mcpserve

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/design"
)

// prompt is a prompt as served.
type prompt struct {
	description string
	arguments   []design.PromptArgument
	messages    []design.PromptMessage
	// ask, when set, is the first round of questions; the messages are
	// those of the branch the answers take.
	ask *round
}

// compilePrompts keeps every prompt and encodes prompts/list.
func (c *compiled) compilePrompts(prompts []design.Prompt) error {
	type promptInfo struct {
		Name        string                  `json:"name"`
		Description string                  `json:"description,omitempty"`
		Arguments   []design.PromptArgument `json:"arguments"`
	}
	c.prompts = make(map[string]*prompt, len(prompts))
	list := make([]promptInfo, 0, len(prompts))
	for _, p := range prompts {
		cp := &prompt{description: p.Description, arguments: p.Arguments, messages: p.Messages}
		if p.Ask != nil {
			var err error
			if cp.ask, err = compileRound(nil, "", p.Ask, p.Then, c.version, false); err != nil {
				return fmt.Errorf("prompt %q: %w", p.Name, err)
			}
			c.size += cp.ask.size()
		}
		c.prompts[p.Name] = cp
		args := make([]design.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			a.Completions = nil // served by completion/complete, not listed
			args[i] = a
		}
		list = append(list, promptInfo{Name: p.Name, Description: p.Description, Arguments: args})
		for _, m := range p.Messages {
			c.size += len(m.Text) + len(m.Content)
		}
		c.size += 256
	}
	var err error
	c.promptsList, err = json.Marshal(map[string]any{"prompts": list})
	return err
}
