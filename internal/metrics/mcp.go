package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// The endpoint labels of mockmcp_mcp_messages_total.
const (
	EndpointServer   = "server"   // the per-server endpoint
	EndpointPlatform = "platform" // the service endpoint
)

// Notifications are the client notifications counted by name; the
// endpoints accept any notification, and the others count as "other".
var Notifications = []string{"notifications/initialized", "notifications/cancelled", "notifications/progress",
	"notifications/roots/list_changed"}

// The outcomes of a message; an error's is error:CODE for the codes in
// errorCodes, else error:other.
const (
	outcomeResult = iota
	outcomeIsError
	outcomeNotification
	outcomeRateLimited
	outcomeOtherError
	outcomeCodes // the first of errorCodes
)

var outcomeNames = []string{"result", "is_error", "notification", "rate_limited", "error:other"}

// errorCodes are the error codes the endpoints answer with on their own;
// a design's scripted errors with other codes count as error:other.
var errorCodes = []int64{jsonrpc.ErrParse.Code, jsonrpc.ErrInvalidRequest.Code, jsonrpc.ErrMethodNotFound.Code,
	jsonrpc.ErrInvalidParams.Code, jsonrpc.ErrInternal.Code, jsonrpc.ErrUnauthorized.Code, jsonrpc.ErrResourceNotFound.Code,
	jsonrpc.ErrHeaderMismatch.Code, jsonrpc.ErrMissingClientCapability.Code, jsonrpc.ErrUnsupportedVersion.Code}

// messageCounters are one endpoint's counters, by method and outcome,
// resolved when the endpoint is set up.
type messageCounters struct {
	index map[string]int // method name to row; absent: the last row, "other"
	rows  [][]prometheus.Counter
}

func (m *Metrics) messageCounters(endpoint string, names []string) *messageCounters {
	mc := &messageCounters{index: map[string]int{}}
	names = append(append(names[:len(names):len(names)], Notifications...), "other")
	for _, name := range names {
		if _, dup := mc.index[name]; dup {
			continue
		}
		mc.index[name] = len(mc.rows)
		row := make([]prometheus.Counter, outcomeCodes+len(errorCodes))
		for o := range row {
			row[o] = m.messages.WithLabelValues(endpoint, name, outcomeName(o))
		}
		mc.rows = append(mc.rows, row)
	}
	return mc
}

func outcomeName(o int) string {
	if o < outcomeCodes {
		return outcomeNames[o]
	}
	return "error:" + strconv.FormatInt(errorCodes[o-outcomeCodes], 10)
}

func (mc *messageCounters) row(method string) []prometheus.Counter {
	if i, ok := mc.index[method]; ok {
		return mc.rows[i]
	}
	return mc.rows[mc.index["other"]]
}

// Observer counts the messages an endpoint answers, by method (methods are
// the endpoint's method names, to which Notifications are added; any other
// counts as "other") and outcome, and the messages of bodies refused whole
// by the rate limit (as "other", rate_limited). Every counter is resolved
// here: a message costs one map lookup and one increment, and no
// allocation unless it is answered with an error.
func (m *Metrics) Observer(endpoint string, methods []string) mcptransport.Observer {
	if m == nil {
		return mcptransport.Observer{}
	}
	mc := m.messageCounters(endpoint, methods)
	refused := mc.row("other")[outcomeRateLimited]
	return mcptransport.Observer{Middleware: mc.middleware, RateLimited: func(n int) { refused.Add(float64(n)) }}
}

func (mc *messageCounters) middleware(next mcptransport.MessageHandler) mcptransport.MessageHandler {
	return func(ctx context.Context, x *mcptransport.Exchange, t mcptransport.Target, req *jsonrpc.Request) (json.RawMessage, error) {
		result, err := next(ctx, x, t, req)
		mc.row(req.Method)[outcome(req, result, err)].Inc()
		return result, err
	}
}

// isErrorMember is how a tool's failure shows in its result.
var isErrorMember = []byte(`"isError":true`)

func outcome(req *jsonrpc.Request, result json.RawMessage, err error) int {
	if err == nil {
		switch {
		case req.IsNotification():
			return outcomeNotification
		case bytes.Contains(result, isErrorMember) && topLevelIsError(result):
			return outcomeIsError
		}
		return outcomeResult
	}
	var wire *jsonrpc.Error
	var scripted *jsonrpc.Scripted
	var code int64
	switch {
	case errors.As(err, &wire):
		code = wire.Code
		if code == jsonrpc.ErrRateLimited.Code {
			return outcomeRateLimited
		}
	case errors.As(err, &scripted):
		code = scripted.Code
	default:
		code = jsonrpc.ErrInternal.Code // what the caller is answered
	}
	for i, c := range errorCodes {
		if c == code {
			return outcomeCodes + i
		}
	}
	return outcomeOtherError
}

// topLevelIsError reports whether result's own isError member is true, not
// one inside its content.
func topLevelIsError(result []byte) bool {
	is := false
	jsonrpc.Members(result, func(key, value []byte) bool {
		if jsonrpc.KeyIs(key, "isError") {
			is = bytes.Equal(value, []byte("true"))
			return false
		}
		return true
	})
	return is
}
