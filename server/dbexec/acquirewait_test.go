package dbexec_test

import (
	"errors"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// TestWaitForSessionEndsWhenClientLeaves: a request waiting for a session
// of a pool whose only one is taken stops waiting when its client leaves,
// with ErrClientGone, long before the acquisition timeout (an hour here).
func TestWaitForSessionEndsWhenClientLeaves(t *testing.T) {
	cfg := *fixture.cfg
	cfg.DBPool = 1
	pool, err := dbexec.NewPool(t.Context(), &cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	held, err := pool.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()

	exec := &dbexec.Executor{Names: apierr.SVCNaming, Pool: pool, AcquireTimeout: time.Hour, Prepare: true, CancelTimeout: dbexec.TestCancelTimeout}
	tx := dbexec.Tx{ReadOnly: true, Role: "web_anon", SearchPath: `"test"`, Method: "GET", Path: "/"}
	req := dbexec.NewLeavingCtx(t.Context())
	done := make(chan error, 1)
	go func() { done <- exec.Execute(req, tx, dbexec.Step{Stmt: query.Statement{SQL: "select 1"}}) }()
	for wait := time.Now(); !req.Registered(); time.Sleep(5 * time.Millisecond) {
		if time.Since(wait) > 10*time.Second {
			t.Fatal("the request registered nothing with its context's leave hook while it waited for a session")
		}
	}
	req.ClientLeaves()
	select {
	case err := <-done:
		if !errors.Is(err, dbexec.ErrClientGone) {
			t.Errorf("the waiting request whose client left: %v, want ErrClientGone", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the request still waited for a session 30 s after its client left")
	}
}
