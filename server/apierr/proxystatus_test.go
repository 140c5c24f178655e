package apierr

import "testing"

func TestProxyStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ code, want string }{
		{"SVC202", `SVC; error=SVC202`},
		{"PT402", `SVC; error=PT402`},
		{"P0001", `SVC; error=P0001`},
		{"42703", `SVC; error=42703`},
		{"123", `SVC; error=123`},
		{"0", `SVC; error=0`},
		{"22P02", `SVC; error="22P02"`},
		{"08006", `SVC; error="08006"`},
		{"1234567890123456", `SVC; error="1234567890123456"`},
		{"-1", `SVC; error="-1"`},
		{"", `SVC; error=""`},
		{"my code", `SVC; error="my code"`},
		{`say "no"`, `SVC; error="say \"no\""`},
		{`a\b`, `SVC; error="a\\b"`},
		{"a;b=c", `SVC; error="a;b=c"`},
		{"a\r\nb", `SVC; error="a??b"`},
		{"café", `SVC; error="caf??"`},
	} {
		if got := proxyStatus("SVC", c.code); got != c.want {
			t.Errorf("proxyStatus(SVC, %q) = %s, want %s", c.code, got, c.want)
		}
	}
}
