package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
)

// minSecretLength is the shortest shared secret accepted, in characters
// (bytes once base64-decoded): HS256 wants a key as long as its hash.
const minSecretLength = 32

// The algorithms each kind of key verifies. A key is only ever offered for
// these, which is what makes algorithm confusion impossible: an HS token is
// checked with a shared secret or not at all, never with the bytes of a
// public key.
var (
	algsHMAC    = []string{"HS256", "HS384", "HS512"}
	algsRSA     = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	algsP256    = []string{"ES256"}
	algsP384    = []string{"ES384"}
	algsP521    = []string{"ES512"}
	algsEd25519 = []string{"EdDSA"}
	// supportedAlgs is every algorithm some key could verify; "none" is not
	// among them.
	supportedAlgs = slices.Concat(algsHMAC, algsRSA, algsP256, algsP384, algsP521, algsEd25519)
)

// key is one verification key.
type key struct {
	kid string
	// anyKID makes the key a candidate whatever kid a token names: a plain
	// secret, a single JWK, or a member of a set that has no kid.
	anyKID bool
	// alg is the JWK's own "alg", which a token must then use; "" when the
	// key does not fix one.
	alg  string
	algs []string // what the key's type can verify (shared tables above)
	// material is []byte, *rsa.PublicKey, *ecdsa.PublicKey or
	// ed25519.PublicKey: the types golang-jwt's methods verify with.
	material any
}

// fits says whether the key may verify a token signed with alg.
func (k key) fits(alg string) bool {
	return (k.alg == "" || k.alg == alg) && slices.Contains(k.algs, alg)
}

// fromJWK makes a verification key of a JWK; ok is false for a key that
// cannot verify JWS signatures (an encryption key, X25519, an unsupported
// curve, an "alg" its type cannot do).
func fromJWK(j jwkset.JWK, inSet bool) (key, bool) {
	m := j.Marshal()
	if m.USE != "" && m.USE != jwkset.UseSig {
		return key{}, false
	}
	if len(m.KEYOPS) > 0 && !slices.Contains(m.KEYOPS, jwkset.KeyOpsVerify) {
		return key{}, false
	}
	material := j.Key()
	if private, ok := material.(interface{ Public() crypto.PublicKey }); ok {
		material = private.Public() // a JWK may carry the private half; verifying needs only the public one
	}
	k := key{kid: m.KID, anyKID: !inSet || m.KID == "", alg: m.ALG.String(), material: material}
	switch pub := material.(type) {
	case []byte:
		k.algs = algsHMAC
	case *rsa.PublicKey:
		k.algs = algsRSA
	case *ecdsa.PublicKey:
		switch pub.Curve.Params().Name {
		case "P-256":
			k.algs = algsP256
		case "P-384":
			k.algs = algsP384
		case "P-521":
			k.algs = algsP521
		}
	case ed25519.PublicKey:
		k.algs = algsEd25519
	}
	if len(k.algs) == 0 || k.alg != "" && !slices.Contains(k.algs, k.alg) {
		return key{}, false
	}
	return k, true
}

// keyAlgs is every algorithm some key in keys fits, for jwt.WithValidMethods.
func keyAlgs(keys []key) []string {
	var out []string
	for _, alg := range supportedAlgs {
		if slices.ContainsFunc(keys, func(k key) bool { return k.fits(alg) }) {
			out = append(out, alg)
		}
	}
	return out
}

// secretKeys reads jwt-secret: JSON text is a JWK Set (when it has "keys")
// or a single JWK, anything else a shared secret. With jwt-secret-is-base64
// the text is decoded first, as PostgREST does, so a base64 JWK works too.
func secretKeys(secret string, isBase64 bool) ([]key, error) {
	text := []byte(secret)
	if isBase64 {
		var err error
		if text, err = decodeBase64(secret); err != nil {
			return nil, fmt.Errorf("jwt-secret-is-base64: jwt-secret is not valid base64: %w", err)
		}
	}
	if trimmed := strings.TrimLeft(string(text), " \t\r\n"); strings.HasPrefix(trimmed, "{") {
		return jwkKeys(json.RawMessage(trimmed))
	}
	length := utf8.RuneCount(text)
	if isBase64 {
		length = len(text)
	}
	if length < minSecretLength {
		return nil, fmt.Errorf("jwt-secret: a shared secret must be at least %d characters", minSecretLength)
	}
	return []key{{anyKID: true, algs: algsHMAC, material: text}}, nil
}

// decodeBase64 accepts the standard and URL alphabets, padded or not, and
// ignores surrounding whitespace (a secret pasted from a file).
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	s = strings.NewReplacer("-", "+", "_", "/").Replace(s)
	return base64.RawStdEncoding.DecodeString(s)
}

// jwkKeys reads a JWK or JWK Set with keyfunc. Keys that cannot verify
// signatures are skipped; a set with none left is a configuration error,
// since it would refuse every token.
func jwkKeys(raw json.RawMessage) ([]key, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("jwt-secret: not valid JSON: %w", err)
	}
	_, isSet := probe["keys"]
	what := "JWK"
	var kf keyfunc.Keyfunc
	var err error
	if isSet {
		what = "JWK Set"
		kf, err = keyfunc.NewJWKSetJSON(raw)
	} else {
		kf, err = keyfunc.NewJWKJSON(raw)
	}
	if err != nil {
		return nil, fmt.Errorf("jwt-secret: not a valid %s: %s", what, oneLine(err))
	}
	jwks, err := kf.Storage().KeyReadAll(context.Background())
	if err != nil {
		return nil, fmt.Errorf("jwt-secret: reading the %s: %w", what, err)
	}
	var keys []key
	for _, j := range jwks {
		if k, ok := fromJWK(j, isSet); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("jwt-secret: the %s holds no key that can verify signatures (algorithms supported: %s)",
			what, strings.Join(supportedAlgs, ", "))
	}
	return keys, nil
}

// oneLine flattens the errors.Join chains of jwkset and keyfunc, whose
// newlines would break a one-line configuration message.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
