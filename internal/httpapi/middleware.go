package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/logline"
)

type (
	requestIDKey struct{}
	originKey    struct{}
	acceptKey    struct{}
)

// requestOrigin is the scheme and host the caller used to reach us.
func requestOrigin(ctx context.Context) string {
	o, _ := ctx.Value(originKey{}).(string)
	return o
}

// requestAccept is the Accept header of the request, for the few
// operations that answer in more than one media type.
func requestAccept(ctx context.Context) string {
	a, _ := ctx.Value(acceptKey{}).(string)
	return a
}

// requestID returns the id of the request ctx belongs to.
func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// withRequestID takes the caller's X-Request-Id when it is sane, makes one
// otherwise, echoes it in the response and puts it in the context for logs.
func withRequestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		id := req.Header.Get(echo.HeaderXRequestID)
		if !saneRequestID(id) {
			var b [12]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		c.Response().Header().Set(echo.HeaderXRequestID, id)
		ctx := context.WithValue(req.Context(), requestIDKey{}, id)
		ctx = context.WithValue(ctx, originKey{}, clientip.Origin(req))
		ctx = context.WithValue(ctx, acceptKey{}, req.Header.Get("Accept"))
		c.SetRequest(req.WithContext(ctx))
		return next(c)
	}
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// accessLog logs one line per request: never a body, a cookie or a key.
func accessLog(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			req := c.Request()
			level := slog.LevelInfo
			if probeRoutes[c.Path()] {
				level = slog.LevelDebug
			}
			if !log.Enabled(req.Context(), level) {
				return nil
			}
			status := c.Response().Status
			attrs := []slog.Attr{
				slog.String("request_id", requestID(req.Context())),
				slog.String("method", req.Method),
				slog.String("route", c.Path()),
				slog.Int("status", status),
				slog.Int64("bytes", c.Response().Size),
				slog.Float64("duration_ms", logline.Milliseconds(time.Since(start))),
			}
			if status == http.StatusNotFound {
				// Which path was not found; the route says too little. Never
				// the query string, which may carry a credential.
				attrs = append(attrs, slog.String("path", loggedPath(req.URL.EscapedPath())))
			}
			log.LogAttrs(req.Context(), level, "request", attrs...)
			return nil
		}
	}
}

// maxLoggedPath bounds the path a request line carries.
const maxLoggedPath = 512

// loggedPath is p cut to maxLoggedPath bytes.
func loggedPath(p string) string {
	if len(p) > maxLoggedPath {
		return p[:maxLoggedPath] + "…"
	}
	return p
}

// recoverPanics turns a panic into a 500 and logs its stack, which never
// reaches the caller.
func recoverPanics(log *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					if r == http.ErrAbortHandler {
						panic(r)
					}
					log.ErrorContext(c.Request().Context(), "panic", "request_id", requestID(c.Request().Context()),
						"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// limitBody reads the whole body up front, at most limit bytes, answering 413
// past that; handlers and the validator then read it from memory.
func limitBody(limit int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			if req.ContentLength > limit {
				return failure.TooLarge(limit)
			}
			body, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
			_ = req.Body.Close()
			if err != nil {
				return failure.BadRequest("the request body could not be read")
			}
			if int64(len(body)) > limit {
				return failure.TooLarge(limit)
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			return next(c)
		}
	}
}
