package auth

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"github.com/svc-dev/svc/server/apierr"
)

func TestEveryAlgorithm(t *testing.T) {
	t.Parallel()
	keys := signers()
	// One set with every key, by kid and without "alg": the kid picks the key.
	var set jwkset.JWKSMarshal
	for _, alg := range algorithms {
		set.Keys = append(set.Keys, jwk(t, keys[alg].public, "kid-"+alg, ""))
	}
	setVerifier := newVerifier(t, Options{Secret: jsonText(t, set)})
	claims := map[string]any{"role": "web_user", "exp": testNow.Unix() + 60}
	for _, alg := range algorithms {
		t.Run(alg, func(t *testing.T) {
			t.Parallel()
			s := keys[alg]
			verifiers := map[string]*Verifier{
				"JWK":         newVerifier(t, Options{Secret: jsonText(t, jwk(t, s.public, "only", alg))}),
				"JWK Set":     setVerifier,
				"JWK Set/kid": setVerifier,
			}
			for name, v := range verifiers {
				header := map[string]any{}
				if name == "JWK Set/kid" {
					header["kid"] = "kid-" + alg
				}
				id, err := v.Verify(sign(t, s, header, claims))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if id.Role != "web_user" || !id.Expires.Equal(time.Unix(testNow.Unix()+60, 0)) {
					t.Errorf("%s: identity %+v", name, id)
				}
			}
		})
	}
}

func TestSharedSecretForms(t *testing.T) {
	t.Parallel()
	secret := randomBytes(40)
	forms := []struct {
		name     string
		text     string
		isBase64 bool
	}{
		{"plain", hsSecret, false},
		{"base64 std padded", base64.StdEncoding.EncodeToString(secret), true},
		{"base64 std unpadded", base64.RawStdEncoding.EncodeToString(secret), true},
		{"base64 url padded", base64.URLEncoding.EncodeToString(secret), true},
		{"base64 url unpadded with newline", base64.RawURLEncoding.EncodeToString(secret) + "\n", true},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			key := []byte(f.text)
			if f.isBase64 {
				key = secret
			}
			v := newVerifier(t, Options{Secret: f.text, SecretIsBase64: f.isBase64})
			for _, alg := range []string{"HS256", "HS384", "HS512"} {
				s := signer{alg: alg, method: jwt.GetSigningMethod(alg), private: key}
				if _, err := v.Verify(sign(t, s, nil, map[string]any{"role": "r"})); err != nil {
					t.Errorf("%s: %v", alg, err)
				}
			}
		})
	}
}

func TestBase64JWK(t *testing.T) {
	t.Parallel()
	s := signers()["ES256"]
	text := base64.StdEncoding.EncodeToString([]byte(jsonText(t, jwk(t, s.public, "", ""))))
	v := newVerifier(t, Options{Secret: text, SecretIsBase64: true})
	if _, err := v.Verify(sign(t, s, nil, map[string]any{})); err != nil {
		t.Fatal(err)
	}
}

func TestIdentity(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, Options{Secret: hsSecret})
	payload := `{"role":"author","exp":1700000100.5,"app":{"x":[1,2]}}`
	id, err := v.Verify(signRaw(t, jwt.SigningMethodHS256, []byte(hsSecret), `{"alg":"HS256"}`, payload))
	if err != nil {
		t.Fatal(err)
	}
	if id.Role != "author" || string(id.Claims) != payload || !id.Expires.Equal(time.Unix(1700000100, 5e8)) {
		t.Errorf("identity = %q %s %v", id.Role, id.Claims, id.Expires)
	}
	id, err = v.Verify(sign(t, hsSigner, nil, map[string]any{"sub": "x"}))
	if err != nil || id.Role != "" || !id.Expires.IsZero() || string(id.Claims) != `{"sub":"x"}` {
		t.Errorf("no role, no exp: %+v %v", id, err)
	}
}

