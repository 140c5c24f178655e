package server

import (
	"context"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/reload"
)

// NewRuntime serves cfg, which sources (re-read on every reload)
// produced, with a Server that 'reload config' replaces by a new one
// (reload.Runtime). snaps must have loaded; opts apply to every Server
// built.
func NewRuntime(ctx context.Context, sources config.Sources, cfg *config.Config, pool *pgxpool.Pool, snaps *reload.Snapshots, log *slog.Logger, opts ...Option) (*reload.Runtime, error) {
	return reload.NewRuntime(ctx, sources, cfg, snaps, log, func(ctx context.Context, cfg *config.Config) (reload.Handler, error) {
		jwt, err := NewVerifier(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return New(cfg, pool, snaps, jwt, log, opts...), nil
	})
}

// Close stops what s runs in the background: the JWKS refresh, and the
// root documents' following of snapshot swaps. Requests in flight may
// still use s.
func (s *Server) Close() {
	s.jwt.Close()
	s.stopRootDocs()
}
