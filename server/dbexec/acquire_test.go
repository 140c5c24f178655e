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
	awaitDone(t, w, "a 20 ms deadline")
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
	awaitDone(t, w, "a 20 ms deadline, from the pool")
	w.end()
}

// TestWaitCtxTimerCarriedOver: a recycled wait's timer, left running by
// the wait before, fires during the next wait, which it does not end
// before that wait's own deadline, and then ends it at its deadline.
func TestWaitCtxTimerCarriedOver(t *testing.T) {
	const first, second = 20 * time.Millisecond, 200 * time.Millisecond
	var w, again *waitCtx
	for range 100 {
		w = startWait(context.Background(), first)
		w.end()
		if again = startWait(context.Background(), second); again == w {
			break
		}
		again.end()
	}
	if again != w {
		t.Skip("the pool never handed the same wait out twice in a row (it drops objects at random under -race)")
	}
	start := time.Now()
	time.Sleep(2 * first) // the first wait's timer has fired, finding the second young
	select {
	case <-again.Done():
		if time.Since(start) < second {
			t.Fatalf("the wait ended %v after it began, before its %v deadline: %v", time.Since(start), second, again.Err())
		}
	default:
	}
	awaitDone(t, again, "its own deadline")
	if err := again.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("at its deadline: %v, want %v", err, context.DeadlineExceeded)
	}
	again.end()
}

// TestWaitCtxEndsWhenClientLeaves: a wait ends, canceled, when its
// request's client leaves, told by the context's leave hook or, without
// one, by the context ending; such a wait is not recycled, and one
// whose client stayed leaves no function registered with the hook.
func TestWaitCtxEndsWhenClientLeaves(t *testing.T) {
	req := NewLeavingCtx(context.Background())
	w := startWait(req, time.Hour)
	if !req.Registered() {
		t.Fatal("the wait registered nothing with the request's leave hook")
	}
	req.ClientLeaves()
	awaitDone(t, w, "the client left")
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("after the client left: %v, want %v", err, context.Canceled)
	}
	w.end()
	if w.values == nil {
		t.Error("a wait its client's leaving ended was recycled")
	}

	stays := NewLeavingCtx(context.Background())
	stayed := startWait(stays, time.Hour)
	stayed.end()
	if stays.Registered() {
		t.Error("a wait that ended kept its function registered with the hook")
	}

	ctx, cancel := context.WithCancel(context.Background())
	w = startWait(ctx, time.Hour)
	cancel()
	awaitDone(t, w, "its context without a hook ended")
	if err := w.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("after the context ended: %v, want %v", err, context.Canceled)
	}
	w.end()
}

// awaitDone fails the test unless w is done within 10 s of what, which
// should have ended it.
func awaitDone(t *testing.T, w *waitCtx, what string) {
	t.Helper()
	select {
	case <-w.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("not done 10 s after %s", what)
	}
}