func TestRejections(t *testing.T) {
	t.Parallel()
	keys := signers()
	hs := func(payload string) string {
		return signRaw(t, jwt.SigningMethodHS256, []byte(hsSecret), `{"alg":"HS256","typ":"JWT"}`, payload)
	}
	claims := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	now := testNow.Unix()
	rsaOnly := Options{Secret: jsonText(t, jwk(t, keys["RS256"].public, "rsa", "RS256"))}
	set := Options{Secret: jsonText(t, jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{
		jwk(t, keys["RS256"].public, "rsa", ""), jwk(t, keys["ES256"].public, "ec", "")}})}
	cases := []struct {
		name    string
		opts    Options // zero: the plain hsSecret
		token   string
		message string
		details any
	}{
		{"empty", Options{}, "", msgEmpty, nil},
		{"one part", Options{}, "abc", "Expected 3 parts in JWT; got 1", nil},
		{"two parts", Options{}, "a.b", "Expected 3 parts in JWT; got 2", nil},
		{"four parts", Options{}, "a.b.c.d", "Expected 3 parts in JWT; got 4", nil},
		{"header not base64", Options{}, "!!!." + b64(`{}`) + ".sig", msgUndecodable, nil},
		{"header not JSON", Options{}, b64("nope") + "." + b64(`{}`) + ".sig", msgUndecodable, nil},
		{"payload not base64", Options{}, b64(`{"alg":"HS256"}`) + ".***.sig", msgUndecodable, nil},
		{"payload not JSON", Options{}, hs(`{"role":`), msgUndecodable, nil},
		{"payload an array", Options{}, hs(`["role"]`), msgUndecodable, nil},
		{"payload null", Options{}, hs(`null`), msgUndecodable, nil},
		{"payload a string", Options{}, hs(`"role"`), msgUndecodable, nil},
		{"signature not base64", Options{}, b64(`{"alg":"HS256"}`) + "." + b64(`{}`) + ".!!", msgUndecodable, nil},
		{"alg none", Options{}, b64(`{"alg":"none"}`) + "." + b64(`{"role":"admin"}`) + ".", msgAlgorithm, "none"},
		{"alg none, HS signature", Options{}, func() string {
			tok := hs(`{"role":"admin"}`)
			return b64(`{"alg":"none"}`) + tok[strings.Index(tok, "."):]
		}(), msgAlgorithm, "none"},
		{"alg unknown", Options{}, b64(`{"alg":"XY123"}`) + "." + b64(`{}`) + ".c2ln", msgAlgorithm, "XY123"},
		{"alg missing", Options{}, b64(`{"typ":"JWT"}`) + "." + b64(`{}`) + ".c2ln", msgAlgorithm, nil},
		{"alg not a string", Options{}, b64(`{"alg":256}`) + "." + b64(`{}`) + ".c2ln", msgAlgorithm, 256.0},
		{"RS token, shared secret", Options{}, sign(t, keys["RS256"], nil, claims()), msgAlgorithm, "RS256"},
		{"JWK alg differs", rsaOnly, sign(t, keys["RS384"], nil, claims()), msgAlgorithm, "RS384"},
		{"ES token, RSA JWK", rsaOnly, sign(t, keys["ES256"], nil, claims()), msgAlgorithm, "ES256"},
		{"unknown kid", set, sign(t, keys["RS256"], map[string]any{"kid": "other"}, claims()), msgNoKey, nil},
		{"kid of another key type", set, sign(t, keys["ES256"], map[string]any{"kid": "rsa"}, claims()), msgNoKey, nil},
		{"kid not a string", set, sign(t, keys["RS256"], map[string]any{"kid": 7}, claims()), msgNoKey, nil},
		{"no key of the alg's curve", set, sign(t, keys["ES384"], nil, claims()), msgAlgorithm, "ES384"},
		{"wrong secret", Options{}, sign(t, keys["HS256"], nil, claims("role", "r")), msgCrypto, nil},
		{"tampered payload", Options{}, func() string {
			parts := strings.Split(hs(`{"role":"user"}`), ".")
			return parts[0] + "." + b64(`{"role":"admin"}`) + "." + parts[2]
		}(), msgCrypto, nil},
		{"wrong RSA key", set, func() string {
			other := signers()["RS256"]
			other.private = otherRSA()
			return sign(t, other, map[string]any{"kid": "rsa"}, claims())
		}(), msgCrypto, nil},
		{"expired", Options{}, sign(t, hsSigner, nil, claims("exp", now-31)), msgExpired, nil},
		{"not yet valid", Options{}, sign(t, hsSigner, nil, claims("nbf", now+31)), msgNotYetValid, nil},
		{"issued at future", Options{}, sign(t, hsSigner, nil, claims("iat", now+31)), msgIssuedFuture, nil},
		{"exp a string", Options{}, sign(t, hsSigner, nil, claims("exp", "soon")), "The JWT 'exp' claim must be a number", nil},
		{"exp null", Options{}, hs(`{"exp":null}`), "The JWT 'exp' claim must be a number", nil},
		{"nbf a boolean", Options{}, sign(t, hsSigner, nil, claims("nbf", true)), "The JWT 'nbf' claim must be a number", nil},
		{"iat an object", Options{}, sign(t, hsSigner, nil, claims("iat", map[string]any{})), "The JWT 'iat' claim must be a number", nil},
		// Numbers no float64 holds are no time: not "never expires" (1e400)
		// nor "issued at the dawn of time" (-1e400).
		{"exp past float64", Options{}, hs(`{"exp":1e400}`), "The JWT 'exp' claim must be a number", nil},
		{"exp below float64", Options{}, hs(`{"exp":-1e400}`), "The JWT 'exp' claim must be a number", nil},
		{"nbf below float64", Options{}, hs(`{"nbf":-1e400}`), "The JWT 'nbf' claim must be a number", nil},
		{"iat below float64", Options{}, hs(`{"iat":-1E+400}`), "The JWT 'iat' claim must be a number", nil},
		{"aud a number", Options{}, sign(t, hsSigner, nil, claims("aud", 5)), msgAudType, nil},
		{"aud with a number", Options{}, sign(t, hsSigner, nil, claims("aud", []any{"svc", 5})), msgAudType, nil},
		{"aud with null", Options{}, hs(`{"aud":["svc",null]}`), msgAudType, nil},
		{"aud other", Options{Audience: "svc"}, sign(t, hsSigner, nil, claims("aud", "other")), msgAudience, nil},
		{"aud array without", Options{Audience: "svc"}, sign(t, hsSigner, nil, claims("aud", []string{"a", "b"})), msgAudience, nil},
		{"aud empty string", Options{Audience: "svc"}, sign(t, hsSigner, nil, claims("aud", "")), msgAudience, nil},
		{"role a number", Options{}, sign(t, hsSigner, nil, claims("role", 5)), msgRoleType, nil},
		{"role null", Options{}, hs(`{"role":null}`), msgRoleType, nil},
		{"role an object", Options{RoleClaimKey: ".app"}, sign(t, hsSigner, nil, claims("app", map[string]any{"role": "x"})), msgRoleType, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := c.opts
			if o.Secret == "" {
				o.Secret = hsSecret
			}
			id, err := newVerifier(t, o).Verify(c.token)
			if err == nil {
				t.Fatalf("accepted: %+v", id)
			}
			wantRejection(t, err, c.message, c.details)
		})
	}
}

