package service

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/localmode"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/store"
)

// SetOutput sets where local mode prints each server's endpoint and each
// broken design file (standard output unless set; the log goes to standard
// error). Call it before Run.
func (s *Service) SetOutput(w io.Writer) { s.out = w }

// startLocal runs local mode's first pass, when MOCKMCP_DESIGNS names a
// folder: it makes sure the local organization exists and applies every
// design file once, printing each server's endpoint. The watch it returns
// keeps the files applied until its context ends; nil when local mode is
// off.
func (s *Service) startLocal(ctx context.Context) (watch func(context.Context) error, err error) {
	if s.cfg.Designs == "" {
		return nil, nil
	}
	org, err := localmode.EnsureOrg(ctx, s.store)
	if err != nil {
		return nil, fmt.Errorf("local organization: %w", err)
	}
	base := endpointBase(s.cfg.BaseURL, s.Addr())
	apply := func(ctx context.Context, path string, doc []byte) (localmode.Result, error) {
		kind, err := designdoc.KindOf(doc, s.cfg.MaxBodyBytes)
		if err != nil {
			return localmode.Result{}, err
		}
		if kind == designdoc.KindAgent {
			res, err := s.applyAgent(ctx, org, doc)
			if err != nil {
				return localmode.Result{}, err
			}
			res.EndpointURL = base + a2aserve.EndpointPath(org.Slug, res.Name)
			return res, nil
		}
		res, err := s.applyDesign(ctx, org, doc)
		if err != nil {
			return localmode.Result{}, err
		}
		res.EndpointURL = base + mcpserve.EndpointPath(res.ServerID)
		return res, nil
	}
	l := localmode.New(s.cfg.Designs, apply, s.out, s.log)
	l.LimitFileSize(s.cfg.MaxBodyBytes)
	if err := l.Load(ctx); err != nil {
		return nil, err
	}
	return l.Watch, nil
}

// applyDesign applies one design document, read from path, to org in one
// transaction (designdoc.Apply), enabled unless the document says
// enabled: false, and says what it did; startLocal adds the endpoint. A
// failure changes nothing: the last good version keeps serving.
func (s *Service) applyDesign(ctx context.Context, org store.OrgRef, doc []byte) (localmode.Result, error) {
	plan, err := designdoc.Apply(ctx, s.store, org, doc, designdoc.ApplyOptions{CreatedBy: "local", EnableByDefault: true,
		MaxJSONBytes: s.cfg.MaxBodyBytes})
	if err != nil {
		return localmode.Result{}, err
	}
	return localmode.Result{ServerID: plan.Server.ID, Name: plan.Server.Name, Action: string(plan.Server.Action)}, nil
}

// applyAgent applies one agent card document to org in one transaction
// (designdoc.ApplyAgent), published unless the document says published:
// false, so that its mock A2A agent answers; startLocal adds the
// endpoint. A failure changes nothing.
func (s *Service) applyAgent(ctx context.Context, org store.OrgRef, doc []byte) (localmode.Result, error) {
	plan, err := designdoc.ApplyAgent(ctx, s.store, org, doc, designdoc.AgentApplyOptions{CreatedBy: "local",
		PublishByDefault: true, MaxJSONBytes: s.cfg.MaxBodyBytes})
	if err != nil {
		return localmode.Result{}, err
	}
	return localmode.Result{ServerID: plan.ID, Name: plan.Name, Action: string(plan.Action)}, nil
}

// endpointBase is what a served design's endpoint path is appended to:
// BASE_URL when set, else the address the instance listens on, with the
// loopback address for a wildcard host (":8080" listens on every
// interface; a client on the same machine reaches it at 127.0.0.1).
func endpointBase(baseURL, addr string) string {
	if baseURL != "" {
		return baseURL
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// BaseURL is what the service's paths are appended to for a client: the
// base of the endpoints local mode prints, of the /docs page; after Listen.
func (s *Service) BaseURL() string { return endpointBase(s.cfg.BaseURL, s.Addr()) }
