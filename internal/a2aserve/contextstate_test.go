package a2aserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/agentcard"
)

var cartReplies = []agentcard.Reply{
	{Name: "add", Condition: json.RawMessage(`{"field":"text","operator":"starts_with","value":"add "}`),
		SetState: json.RawMessage(`{"items":"{{args.text}}"}`), Text: "Cart: {{state.items}}"},
	{Name: "checkout", Condition: json.RawMessage(`{"field":"text","operator":"equals","value":"checkout"}`),
		WhenState: json.RawMessage(`{"field":"items","operator":"exists"}`), SetState: json.RawMessage(`{"items":null}`),
		Text: "Bought {{state.items}}"},
	{Name: "empty", Text: "Your cart is empty"},
}

func replyText(t *testing.T, res map[string]any) string {
	t.Helper()
	m := res["message"].(map[string]any)
	return m["parts"].([]any)[0].(map[string]any)["text"].(string)
}

func TestContextStateCart(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, cartReplies)
	in := func(ctx string) map[string]any { return map[string]any{"contextId": ctx} }
	require.Equal(t, "Cart: add apples", replyText(t, rpc(t, env.acme, "1.0", "SendMessage", msg10("add apples", in("c1")))))
	// Another context, and the same context on the other organization's agent, see no cart.
	require.Equal(t, "Your cart is empty", replyText(t, rpc(t, env.acme, "1.0", "SendMessage", msg10("checkout", in("c2")))))
	require.Equal(t, "Your cart is empty", replyText(t, rpc(t, env.other, "1.0", "SendMessage", msg10("checkout", in("c1")))))
	require.Equal(t, "Your cart is empty", replyText(t, rpc(t, env.acme, "1.0", "SendMessage", msg10("checkout", nil))))
	// The text renders the state the change leaves: null deleted the key.
	require.Equal(t, "Bought ", replyText(t, rpc(t, env.acme, "1.0", "SendMessage", msg10("checkout", in("c1")))))
	require.Equal(t, "Your cart is empty", replyText(t, rpc(t, env.acme, "1.0", "SendMessage", msg10("checkout", in("c1")))))
}

func TestContextStateConcurrentChanges(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{{Name: "put", SetState: json.RawMessage(`{"last":"{{args.text}}"}`), Text: "ok"}})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rpc(t, env.acme, "1.0", "SendMessage", msg10(fmt.Sprintf("k%d", i), map[string]any{"contextId": "shared"}))
		}()
	}
	wg.Wait()
	a := env.agents["acme"]
	ls, err := env.st.A2AContextState(context.Background(), a.OrgID, a.ID, "shared")
	require.NoError(t, err)
	var got map[string]string
	require.NoError(t, json.Unmarshal(ls.State, &got))
	require.Regexp(t, `^k\d+$`, got["last"])
	require.EqualValues(t, 20, ls.Version, "every change applied, none lost")
	// Another organization reads none of it.
	o := env.agents["other"]
	ls, err = env.st.A2AContextState(context.Background(), a.OrgID, o.ID, "shared")
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(ls.State))
	ls, err = env.st.A2AContextState(context.Background(), o.OrgID, a.ID, "shared")
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(ls.State))
}
