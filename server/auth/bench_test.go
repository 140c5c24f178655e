package auth

import (
	"testing"
)

// benchClaims is a payload of a typical size: a role, the registered
// claims and a little application metadata.
func benchClaims() map[string]any {
	return map[string]any{"role": "web_user", "sub": "0b7c4a52-31d6-4f55-9a0e-0d6a3f0c2a41", "aud": "svc",
		"iat": testNow.Unix() - 60, "exp": testNow.Unix() + 3600, "email": "someone@example.com",
		"app_metadata": map[string]any{"provider": "email", "tier": "pro"}}
}

func BenchmarkVerifyHS256(b *testing.B) {
	benchmarkVerify(b, Options{Secret: hsSecret, Audience: "svc"}, hsSigner)
}

func BenchmarkVerifyRS256(b *testing.B) {
	s := signers()["RS256"]
	benchmarkVerify(b, Options{Secret: jsonText(b, jwk(b, s.public, "k", "RS256")), Audience: "svc"}, s)
}

// benchmarkVerify measures a hit (the same token again) and a miss (the
// cache disabled, so every call parses and checks the signature).
func benchmarkVerify(b *testing.B, o Options, s signer) {
	token := sign(b, s, map[string]any{"kid": "k"}, benchClaims())
	for _, c := range []struct {
		name    string
		entries int
	}{{"cached", 1000}, {"uncached", 0}} {
		b.Run(c.name, func(b *testing.B) {
			o := o
			o.CacheMaxEntries, o.CacheMaxBytes = c.entries, 16<<20
			v := newVerifier(b, o)
			if _, err := v.Verify(token); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(token); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
