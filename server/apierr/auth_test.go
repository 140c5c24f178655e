package apierr

import "testing"

func TestInvalidJWTChallenge(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, message, want string
	}{
		{"plain", "JWT expired", `Bearer error="invalid_token", error_description="JWT expired"`},
		{"quote", `say "no"`, `Bearer error="invalid_token", error_description="say \"no\""`},
		{"backslash", `a\b`, `Bearer error="invalid_token", error_description="a\\b"`},
		{"quote after backslash", `\"`, `Bearer error="invalid_token", error_description="\\\""`},
		{"control characters", "a\r\nb\x00c\td", `Bearer error="invalid_token", error_description="a  b c` + "\t" + `d"`},
		{"non-ASCII", "rôle", `Bearer error="invalid_token", error_description="rôle"`},
		{"empty", "", `Bearer error="invalid_token", error_description=""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := InvalidJWT(c.message, nil)
			if e.Status != 401 || e.Code != "SVC301" || e.Message != c.message || e.Details != nil {
				t.Errorf("InvalidJWT(%q) = %d %s %q %v", c.message, e.Status, e.Code, e.Message, e.Details)
			}
			if got := e.Headers["WWW-Authenticate"]; got != c.want {
				t.Errorf("WWW-Authenticate = %s, want %s", got, c.want)
			}
		})
	}
}

func TestInvalidJWTDetails(t *testing.T) {
	t.Parallel()
	got := string(InvalidJWT("Wrong or unsupported encoding algorithm", "RS256").JSON(SVCNaming, Verbose))
	want := `{"code":"SVC301","details":"RS256","hint":null,"message":"Wrong or unsupported encoding algorithm"}`
	if got != want {
		t.Errorf("JSON() = %s, want %s", got, want)
	}
}

func TestJWTSecretMissing(t *testing.T) {
	t.Parallel()
	e := JWTSecretMissing()
	if e.Status != 500 || e.Code != "SVC300" || e.Message != "Server lacks JWT secret" {
		t.Errorf("JWTSecretMissing() = %d %s %q", e.Status, e.Code, e.Message)
	}
}
