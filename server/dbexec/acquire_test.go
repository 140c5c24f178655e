package dbexec

import (
	"context"
	"errors"
	"testing"
	"time"
)

type waitKey struct{}

// TestWaitCtxEndsAtDeadline: a wait no session ended is done at its
// deadline, with the error a deadline gives, and carries the request's
// values throughout.
func TestWaitCtxEndsAtDeadline(t *testing.T) {
	req := context.WithValue(context.Background(), waitKey{}, "request")
	w := startWait(req, 20*time.Millisecond)
	if d, ok := w.Deadline(); !ok || time.Until(d) > 20*time.Millisecond {
		t.Errorf("deadline %v %v, want within 20ms", d, ok)
	}
	if err := w.Err(); err != nil {
		t.Errorf("before the deadline: %v", err)
	}
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not done 10 s after a 20 ms deadline")
	}
	if err := w.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("after the deadline: %v, want %v", err, context.DeadlineExceeded)
	}
	if v := w.Value(waitKey{}); v != "request" {
		t.Errorf("value %v, want the request's", v)
	}
	w.end()
	if w.values == nil {
		t.Error("a wait whose deadline passed was recycled: what waited on it may still hold it")
	}
}

// TestWaitCtxRecycled: a wait ended before its deadline is recycled whole
// and, handed out again, is live, and one from the pool still ends at its
// deadline.
func TestWaitCtxRecycled(t *testing.T) {
	for range 100 {
		w := startWait(context.Background(), time.Hour)
		w.end()
		again := startWait(context.Background(), time.Minute)
		if again.Err() != nil {
			t.Fatalf("a recycled wait starts ended: %v", again.Err())
		}
		select {
		case <-again.Done():
			t.Fatal("a recycled wait is done before its deadline")
		default:
		}
		again.end()
	}
	w := startWait(context.Background(), 20*time.Millisecond)
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a wait from the pool not done 10 s after a 20 ms deadline")
	}
	w.end()
}

// hookCtx is a request context with a leave hook, as http1's is.
type hookCtx struct {
	context.Context
	leave func()
}

func (c *hookCtx) OnLeave(f func()) { c.leave = f }
func (c *hookCtx) StopLeave() bool {
	stopped := c.leave != nil
	c.leave = nil
	return stopped
}

// TestWaitCtxEndsWhenClientLeaves: a wait ends, canceled, when its
// request's client leaves, told by the context's leave hook or, without
// one, by the context ending; such a wait is not recycled, and one
// whose client stayed leaves no function registered with the hook.
func TestWaitCtxEndsWhenClientLeaves(t *testing.T) {
	hook := &hookCtx{Context: context.Background()}
	w := startWait(hook, time.Hour)
	if hook.leave == nil {
		t.Fatal("the wait registered nothing with the request's leave hook")
	}
	go hook.leave()
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not done 10 s after the client left")
	}
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("after the client left: %v, want %v", err, context.Canceled)
	}
	w.end()
	if w.values == nil {
		t.Error("a wait its client's leaving ended was recycled")
	}

	stayed := startWait(hook, time.Hour)
	stayed.end()
	if hook.leave != nil {
		t.Error("a wait that ended kept its function registered with the hook")
	}

	ctx, cancel := context.WithCancel(context.Background())
	w = startWait(ctx, time.Hour)
	cancel()
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("not done 10 s after its context without a hook ended")
	}
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("after the context ended: %v, want %v", err, context.Canceled)
	}
	w.end()
}