// TestClaimsAccepted covers the edges on the accepting side of each check.
func TestClaimsAccepted(t *testing.T) {
	t.Parallel()
	now := testNow.Unix()
	cases := []struct {
		name     string
		audience string
		claims   map[string]any
	}{
		{"exp within skew", "", map[string]any{"exp": now - 30}},
		{"exp far off", "", map[string]any{"exp": 1e300}},
		{"nbf within skew", "", map[string]any{"nbf": now + 30}},
		{"iat within skew", "", map[string]any{"iat": now + 30}},
		{"no aud, audience set", "svc", map[string]any{}},
		{"aud equal", "svc", map[string]any{"aud": "svc"}},
		{"aud in array", "svc", map[string]any{"aud": []string{"x", "svc"}}},
		{"any aud, no audience set", "", map[string]any{"aud": []string{"x"}}},
		{"null aud, audience set", "svc", map[string]any{"aud": nil}},
		{"null aud, no audience set", "", map[string]any{"aud": nil}},
		{"empty aud, audience set", "svc", map[string]any{"aud": []string{}}},
		{"fractional times", "", map[string]any{"exp": float64(now) + 0.5, "nbf": float64(now) - 0.5}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := newVerifier(t, Options{Secret: hsSecret, Audience: c.audience})
			if _, err := v.Verify(sign(t, hsSigner, nil, c.claims)); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	t.Parallel()
	rsaJWK := jsonText(t, jwk(t, signers()["RS256"].public, "k", ""))
	cases := []struct {
		name string
		opts Options
		want string
	}{
		{"short secret", Options{Secret: "only-31-characters-long-secret!"}, "jwt-secret: a shared secret must be at least 32 characters"},
		{"short base64 secret", Options{Secret: base64.StdEncoding.EncodeToString(make([]byte, 31)), SecretIsBase64: true},
			"jwt-secret: a shared secret must be at least 32 characters"},
		{"bad base64", Options{Secret: "not base64 at all!", SecretIsBase64: true}, "jwt-secret-is-base64: jwt-secret is not valid base64"},
		{"bad JSON", Options{Secret: `{"kty":`}, "jwt-secret: not valid JSON"},
		{"bad JWK", Options{Secret: `{"kty":"RSA"}`}, "jwt-secret: not a valid JWK: "},
		{"bad JWK Set", Options{Secret: `{"keys":[{"kty":"nope"}]}`}, "jwt-secret: not a valid JWK Set: "},
		{"empty JWK Set", Options{Secret: `{"keys":[]}`}, "jwt-secret: the JWK Set holds no key that can verify signatures"},
		{"encryption key only", Options{Secret: strings.Replace(rsaJWK, `"kty"`, `"use":"enc","kty"`, 1)},
			"jwt-secret: the JWK holds no key that can verify signatures"},
		{"JWK alg its type cannot do", Options{Secret: strings.Replace(rsaJWK, `"kty"`, `"alg":"ES256","kty"`, 1)},
			"jwt-secret: the JWK holds no key"},
		{"role claim key", Options{Secret: hsSecret, RoleClaimKey: "role"}, "jwt-role-claim-key: expected '.' or '[' at character 1"},
		{"negative cache", Options{Secret: hsSecret, CacheMaxEntries: -1}, "jwt-cache-max-entries: must not be negative"},
		{"negative cache bytes", Options{Secret: hsSecret, CacheMaxBytes: -1}, "jwt-cache-max-bytes: must not be negative"},
		{"JWKS URL scheme", Options{JWKSURL: "ftp://example.com/jwks"}, `jwt-jwks-url: "ftp://example.com/jwks" is not an http or https URL`},
		{"JWKS URL relative", Options{JWKSURL: "/jwks.json"}, `jwt-jwks-url: "/jwks.json" is not an http or https URL`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, err := New(context.Background(), c.opts)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("New = %v, %v; want an error starting %q", v, err, c.want)
			}
			if cerr := Check(c.opts); cerr == nil || !strings.HasPrefix(cerr.Error(), c.want) {
				t.Errorf("Check = %v; want an error starting %q", cerr, c.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line message: %q", err)
			}
		})
	}
}

func TestNotConfigured(t *testing.T) {
	t.Parallel()
	v, err := New(context.Background(), Options{Audience: "svc", CacheMaxEntries: 10, SecretIsBase64: true})
	if v != nil || err != nil {
		t.Fatalf("New = %v, %v; want nil, nil", v, err)
	}
	v.Close() // safe on nil
	_, err = v.Verify(sign(t, hsSigner, nil, map[string]any{"role": "web"}))
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 500 || e.Code != "SVC300" || e.Message != "Server lacks JWT secret" {
		t.Errorf("Verify on nil = %v", err)
	}
	_, err = v.Verify("")
	wantRejection(t, err, msgEmpty, nil)
	// A credential that is no JWT is the caller's fault even so: 401.
	for token, message := range map[string]string{
		"'":             "Expected 3 parts in JWT; got 1",
		"a.b":           "Expected 3 parts in JWT; got 2",
		"a.b.c.d":       "Expected 3 parts in JWT; got 4",
		"a.b.c":         msgUndecodable,
		"e30.e30.'":     msgUndecodable,
		"e30=.e30.sig":  msgUndecodable,
		"WzFd.e30.sig":  msgUndecodable, // a header of [1]
		"bnVsbA.e30.x_": msgUndecodable, // a header of null
	} {
		_, err := v.Verify(token)
		wantRejection(t, err, message, nil)
	}
}

func TestVerifyErrorIsNilOnSuccess(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, Options{Secret: hsSecret})
	_, err := v.Verify(sign(t, hsSigner, nil, map[string]any{}))
	if err != nil {
		t.Fatalf("err = %#v, want a nil interface", err)
	}
	// The claims text is what SQL receives: it must be the JSON object itself.
	id, _ := v.Verify(sign(t, hsSigner, nil, map[string]any{"a": 1}))
	if !json.Valid(id.Claims) || id.Claims[0] != '{' {
		t.Errorf("claims %q", id.Claims)
	}
}

