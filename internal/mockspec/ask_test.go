package mockspec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	nameQuestion = `{"elicitation":{"message":"What is your name?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	greeting     = `{"result":{"content":[{"type":"text","text":"Hello, {{user_name.content.name}}!"}]}}`
)

func TestCheckScenarioAsk(t *testing.T) {
	deep := `{"response":{"first_root":"{{q5.roots[0].uri}}"}}`
	for i := 5; i >= 1; i-- {
		deep = fmt.Sprintf(`{"ask":{"q%d":{"roots":{}}},"then":[%s]}`, i, deep)
	}
	manyQuestions := make([]string, MaxInputRequests+1)
	for i := range manyQuestions {
		manyQuestions[i] = fmt.Sprintf(`"q%d":{"roots":{}}`, i)
	}
	manyBranches := strings.Repeat(`{"response":{"a":1}},`, MaxBranches) + `{"response":{"a":1}}`
	tests := []struct {
		name string
		sc   string
		want []string
	}{
		{"elicitation with branches", `{"ask":{"user_name":` + nameQuestion + `},"then":[` +
			`{"when":{"user_name.action":"accept"},` + greeting[1:] + `,` +
			`{"when":[{"user_name.action":"decline"},{"field":"user_name.content","operator":"not_exists"}],"response":{"a":1}},` +
			`{"error":{"code":-32603,"message":"cancelled"}}]}`, nil},
		{"sampling and roots, then another round", `{"ask":{"s":{"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"Hi"}}],` +
			`"max_tokens":10,"model_preferences":{"hints":[{"name":"claude"}]},"system_prompt":"Be brief."}},"r":{"roots":{}}},` +
			`"then":[{"ask":{"user_name":` + nameQuestion + `},"then":[` + greeting + `]}]}`, nil},
		{"five rounds deep", deep, nil},
		{"a sequence in a branch", `{"ask":{"r":{"roots":{}}},"then":[{"sequence":{"steps":[{"response":{"a":1},"delay_ms":40000}]}}]}`,
			[]string{"then[0].sequence.steps[0].delay_ms", "delay_ms"}},
		{"six rounds deep", `{"ask":{"q0":{"roots":{}}},"then":[` + deep + `]}`, []string{"then[0].then[0].then[0].then[0].then[0].ask"}},
		{"then without ask", `{"then":[{"response":{"a":1}}]}`, []string{"ask"}},
		{"ask without then", `{"ask":{"r":{"roots":{}}}}`, []string{"then"}},
		{"ask beside a response", `{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":1}}],"response":{"a":1}}`, []string{"response"}},
		{"an empty round", `{"ask":{},"then":[{"response":{"a":1}}]}`, []string{"ask"}},
		{"too many questions", `{"ask":{` + strings.Join(manyQuestions, ",") + `},"then":[{"response":{"a":1}}]}`, []string{"ask"}},
		{"too many branches", `{"ask":{"r":{"roots":{}}},"then":[` + manyBranches + `]}`, []string{"then"}},
		{"a bad id", `{"ask":{"a.b":{"roots":{}}},"then":[{"response":{"a":1}}]}`, []string{`ask["a.b"]`}},
		{"an id asked twice on one path", `{"ask":{"r":{"roots":{}}},"then":[{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":1}}]}]}`,
			[]string{`then[0].ask["r"]`}},
		{"a question of no kind", `{"ask":{"r":{}},"then":[{"response":{"a":1}}]}`, []string{`ask["r"]`}},
		{"a question of two kinds", `{"ask":{"r":{"roots":{},"sampling":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"max_tokens":1}}},` +
			`"then":[{"response":{"a":1}}]}`, []string{`ask["r"].roots`}},
		{"a bad elicitation", `{"ask":{"e":{"elicitation":{"message":" ","requested_schema":{"type":"string"}}}},"then":[{"response":{"a":1}}]}`,
			[]string{`ask["e"].elicitation.message`, `ask["e"].elicitation.requested_schema`}},
		{"an elicitation without a schema", `{"ask":{"e":{"elicitation":{"message":"m"}}},"then":[{"response":{"a":1}}]}`,
			[]string{`ask["e"].elicitation.requested_schema`}},
		{"a bad sampling", `{"ask":{"s":{"sampling":{"messages":[{"role":"system","content":{"type":"resource_link","uri":"a:b","name":"n"}},` +
			`{"role":"user","content":{"type":"text"}}],"model_preferences":[1]}}},"then":[{"response":{"a":1}}]}`,
			[]string{`ask["s"].sampling.messages[0].role`, `ask["s"].sampling.messages[0].content.type`, `ask["s"].sampling.messages[1].content.text`,
				`ask["s"].sampling.max_tokens`, `ask["s"].sampling.model_preferences`}},
		{"a sampling without messages", `{"ask":{"s":{"sampling":{"max_tokens":5}}},"then":[{"response":{"a":1}}]}`,
			[]string{`ask["s"].sampling.messages`}},
		{"a bad condition", `{"ask":{"r":{"roots":{}}},"then":[{"when":{"field":"r.roots","operator":"bogus"},"response":{"a":1}},` +
			`{"when":[{},{"field":"r","operator":"gt","value":"x"}],"response":{"a":1}},{"when":"x","response":{"a":1}}]}`,
			[]string{"then[0].when.operator", "then[1].when[1].value", "then[2].when"}},
		{"a branch without an answer", `{"ask":{"r":{"roots":{}}},"then":[{"when":{}}]}`, []string{"then[0].response"}},
		{"a branch of two answers", `{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":1},"error":{"code":1,"message":"m"}}]}`,
			[]string{"then[0].error"}},
		{"a placeholder naming no question", `{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":"{{who.content}}"}},` +
			`{"sequence":{"steps":[{"result":{"content":[{"type":"text","text":"{{r..x}}"}]}}]}}]}`,
			[]string{"then[0].response", "then[1].sequence.steps[0].result"}},
		{"a timeout branch", `{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":1}},{"timeout_ms":1500,"response":{"late":true}}]}`, nil},
		{"two timeout branches and bad waits", `{"ask":{"r":{"roots":{}}},"then":[{"timeout_ms":0,"response":{"a":1}},` +
			`{"timeout_ms":10,"response":{"a":1}},{"ask":{"q":{"roots":{}}},"then":[{"timeout_ms":300001,"response":{"a":1}}]}]}`,
			[]string{"then[0].timeout_ms", "then[1].timeout_ms", "then[2].then[0].timeout_ms"}},
		{"a NUL", `{"ask":{"r":{"roots":{}}},"then":[{"response":{"a":"\u0000"}}]}`, []string{"ask"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fieldsOf(t, CheckScenario(parse(t, tt.sc), nil))
			require.Equal(t, tt.want, got)
		})
	}
}

func TestCompileWhen(t *testing.T) {
	answers := map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}
	for _, tt := range []struct {
		when string
		want bool
	}{
		{``, true},
		{`{}`, true},
		{`{"user_name.action":"accept"}`, true},
		{`{"user_name.action":"decline"}`, false},
		{`[{"user_name.action":"accept"},{"field":"user_name.content.name","operator":"starts_with","value":"Al"}]`, true},
		{`[{"user_name.action":"accept"},{"field":"user_name.content.name","operator":"starts_with","value":"Bo"}]`, false},
		{`{"field":"user_name","operator":"bogus"}`, false},
	} {
		conds, _ := CompileWhen([]byte(tt.when))
		got := true
		for _, c := range conds {
			got = got && c.Match(answers)
		}
		require.Equal(t, tt.want, got, tt.when)
	}
}

