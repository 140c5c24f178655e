package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/apierr"
)

// testNow is the fixed clock of most tests.
var testNow = time.Unix(1_700_000_000, 0)

func fixedClock() time.Time { return testNow }

// signer is a key able to sign tokens for one algorithm.
type signer struct {
	alg     string
	method  jwt.SigningMethod
	private any // what the method signs with
	public  any // what a JWK publishes
}

// algorithms lists every supported algorithm in a stable order.
var algorithms = []string{"HS256", "HS384", "HS512", "RS256", "RS384", "RS512",
	"PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// signers generates the test keys once per test binary: RSA generation
// dominates the package's test time otherwise.
var signers = sync.OnceValue(func() map[string]signer {
	rsaKey := must(rsa.GenerateKey(rand.Reader, 2048))
	ec := map[string]*ecdsa.PrivateKey{
		"ES256": must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader)),
		"ES384": must(ecdsa.GenerateKey(elliptic.P384(), rand.Reader)),
		"ES512": must(ecdsa.GenerateKey(elliptic.P521(), rand.Reader)),
	}
	edPublic, edPrivate := must2(ed25519.GenerateKey(rand.Reader))
	out := map[string]signer{}
	for _, alg := range algorithms {
		s := signer{alg: alg, method: jwt.GetSigningMethod(alg)}
		switch alg[:2] {
		case "HS":
			secret := randomBytes(64)
			s.private, s.public = secret, secret
		case "RS", "PS":
			s.private, s.public = rsaKey, &rsaKey.PublicKey
		case "ES":
			s.private, s.public = ec[alg], &ec[alg].PublicKey
		default:
			s.private, s.public = edPrivate, edPublic
		}
		out[alg] = s
	}
	return out
})

// otherRSA is an RSA key no verifier is configured with.
var otherRSA = sync.OnceValue(func() *rsa.PrivateKey { return must(rsa.GenerateKey(rand.Reader, 2048)) })

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// jwk renders a signer's public key (the secret, for HS) as a JWK. kid
// and alg are omitted when "".
func jwk(t testing.TB, public any, kid, alg string) jwkset.JWKMarshal {
	t.Helper()
	_, symmetric := public.([]byte)
	j, err := jwkset.NewJWKFromKey(public, jwkset.JWKOptions{
		Marshal:  jwkset.JWKMarshalOptions{Private: symmetric},
		Metadata: jwkset.JWKMetadataOptions{KID: kid, ALG: jwkset.ALG(alg)},
	})
	if err != nil {
		t.Fatalf("jwk: %v", err)
	}
	return j.Marshal()
}

func jsonText(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sign makes a token; header entries are added to (or, as nil, removed
// from) the typ/alg header golang-jwt writes.
func sign(t testing.TB, s signer, header map[string]any, claims map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(s.method, jwt.MapClaims(claims))
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	out, err := tok.SignedString(s.private)
	if err != nil {
		t.Fatalf("sign %s: %v", s.alg, err)
	}
	return out
}

// signRaw signs arbitrary header and payload texts, for tokens golang-jwt
// would not produce.
func signRaw(t testing.TB, method jwt.SigningMethod, key any, header, payload string) string {
	t.Helper()
	input := b64(header) + "." + b64(payload)
	sig, err := method.Sign(input, key)
	if err != nil {
		t.Fatalf("signRaw: %v", err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// newVerifier builds a verifier or fails the test; it is closed at the end.
func newVerifier(t testing.TB, o Options) *Verifier {
	t.Helper()
	if o.Now == nil {
		o.Now = fixedClock
	}
	v, err := New(context.Background(), o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if v == nil {
		t.Fatal("New returned no verifier")
	}
	t.Cleanup(v.Close)
	return v
}

// hsSecret is a plain jwt-secret for tests that need any HS verifier.
const hsSecret = "a-test-secret-that-is-long-enough-0123456789"

var hsSigner = signer{alg: "HS256", method: jwt.SigningMethodHS256, private: []byte(hsSecret)}

// wantRejection checks everything a refused token's error carries.
func wantRejection(t *testing.T, err error, message string, details any) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want an *apierr.Error %q", err, err, message)
	}
	if e.Status != 401 || e.Code != "SVC301" || e.Message != message || !reflect.DeepEqual(e.Details, details) {
		t.Errorf("got %d %s %q details %#v, want 401 SVC301 %q details %#v", e.Status, e.Code, e.Message, e.Details,
			message, details)
	}
	want := `Bearer error="invalid_token", error_description="` + message + `"`
	if got := e.Headers["WWW-Authenticate"]; got != want {
		t.Errorf("WWW-Authenticate = %s, want %s", got, want)
	}
}
