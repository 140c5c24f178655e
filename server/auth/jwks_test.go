package auth

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// jwksServer is a JWKS endpoint on 127.0.0.1 whose set the test replaces.
type jwksServer struct {
	*httptest.Server
	body    atomic.Pointer[string] // nil answers 503
	fetches atomic.Int64
}

func newJWKSServer(t *testing.T) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.fetches.Add(1)
		body := s.body.Load()
		if body == nil {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(*body))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) serve(t *testing.T, keys ...jwkset.JWKMarshal) {
	body := jsonText(t, jwkset.JWKSMarshal{Keys: keys})
	s.body.Store(&body)
}

func (s *jwksServer) options(entries int) Options {
	return Options{JWKSURL: s.URL + "/.well-known/jwks.json", HTTPClient: s.Client(), CacheMaxEntries: entries, CacheMaxBytes: 16 << 20}
}

// TestCheckFetchesNothing: Check validates a JWKS configuration without
// asking the endpoint, which the server's Verifier then fetches once.
func TestCheckFetchesNothing(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	t.Cleanup(srv.Close)
	if err := Check(Options{JWKSURL: srv.URL + "/jwks.json", RoleClaimKey: ".role"}); err != nil {
		t.Fatalf("Check = %v", err)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("Check asked the JWKS endpoint %d times", n)
	}
}

func TestJWKSRotation(t *testing.T) {
	t.Parallel()
	a := signers()["RS256"]
	b := signer{alg: "RS256", method: jwt.SigningMethodRS256, private: otherRSA(), public: &otherRSA().PublicKey}
	srv := newJWKSServer(t)
	srv.serve(t, jwk(t, a.public, "a", "RS256"))
	uncached := newVerifier(t, srv.options(0))
	cached := newVerifier(t, srv.options(10))
	claims := map[string]any{"role": "r", "exp": testNow.Unix() + 600}
	tokenA := sign(t, a, map[string]any{"kid": "a"}, claims)
	tokenB := sign(t, b, map[string]any{"kid": "b"}, claims)
	for name, v := range map[string]*Verifier{"uncached": uncached, "cached": cached} {
		if _, err := v.Verify(tokenA); err != nil {
			t.Fatalf("%s, before rotation: %v", name, err)
		}
	}
	// Not probing tokenB here is deliberate: an unknown kid spends keyfunc's
	// one refresh per five minutes (see TestJWKSUnknownKIDsRateLimited).
	before := srv.fetches.Load()
	srv.serve(t, jwk(t, b.public, "b", "RS256")) // rotate: a is withdrawn, b published
	for name, v := range map[string]*Verifier{"uncached": uncached, "cached": cached} {
		if _, err := v.Verify(tokenB); err != nil {
			t.Fatalf("%s: token of the new key refused: %v", name, err)
		}
	}
	if srv.fetches.Load() == before {
		t.Error("the unknown kid fetched nothing")
	}
	_, err := uncached.Verify(tokenA)
	wantRejection(t, err, msgNoKey, nil)
	if _, err := cached.Verify(tokenA); err != nil {
		t.Errorf("a cached token is trusted until its entry ends: %v", err)
	}
	// Without kid, the current set is tried as it is.
	if _, err := uncached.Verify(sign(t, b, nil, claims)); err != nil {
		t.Errorf("no kid after rotation: %v", err)
	}
}

// TestJWKSUnknownKIDsRateLimited: made-up kids cost the endpoint one fetch,
// not one each, and the requests carrying them do not wait.
func TestJWKSUnknownKIDsRateLimited(t *testing.T) {
	t.Parallel()
	s := signers()["ES256"]
	srv := newJWKSServer(t)
	srv.serve(t, jwk(t, s.public, "ec", ""))
	v := newVerifier(t, srv.options(0))
	start := time.Now()
	for i := range 20 {
		_, err := v.Verify(sign(t, s, map[string]any{"kid": fmt.Sprint("made-up-", i)}, map[string]any{}))
		wantRejection(t, err, msgNoKey, nil)
	}
	if n := srv.fetches.Load(); n != 2 {
		t.Errorf("%d fetches, want 2: the first at start, one for the first unknown kid", n)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("20 unknown kids took %v: requests waited for the limiter", d)
	}
}

func TestJWKSDownAtStart(t *testing.T) {
	t.Parallel()
	srv := newJWKSServer(t) // answers 503 until served
	v := newVerifier(t, srv.options(0))
	s := signers()["ES256"]
	token := sign(t, s, map[string]any{"kid": "ec"}, map[string]any{})
	srv.serve(t, jwk(t, s.public, "ec", ""))
	if _, err := v.Verify(token); err != nil {
		t.Fatalf("the unknown kid should fetch the set now that it is up: %v", err)
	}
	v.Close()
	if _, err := v.Verify(token); err != nil {
		t.Errorf("after Close the last keys fetched still verify: %v", err)
	}
}

// TestJWKSConfusion: with an endpoint every algorithm passes the parser,
// so only the key types stand between an HS token and the RSA key.
func TestJWKSConfusion(t *testing.T) {
	t.Parallel()
	pub := signers()["RS256"].public.(*rsa.PublicKey)
	srv := newJWKSServer(t)
	srv.serve(t, jwk(t, pub, "rsa", ""))
	v := newVerifier(t, srv.options(0))
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string][]byte{
		"PEM": pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), "DER": pkix,
	} {
		forger := signer{alg: "HS256", method: jwt.SigningMethodHS256, private: secret}
		for _, header := range []map[string]any{{"kid": "rsa"}, nil} {
			_, err := v.Verify(sign(t, forger, header, map[string]any{"role": "admin"}))
			if err == nil {
				t.Fatalf("%s, header %v: forged HS256 token accepted", name, header)
			}
			wantRejection(t, err, msgNoKey, nil)
		}
	}
}
