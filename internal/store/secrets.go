package store

import (
	"context"
	"fmt"

	"github.com/mockmcp/mockmcp/gen/db"
)

// ServiceSecret returns the shared secret called name, storing fresh as it
// when there is none yet: every instance gets the secret of the first.
func (s *Store) ServiceSecret(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if err := s.q.InsertServiceSecret(ctx, s.pool, db.InsertServiceSecretParams{Name: name, Secret: fresh}); err != nil {
		return nil, fmt.Errorf("store the %s secret: %w", name, err)
	}
	secret, err := s.q.GetServiceSecret(ctx, s.pool, name)
	if err != nil {
		return nil, fmt.Errorf("read the %s secret: %w", name, err)
	}
	return secret, nil
}
