package httpapi

import (
	"maps"
	"slices"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
)

// newUpstream is the upstream a create body names, its header values
// sealed; nil when it names none.
func (s *Server) newUpstream(b *api.Upstream) (*design.Upstream, error) {
	if b == nil {
		return nil, nil
	}
	return s.editUpstream(&design.Upstream{URL: b.Url, Mode: design.UpstreamFallback}, b.Mode, b.Headers)
}

// patchUpstream applies a PATCH body's upstream to cur: absent keeps it,
// null removes it; url and mode replace theirs, headers (when given)
// replace every stored header.
func (s *Server) patchUpstream(cur *design.Upstream, p nullable.Nullable[api.UpstreamPatch]) (*design.Upstream, error) {
	if !p.IsSpecified() {
		return cur, nil
	}
	if p.IsNull() {
		return nil, nil
	}
	b := p.MustGet()
	u := &design.Upstream{Mode: design.UpstreamFallback}
	if cur != nil {
		c := *cur
		u = &c
	}
	if b.Url != nil {
		u.URL = *b.Url
	}
	return s.editUpstream(u, b.Mode, b.Headers)
}

// editUpstream gives u the mode and headers of a request body, each when
// given (headers replace every stored header), and returns it.
func (s *Server) editUpstream(u *design.Upstream, mode *api.UpstreamMode, headers *map[string]string) (*design.Upstream, error) {
	if mode != nil {
		u.Mode = string(*mode)
	}
	if headers != nil {
		if err := s.setUpstreamHeaders(u, *headers); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// setUpstreamHeaders checks headers and stores their names in clear and
// their values sealed.
func (s *Server) setUpstreamHeaders(u *design.Upstream, headers map[string]string) error {
	if err := design.CheckUpstreamHeaders("upstream.headers", headers); err != nil {
		return err
	}
	sealed, err := s.upstreamKey.Seal(headers)
	if err != nil {
		return err
	}
	u.HeaderNames, u.SealedHeaders = slices.Sorted(maps.Keys(headers)), sealed
	if u.HeaderNames == nil {
		u.HeaderNames = []string{}
	}
	return nil
}
