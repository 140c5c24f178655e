package server_test

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestHeaderLimit: request headers over server-max-header-bytes are
// answered 431, and headers within it are served. (URLs over
// server-max-url-bytes are the handler's to refuse: request_limits.case.)
func TestHeaderLimit(t *testing.T) {
	base := serverWith(t, map[string]string{"server-max-header-bytes": "4096"})
	for _, tc := range []struct {
		pad  int
		want string
	}{{1000, "HTTP/1.1 200 "}, {20000, "HTTP/1.1 431 "}} {
		c := dialServer(t, base)
		io.WriteString(c, "GET /authors?limit=1 HTTP/1.1\r\nHost: svc\r\nX-Pad: "+strings.Repeat("a", tc.pad)+
			"\r\nConnection: close\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		got, _ := io.ReadAll(c)
		if !strings.HasPrefix(string(got), tc.want) {
			t.Errorf("a %d-byte header: got %q, want %q...", tc.pad, clipped(string(got)), tc.want)
		}
	}
}

// clipped is s cut to a length a failure message can show.
func clipped(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
