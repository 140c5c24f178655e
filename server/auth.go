package server

import (
	"context"
	"net/http"

	"github.com/svc-dev/svc/server/auth"
	"github.com/svc-dev/svc/server/config"
)

// NewVerifier builds the JWT verifier cfg describes, or nil when no key is
// configured (a request with a token then fails with SVC300).
func NewVerifier(ctx context.Context, cfg *config.Config) (*auth.Verifier, error) {
	return auth.New(ctx, verifierOptions(cfg))
}

// CheckJWTConfig reports what NewVerifier would refuse in cfg, without
// fetching a JWKS: start-up reports a mistyped key before connecting.
func CheckJWTConfig(cfg *config.Config) error { return auth.Check(verifierOptions(cfg)) }

func verifierOptions(cfg *config.Config) auth.Options {
	return auth.Options{
		Secret:          cfg.JWTSecret,
		SecretIsBase64:  cfg.JWTSecretIsBase64,
		Audience:        cfg.JWTAud,
		RoleClaimKey:    cfg.JWTRoleClaimKey,
		JWKSURL:         cfg.JWTJWKSURL,
		CacheMaxEntries: cfg.JWTCacheMaxEntries,
		CacheMaxBytes:   cfg.JWTCacheMaxBytes,
	}
}

// authenticate is the pipeline's authentication: the identity the bearer
// token in r verifies to, or none for a request without one. Verify on a
// nil verifier (no key configured) answers SVC300.
func (s *Server) authenticate(r *http.Request) (auth.Identity, error) {
	token, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		return auth.Identity{}, nil
	}
	return s.jwt.Verify(token)
}