// TestCritRefused: a token whose header lists critical extensions is
// refused however well it is signed, since SVC understands none (RFC 7515
// 4.1.11); without crit the same token verifies.
func TestCritRefused(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, Options{Secret: hsSecret})
	claims := map[string]any{"role": "web"}
	if _, err := v.Verify(sign(t, hsSigner, nil, claims)); err != nil {
		t.Fatalf("without crit: %v", err)
	}
	for _, crit := range []any{
		[]any{"exp"},
		[]any{"b64"},
		[]any{"http://example.com/ext", "x"},
		[]any{},
		"b64",
	} {
		_, err := v.Verify(sign(t, hsSigner, map[string]any{"crit": crit, "b64": false, "exp": 1}, claims))
		wantRejection(t, err, msgCrit, crit)
	}
	// A cached token was verified without crit; one with crit never is.
	tok := sign(t, hsSigner, map[string]any{"crit": []any{"b64"}}, claims)
	cached := newVerifier(t, Options{Secret: hsSecret, CacheMaxEntries: 10, CacheMaxBytes: 1 << 20})
	for range 2 {
		_, err := cached.Verify(tok)
		wantRejection(t, err, msgCrit, []any{"b64"})
	}
}

// TestClaimsAs covers the claims SQL sees: the token's, with "role" set
// to the role the request runs as, whichever way that role was chosen.
func TestClaimsAs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		roleKey string
		claims  map[string]any // nil: no token
		role    string
		want    string
	}{
		{"no token", "", nil, "web_anon", `{"role":"web_anon"}`},
		{"no token, another anonymous role", "", nil, "guest", `{"role":"guest"}`},
		{"role claim", "", map[string]any{"role": "web_user", "sub": "u1"}, "web_user", `{"role":"web_user","sub":"u1"}`},
		{"no role claim", "", map[string]any{"sub": "u1"}, "web_anon", `{"role":"web_anon","sub":"u1"}`},
		{"role from another claim", ".app.role", map[string]any{"app": map[string]any{"role": "web_user"}, "role": "other"}, "web_user",
			`{"app":{"role":"web_user"},"role":"web_user"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var id Identity
			if c.claims != nil {
				v := newVerifier(t, Options{Secret: hsSecret, RoleClaimKey: c.roleKey})
				var err error
				if id, err = v.Verify(sign(t, hsSigner, nil, c.claims)); err != nil {
					t.Fatal(err)
				}
			}
			var got, want any
			if err := json.Unmarshal([]byte(id.ClaimsAs(c.role)), &got); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(c.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ClaimsAs(%q) = %v, want %v", c.role, got, want)
			}
		})
	}
}
