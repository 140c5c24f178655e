package server

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
)

// TestConnectionErrorsDiscloseNothing: what the driver says when the
// database cannot be reached names its host and port, user and database.
// Callers get a generic detail; the log gets the driver's words.
func TestConnectionErrorsDiscloseNothing(t *testing.T) {
	t.Parallel()
	cause := errors.New(`failed to connect to user=authenticator database=payroll: 10.1.2.3:6432 (db.internal): dial error: connection refused`)
	secrets := []string{"authenticator", "payroll", "10.1.2.3", "6432", "db.internal"}
	// A connection that breaks mid-statement reaches dbError as a network
	// error, which names the address too.
	broken := fmt.Errorf("failed to receive message: %w: user=authenticator database=payroll (db.internal)", &net.OpError{Op: "read", Net: "tcp",
		Addr: &net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 6432}, Err: syscall.ECONNRESET})
	for _, e := range []*apierr.Error{apierr.ConnectionRefused(cause), apierr.ConnectionFailed(cause),
		apierr.From(dbexec.APIError(apierr.SVCNaming, broken, false))} {
		var logged bytes.Buffer
		w := httptest.NewRecorder()
		s := &Server{names: apierr.SVCNaming, log: slog.New(slog.NewTextHandler(&logged, nil))}
		s.writeError(w, e)
		if w.Code != 503 {
			t.Errorf("%s: status %d, want 503", e.Code, w.Code)
		}
		for _, s := range secrets {
			if strings.Contains(w.Body.String(), s) {
				t.Errorf("%s: the answer names %q: %s", e.Code, s, w.Body)
			}
			if !strings.Contains(logged.String(), s) {
				t.Errorf("%s: the log lacks %q: %s", e.Code, s, logged.String())
			}
		}
	}
}

// TestContentRange: the ranges made once for the first rows read as the
// ones rendered for any other page.
func TestContentRange(t *testing.T) {
	total := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		offset, n int64
		total     *int64
		want      string
	}{
		{0, 1, nil, "0-0/*"},
		{0, 20, nil, "0-19/*"},
		{0, 256, nil, "0-255/*"},
		{0, 257, nil, "0-256/*"},
		{5, 1, nil, "5-5/*"},
		{0, 0, nil, "*/*"},
		{0, 3, total(10), "0-2/10"},
		{0, 0, total(0), "*/0"},
		{10, 0, total(10), "*/10"},
	} {
		if got := contentRange(tc.offset, tc.n, tc.total); got != tc.want {
			t.Errorf("contentRange(%d, %d, %v) = %q, want %q", tc.offset, tc.n, tc.total, got, tc.want)
		}
	}
}
