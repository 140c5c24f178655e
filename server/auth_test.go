package server_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// signingKey is a key a test signs tokens with and the server verifies
// them with, published under kid.
type signingKey struct {
	method  jwt.SigningMethod
	kid     string
	private any // what the method signs with
	public  any // what goes into the JWK Set
}

// testKeys makes a fresh key for every algorithm SVC accepts.
func testKeys(t *testing.T) []signingKey {
	t.Helper()
	rsaKey := func() *rsa.PrivateKey {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ecKey := func(c elliptic.Curve) *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	var keys []signingKey
	for _, m := range []jwt.SigningMethod{jwt.SigningMethodHS256, jwt.SigningMethodHS384, jwt.SigningMethodHS512} {
		secret := make([]byte, 64)
		rand.Read(secret)
		keys = append(keys, signingKey{m, "k-" + m.Alg(), secret, secret})
	}
	for _, m := range []jwt.SigningMethod{jwt.SigningMethodRS256, jwt.SigningMethodRS384, jwt.SigningMethodRS512,
		jwt.SigningMethodPS256, jwt.SigningMethodPS384, jwt.SigningMethodPS512} {
		k := rsaKey()
		keys = append(keys, signingKey{m, "k-" + m.Alg(), k, &k.PublicKey})
	}
	for _, c := range []struct {
		m     jwt.SigningMethod
		curve elliptic.Curve
	}{{jwt.SigningMethodES256, elliptic.P256()}, {jwt.SigningMethodES384, elliptic.P384()}, {jwt.SigningMethodES512, elliptic.P521()}} {
		k := ecKey(c.curve)
		keys = append(keys, signingKey{c.m, "k-" + c.m.Alg(), k, &k.PublicKey})
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, signingKey{jwt.SigningMethodEdDSA, "k-EdDSA", priv, pub})
	return keys
}

// jwkSet renders the keys' public halves (and the HMAC secrets) as a JWK
// Set, each with its kid and alg.
func jwkSet(t *testing.T, keys ...signingKey) string {
	t.Helper()
	var set struct {
		Keys []jwkset.JWKMarshal `json:"keys"`
	}
	for _, k := range keys {
		_, symmetric := k.public.([]byte)
		jwk, err := jwkset.NewJWKFromKey(k.public, jwkset.JWKOptions{
			Marshal:  jwkset.JWKMarshalOptions{Private: symmetric},
			Metadata: jwkset.JWKMetadataOptions{KID: k.kid, ALG: jwkset.ALG(k.method.Alg())},
		})
		if err != nil {
			t.Fatalf("%s: %v", k.kid, err)
		}
		set.Keys = append(set.Keys, jwk.Marshal())
	}
	out, err := json.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// sign makes a token with claims, naming k's kid in its header.
func sign(t *testing.T, k signingKey, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(k.method, claims)
	tok.Header["kid"] = k.kid
	s, err := tok.SignedString(k.private)
	if err != nil {
		t.Fatalf("sign %s: %v", k.kid, err)
	}
	return s
}

// whoami calls /rpc/whoami with token and returns the status and body.
func whoami(t *testing.T, baseURL, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, baseURL+"/rpc/whoami", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestJWTAlgorithms verifies a token per algorithm through one JWK Set
// configured as jwt-secret, and refuses an HS256 token forged with the RSA
// public key as its secret (algorithm confusion).
func TestJWTAlgorithms(t *testing.T) {
	keys := testKeys(t)
	url := serverWith(t, map[string]string{"jwt-secret": jwkSet(t, keys...)})
	for _, k := range keys {
		t.Run(k.method.Alg(), func(t *testing.T) {
			status, body := whoami(t, url, sign(t, k, jwt.MapClaims{"role": "web_user"}))
			if status != 200 || body != `"web_user"` {
				t.Errorf("got %d %s, want 200 \"web_user\"", status, body)
			}
		})
	}
	t.Run("confusion", func(t *testing.T) {
		var rsaKey signingKey
		for _, k := range keys {
			if k.method == jwt.SigningMethodRS256 {
				rsaKey = k
			}
		}
		der, err := x509.MarshalPKIXPublicKey(rsaKey.public)
		if err != nil {
			t.Fatal(err)
		}
		pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
		for name, secret := range map[string][]byte{"pem": pemBytes, "der": der} {
			forged := sign(t, signingKey{jwt.SigningMethodHS256, rsaKey.kid, secret, nil}, jwt.MapClaims{"role": "web_user"})
			if status, body := whoami(t, url, forged); status != 401 || !strings.Contains(body, `"SVC301"`) {
				t.Errorf("%s: got %d %s, want 401 SVC301", name, status, body)
			}
		}
	})
	t.Run("unknown kid", func(t *testing.T) {
		stranger := testKeys(t)[3] // a fresh RS256 key under a published kid
		if status, body := whoami(t, url, sign(t, stranger, jwt.MapClaims{"role": "web_user"})); status != 401 {
			t.Errorf("got %d %s, want 401", status, body)
		}
	})
}

// TestJWKSRotation serves the keys from a JWKS endpoint the test controls:
// after the signing key rotates, tokens signed with the new key verify
// without a restart and tokens signed with the retired one are refused.
func TestJWKSRotation(t *testing.T) {
	keys := testKeys(t)
	var oldKey, newKey signingKey
	for _, k := range keys {
		switch k.method {
		case jwt.SigningMethodRS256:
			oldKey = k
		case jwt.SigningMethodES256:
			newKey = k
		}
	}
	var published atomic.Value
	published.Store(jwkSet(t, oldKey))
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, published.Load().(string))
	}))
	defer jwks.Close()
	url := serverWith(t, map[string]string{"jwt-jwks-url": jwks.URL, "jwt-cache-max-entries": "0"})

	oldToken := sign(t, oldKey, jwt.MapClaims{"role": "web_user"})
	if status, body := whoami(t, url, oldToken); status != 200 || body != `"web_user"` {
		t.Fatalf("before rotation: got %d %s", status, body)
	}
	published.Store(jwkSet(t, newKey))
	if status, body := whoami(t, url, sign(t, newKey, jwt.MapClaims{"role": "web_user"})); status != 200 || body != `"web_user"` {
		t.Errorf("new key after rotation: got %d %s, want 200", status, body)
	}
	if status, body := whoami(t, url, oldToken); status != 401 {
		t.Errorf("retired key after rotation: got %d %s, want 401", status, body)
	}
}
