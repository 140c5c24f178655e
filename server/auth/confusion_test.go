package auth

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// publicKeyForms are the byte strings an attacker might feed HMAC as the
// "secret", hoping the server uses a public key's bytes that way.
func publicKeyForms(t *testing.T, pub *rsa.PublicKey, jwkText string) map[string][]byte {
	t.Helper()
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := x509.MarshalPKCS1PublicKey(pub)
	return map[string][]byte{
		"PEM PKIX":  pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}),
		"PEM PKCS1": pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: pkcs1}),
		"DER PKIX":  pkix,
		"DER PKCS1": pkcs1,
		"modulus":   pub.N.Bytes(),
		"JWK text":  []byte(jwkText),
	}
}

// TestAlgorithmConfusion signs HS tokens with the bytes of the RSA public
// key the verifier is configured with. None may pass.
func TestAlgorithmConfusion(t *testing.T) {
	t.Parallel()
	pub := signers()["RS256"].public.(*rsa.PublicKey)
	jwkText := jsonText(t, jwk(t, pub, "rsa", "")) // no "alg": only the key type restricts
	rsaOnly := newVerifier(t, Options{Secret: jwkText})
	mixed := newVerifier(t, Options{Secret: jsonText(t, jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{
		jwk(t, randomBytes(32), "hmac", ""), jwk(t, pub, "rsa", "")}})})
	for name, secret := range publicKeyForms(t, pub, jwkText) {
		for _, alg := range []string{"HS256", "HS384", "HS512"} {
			t.Run(name+"/"+alg, func(t *testing.T) {
				t.Parallel()
				forger := signer{alg: alg, method: jwt.GetSigningMethod(alg), private: secret}
				claims := map[string]any{"role": "admin"}
				// Only RS and PS algorithms are accepted with an RSA key alone.
				_, err := rsaOnly.Verify(sign(t, forger, map[string]any{"kid": "rsa"}, claims))
				wantRejection(t, err, msgAlgorithm, alg)
				_, err = rsaOnly.Verify(sign(t, forger, nil, claims))
				wantRejection(t, err, msgAlgorithm, alg)
				// With a shared secret beside it, HS passes the parser, but the
				// RSA key's kid gives no key fit for HS...
				_, err = mixed.Verify(sign(t, forger, map[string]any{"kid": "rsa"}, claims))
				wantRejection(t, err, msgNoKey, nil)
				// ...and without kid only the shared secret is tried.
				_, err = mixed.Verify(sign(t, forger, nil, claims))
				wantRejection(t, err, msgCrypto, nil)
			})
		}
	}
}

// TestCandidatesByType pins down the rule the confusion test relies on:
// a key is offered only for the algorithms of its type.
func TestCandidatesByType(t *testing.T) {
	t.Parallel()
	keys := signers()
	var set jwkset.JWKSMarshal
	for _, alg := range algorithms {
		set.Keys = append(set.Keys, jwk(t, keys[alg].public, alg, ""))
	}
	v := newVerifier(t, Options{Secret: jsonText(t, set)})
	for _, alg := range algorithms {
		got := v.keys.candidates(alg, "", false)
		for _, k := range got {
			if !verifiesWith(alg, k) {
				t.Errorf("%s offered a %T", alg, k)
			}
		}
		want := map[string]int{"HS256": 3, "HS384": 3, "HS512": 3, "ES256": 1, "ES384": 1, "ES512": 1, "EdDSA": 1}[alg]
		if want == 0 {
			want = 6 // the RSA key, once per RS/PS kid
		}
		if len(got) != want {
			t.Errorf("%s: %d candidates, want %d", alg, len(got), want)
		}
	}
}

func verifiesWith(alg string, k any) bool {
	switch k.(type) {
	case []byte:
		return alg[:2] == "HS"
	case *rsa.PublicKey:
		return alg[:2] == "RS" || alg[:2] == "PS"
	}
	return alg[:2] == "ES" || alg == "EdDSA"
}

// TestKIDSelection covers how a kid picks keys out of a set.
func TestKIDSelection(t *testing.T) {
	t.Parallel()
	keys := signers()
	hsA, hsB := signer{alg: "HS256", method: jwt.SigningMethodHS256, private: randomBytes(32)},
		signer{alg: "HS256", method: jwt.SigningMethodHS256, private: randomBytes(32)}
	set := jsonText(t, jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{
		jwk(t, hsA.private, "a", ""),
		jwk(t, hsB.private, "", ""), // no kid: a candidate for any kid
		jwk(t, keys["ES256"].public, "ec", "ES256"),
	}})
	v := newVerifier(t, Options{Secret: set})
	cases := []struct {
		name    string
		token   string
		message string // "" for accepted
	}{
		{"kid a, key a", sign(t, hsA, map[string]any{"kid": "a"}, map[string]any{}), ""},
		{"kid a, key b: a named key is not bypassed", sign(t, hsB, map[string]any{"kid": "a"}, map[string]any{}), msgCrypto},
		{"unknown kid falls to the key without kid", sign(t, hsB, map[string]any{"kid": "zzz"}, map[string]any{}), ""},
		{"unknown kid, key a", sign(t, hsA, map[string]any{"kid": "zzz"}, map[string]any{}), msgCrypto},
		{"no kid tries every HS key", sign(t, hsA, nil, map[string]any{}), ""},
		{"no kid, key b", sign(t, hsB, nil, map[string]any{}), ""},
		{"EC kid", sign(t, keys["ES256"], map[string]any{"kid": "ec"}, map[string]any{}), ""},
		{"EC without kid", sign(t, keys["ES256"], nil, map[string]any{}), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := v.Verify(c.token)
			if c.message == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRejection(t, err, c.message, nil)
		})
	}
	// A single JWK ignores the kid: "with a key set, a token's kid selects the key".
	single := newVerifier(t, Options{Secret: jsonText(t, jwk(t, keys["EdDSA"].public, "mine", ""))})
	if _, err := single.Verify(sign(t, keys["EdDSA"], map[string]any{"kid": "theirs"}, map[string]any{})); err != nil {
		t.Errorf("single JWK with another kid: %v", err)
	}
}
