package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

func TestServerState(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	ada := env.Signup(t, "State Labs")
	eve := env.Signup(t, "State Rivals")

	t.Run("the live state starts as the design's initial state, is replaced and reset", func(t *testing.T) {
		ada := ada.For(t)
		id := ada.Do("POST", "/api/servers", map[string]any{"name": "Stateful", "state": map[string]any{"items": []any{}}}).
			Status(http.StatusCreated).String("id")
		path := "/api/servers/" + id + "/state"
		require.JSONEq(t, `{"items": []}`, string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw))

		put := ada.Do("PUT", path, map[string]any{"item": map[string]any{"id": "1"}, "count": 2}).Status(http.StatusOK)
		require.JSONEq(t, `{"item": {"id": "1"}, "count": 2}`, string(put.Raw))
		require.JSONEq(t, `{"item": {"id": "1"}, "count": 2}`, string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw))
		require.Equal(t, map[string]any{"items": []any{}}, ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK).Get("state"),
			"the design's initial state is unchanged")

		require.JSONEq(t, `{"items": []}`, string(ada.Do("DELETE", path, nil).Status(http.StatusOK).Raw))
		require.JSONEq(t, `{"items": []}`, string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw))
	})

	t.Run("a server made without a state has {}", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Stateless")
		require.Equal(t, map[string]any{}, ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK).Get("state"))
		require.JSONEq(t, `{}`, string(ada.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
		ada.Do("PATCH", "/api/servers/"+id, map[string]any{"state": map[string]any{"mode": "open"}}).Status(http.StatusOK)
		require.JSONEq(t, `{"mode": "open"}`, string(ada.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw),
			"a live state never changed follows the initial state")
		ada.Do("PUT", "/api/servers/"+id+"/state", map[string]any{"mode": "mine"}).Status(http.StatusOK)
		ada.Do("PATCH", "/api/servers/"+id, map[string]any{"state": map[string]any{"mode": "shut"}}).Status(http.StatusOK)
		require.JSONEq(t, `{"mode": "mine"}`, string(ada.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw),
			"a changed live state keeps its value")
		require.JSONEq(t, `{"mode": "shut"}`, string(ada.Do("DELETE", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
	})

	t.Run("what is not a state object within bounds is refused naming the field", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Bounded")
		path := "/api/servers/" + id + "/state"
		ada.Do("PUT", path, map[string]any{"keep": true}).Status(http.StatusOK)
		for _, body := range []any{[]any{1, 2}, "text", 3} {
			r := ada.Do("PUT", path, body)
			require.Containsf(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Code, "body %v: %s", body, r.Raw)
		}
		many := map[string]any{}
		for i := range 257 {
			many[fmt.Sprintf("k%d", i)] = i
		}
		ada.Do("PUT", path, many).Problem(http.StatusUnprocessableEntity)
		big := map[string]any{"blob": strings.Repeat("x", 65<<10)}
		ada.Do("PUT", path, big).Problem(http.StatusUnprocessableEntity, "state")
		require.JSONEq(t, `{"keep": true}`, string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw), "unchanged")

		ada.Do("POST", "/api/servers", map[string]any{"name": "Too big", "state": big}).Problem(http.StatusUnprocessableEntity, "state")
		ada.Do("PATCH", "/api/servers/"+id, map[string]any{"state": big}).Problem(http.StatusUnprocessableEntity, "state")
	})

	t.Run("another organization's server is not found", func(t *testing.T) {
		id := ada.For(t).Do("POST", "/api/servers", map[string]any{"name": "Not Eve's", "state": map[string]any{"secret": 1}}).
			Status(http.StatusCreated).String("id")
		path := "/api/servers/" + id + "/state"
		eve := eve.For(t)
		eve.Do("GET", path, nil).Problem(http.StatusNotFound)
		eve.Do("PUT", path, map[string]any{"hijacked": true}).Problem(http.StatusNotFound)
		eve.Do("DELETE", path, nil).Problem(http.StatusNotFound)
		require.JSONEq(t, `{"secret": 1}`, string(ada.For(t).Do("GET", path, nil).Status(http.StatusOK).Raw))
	})

	t.Run("scenarios' when_state and set_state are checked when saved", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "Checked")
		ada.Do("POST", "/api/servers/"+id+"/tools", map[string]any{"name": "t", "mock_scenarios": []any{
			map[string]any{"name": "bad", "when_state": map[string]any{"field": "x", "operator": "nope", "value": 1},
				"set_state": map[string]any{"blob": strings.Repeat("x", 65<<10)}, "response": map[string]any{}},
		}}).Problem(http.StatusUnprocessableEntity, "mock_scenarios[0].when_state.operator", "mock_scenarios[0].set_state")
	})
}
