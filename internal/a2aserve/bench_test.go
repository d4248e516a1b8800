package a2aserve_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mockmcp/mockmcp/internal/agentcard"
)

// BenchmarkScriptedSendMessage: a SendMessage answered by a scripted text
// reply, over HTTP (the card look-up is in memory here).
func BenchmarkScriptedSendMessage(b *testing.B) {
	url := scriptedAgent(b, []agentcard.Reply{
		{Name: "city", Condition: json.RawMessage(`{"data.city":"Rome"}`), Text: "Rome is booked for {{args.data.nights}} nights."},
	})
	body := `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","contextId":"c","role":"ROLE_USER","parts":[{"text":"book hotel"},{"data":{"city":"Rome","nights":3}}]}}}`
	client := &http.Client{}
	b.ResetTimer()
	for range b.N {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("A2A-Version", "1.0")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
