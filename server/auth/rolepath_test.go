package auth

import (
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
)

func TestParseRoleClaimKey(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, canonical string }{
		{"", ".role"},
		{".role", ".role"},
		{".app_metadata.role", ".app_metadata.role"},
		{".roles[0]", ".roles[0]"},
		{".a[1][2].b", ".a[1][2].b"},
		{`."https://example.com/role"`, `."https://example.com/role"`},
		{`."custom-claims".role`, `."custom-claims".role`},
		{`."plain"`, ".plain"},
		{`.""`, `.""`},
		{".$x@y_1", ".$x@y_1"},
		{`.roles[?(@ == "admin")]`, `.roles[?(@ == "admin")]`},
		{`.roles[?(@=="admin")]`, `.roles[?(@ == "admin")]`},
		{`.roles[?(@ != "x")]`, `.roles[?(@ != "x")]`},
		{`.roles[?(@ ^== "svc_")]`, `.roles[?(@ ^== "svc_")]`},
		{`.roles[?(@ ==^ "_admin")]`, `.roles[?(@ ==^ "_admin")]`},
		{`.roles[?(@ *== "mid")]`, `.roles[?(@ *== "mid")]`},
		{`.a[?(@ == "x")].b[0]`, `.a[?(@ == "x")].b[0]`},
		{"[0]", "[0]"}, // legal, though the claims object never has elements
	}
	for _, c := range cases {
		p, err := ParseRoleClaimKey(c.in)
		if err != nil {
			t.Errorf("ParseRoleClaimKey(%q): %v", c.in, err)
			continue
		}
		if got := p.String(); got != c.canonical {
			t.Errorf("ParseRoleClaimKey(%q).String() = %s, want %s", c.in, got, c.canonical)
		}
		if again, err := ParseRoleClaimKey(p.String()); err != nil || again.String() != p.String() {
			t.Errorf("%q does not read back: %v", p.String(), err)
		}
	}
}

func TestParseRoleClaimKeyErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"role", `expected '.' or '[' at character 1 of "role"`},
		{".", `expected a claim name or a "quoted name" after '.' at character 2`},
		{".a..b", `expected a claim name or a "quoted name" after '.' at character 4`},
		{".a-b", `expected '.' or '[' at character 3`},
		{".role ", `expected '.' or '[' at character 6`},
		{".é", `after '.' at character 2`},
		{`."é".b c`, `expected '.' or '[' at character 7`}, // counted in characters, not bytes
		{`."open`, `unterminated quoted text at character 2`},
		{".a[", `expected an array index (digits) or a filter [?(...)] after '[' at character 4`},
		{".a[-1]", `expected an array index (digits) or a filter [?(...)] after '[' at character 4`},
		{".a[1", `expected ']' after the array index at character 5`},
		{".a[99999999999999999999]", `array index out of range at character 4`},
		{`.a[?(x == "y")]`, `expected '@' in the filter at character 6`},
		{`.a[?(@ = "y")]`, `expected one of == != ^== ==^ *== in the filter at character 8`},
		{`.a[?(@ == y)]`, `expected a "quoted text" in the filter at character 11`},
		{`.a[?(@ == "y"`, `expected ')]' to close the filter at character 14`},
		{`.a[?(@ == "y")`, `expected ')]' to close the filter at character 14`},
	}
	for _, c := range cases {
		_, err := ParseRoleClaimKey(c.in)
		if err == nil || !strings.HasPrefix(err.Error(), "jwt-role-claim-key: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseRoleClaimKey(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestRoleClaim(t *testing.T) {
	t.Parallel()
	const claims = `{"role":"top","app_metadata":{"role":"nested","n":1},"roles":["svc_reader","svc_admin","guest"],` +
		`"https://example.com/role":"url","custom-claims":{"role":"quoted"},"mixed":[5,{"a":1},"text_admin"],` +
		`"grid":[["a","b"],["c"]],"list":[{"role":"in_list"}]}`
	cases := []struct {
		key, want string
		refused   bool
	}{
		{"", "top", false},
		{".role", "top", false},
		{".app_metadata.role", "nested", false},
		{".roles[0]", "svc_reader", false},
		{".roles[2]", "guest", false},
		{`."https://example.com/role"`, "url", false},
		{`."custom-claims".role`, "quoted", false},
		{".grid[1][0]", "c", false},
		{".list[0].role", "in_list", false},
		{`.roles[?(@ == "svc_admin")]`, "svc_admin", false},
		{`.roles[?(@ != "svc_reader")]`, "svc_admin", false},
		{`.roles[?(@ ^== "svc_")]`, "svc_reader", false},
		{`.roles[?(@ ==^ "_admin")]`, "svc_admin", false},
		{`.roles[?(@ *== "ues")]`, "guest", false},
		{`.mixed[?(@ != "zzz")]`, "text_admin", false}, // a filter only ever picks strings
		{`.mixed[?(@ ==^ "admin")]`, "text_admin", false},
		// Missing: anonymous, not an error.
		{".nope", "", false},
		{".app_metadata.nope", "", false},
		{".roles[3]", "", false},
		{".role[0]", "", false},
		{".role.x", "", false},
		{".app_metadata[0]", "", false},
		{`.roles[?(@ == "root")]`, "", false},
		{`.role[?(@ == "top")]`, "", false},
		{"[0]", "", false},
		// Present but not a string: refused.
		{".app_metadata", "", true},
		{".app_metadata.n", "", true},
		{".roles", "", true},
		{".mixed[0]", "", true},
		{".grid[0]", "", true},
	}
	for _, c := range cases {
		t.Run(c.key, func(t *testing.T) {
			t.Parallel()
			v := newVerifier(t, Options{Secret: hsSecret, RoleClaimKey: c.key})
			id, err := v.Verify(signRaw(t, jwt.SigningMethodHS256, []byte(hsSecret), `{"alg":"HS256"}`, claims))
			if c.refused {
				wantRejection(t, err, msgRoleType, nil)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id.Role != c.want {
				t.Errorf("role = %q, want %q", id.Role, c.want)
			}
		})
	}
}