func TestCheckScenarioTask(t *testing.T) {
	tests := []struct {
		name string
		sc   string
		want []string
	}{
		{"steps and a result", `{"task":{"steps":[{"message":"Queued","duration_ms":500},{"duration_ms":1500}],` +
			`"result":{"content":[{"type":"text","text":"done"}]},"ttl_ms":60000,"poll_interval_ms":200}}`, nil},
		{"an error outcome, required", `{"task":{"error":{"code":-32603,"message":"boom"},"required":true}}`, nil},
		{"questions", `{"task":{"steps":[{"duration_ms":10}],"ask":{"ok":{"elicitation":{"message":"Go on?",` +
			`"requested_schema":{"type":"object"}}}},"then":[{"when":{"ok.action":"accept"},"response":{"went":"on"}},` +
			`{"error":{"code":-32603,"message":"stopped"}}]}}`, nil},
		{"no outcome", `{"task":{"steps":[{"duration_ms":10}]}}`, []string{"task.response"}},
		{"an answer beside the task", `{"response":{"a":1},"task":{"response":{"a":1}}}`, []string{"response"}},
		{"bad steps and bounds", `{"task":{"steps":[{"duration_ms":-1},{"duration_ms":86400001}],"response":{"a":1},` +
			`"ttl_ms":10,"poll_interval_ms":5}}`, []string{"task.steps[0].duration_ms", "task.steps[1].duration_ms", "task.ttl_ms", "task.poll_interval_ms"}},
		{"steps past the TTL", `{"task":{"steps":[{"duration_ms":5000}],"response":{"a":1},"ttl_ms":1000}}`, []string{"task.ttl_ms"}},
		{"a sequence in a task's branch", `{"task":{"ask":{"r":{"roots":{}}},"then":[{"sequence":{"steps":[{"response":{"a":1}}]}}]}}`,
			[]string{"task.then[0].sequence"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, fieldsOf(t, CheckScenario(parse(t, tt.sc), nil)))
		})
	}
}
