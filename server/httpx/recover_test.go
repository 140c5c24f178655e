package httpx

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
)

func TestRecoverPanics(t *testing.T) {
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	h := RecoverPanics(apierr.SVCNaming, apierr.Verbose, log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		var m map[string]int
		m["boom"]++ // a nil map write: a runtime panic, as a bug would cause
	}))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/items", nil))
	if w.Code != 500 || w.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("got %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	body := w.Body.String()
	if !strings.Contains(body, `"code":"SVCX00"`) || strings.Contains(body, "nil map") || strings.Contains(body, "goroutine") {
		t.Errorf("body %s: want SVCX00 without the panic's internals", body)
	}
	if !strings.Contains(logged.String(), "assignment to entry in nil map") || !strings.Contains(logged.String(), "recover_test.go") {
		t.Errorf("the log lacks the panic and its stack: %s", logged.String())
	}

	abort := RecoverPanics(apierr.SVCNaming, apierr.Verbose, log, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	defer func() {
		if recover() != http.ErrAbortHandler {
			t.Error("http.ErrAbortHandler was swallowed")
		}
	}()
	abort.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
}
