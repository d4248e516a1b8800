package httpapi

import (
	"context"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/readiness"
)

// probeRoutes are the probes' routes: their successful answers are logged
// at debug level only, since load balancers and orchestrators call them
// every few seconds on every instance; readiness.Checker logs each change
// of readiness instead.
var probeRoutes = map[string]bool{"/healthz": true, "/readyz": true}

// GetLiveness answers while the process serves, whatever its dependencies
// do: a failed liveness probe restarts the process, which would not bring a
// database back.
func (s *Server) GetLiveness(context.Context, api.GetLivenessRequestObject) (api.GetLivenessResponseObject, error) {
	return api.GetLiveness200JSONResponse{Status: api.LivenessStatusOk}, nil
}

// GetReadiness answers whether this instance can serve: database,
// migrations and change listeners, each with its reason when it fails.
func (s *Server) GetReadiness(ctx context.Context, _ api.GetReadinessRequestObject) (api.GetReadinessResponseObject, error) {
	r := s.ready.Check(ctx)
	checks := api.ReadinessChecks{Database: outcome(r, "database"), Migrations: outcome(r, "migrations"),
		Listener: outcome(r, "listener")}
	if !r.Ready {
		return api.GetReadiness503JSONResponse{Status: api.ReadinessStatusUnavailable, Checks: checks}, nil
	}
	return api.GetReadiness200JSONResponse{Status: api.ReadinessStatusOk, Checks: checks}, nil
}

// outcome is the outcome of check name in r.
func outcome(r readiness.Report, name string) string {
	if o, ok := r.Checks[name]; ok {
		return o
	}
	return "not checked"
}
