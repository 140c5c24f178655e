package http1

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestRequestCtxEnds proves a request's context ends as a cancelled
// context.WithCancel does: Done closes, asked for before or after, Err
// turns context.Canceled, and a second end changes nothing.
func TestRequestCtxEnds(t *testing.T) {
	early := &requestCtx{}
	done := early.Done()
	if early.Err() != nil {
		t.Fatalf("Err before the end: %v", early.Err())
	}
	select {
	case <-done:
		t.Fatal("Done closed before the end")
	default:
	}
	early.end()
	early.end()
	if !errors.Is(early.Err(), context.Canceled) {
		t.Errorf("Err after the end: %v, want context.Canceled", early.Err())
	}
	for name, c := range map[string]*requestCtx{"asked before": early, "asked after": ended()} {
		select {
		case <-c.Done():
		default:
			t.Errorf("%s the end: Done not closed", name)
		}
	}
	if d, ok := early.Deadline(); ok || !d.IsZero() {
		t.Errorf("Deadline: %v, %v, want none", d, ok)
	}
}

func ended() *requestCtx {
	c := &requestCtx{}
	c.end()
	return c
}

// TestRequestCtxAfterFunc proves AfterFunc keeps context.AfterFunc's
// contract: f runs once the context ends unless stopped first, at once
// on a context already ended, and stop says whether it kept f from
// running.
func TestRequestCtxAfterFunc(t *testing.T) {
	c := &requestCtx{}
	ran := make(chan string, 3)
	stopped := context.AfterFunc(c, func() { ran <- "stopped" })
	context.AfterFunc(c, func() { ran <- "kept" })
	if !stopped() {
		t.Error("stop before the end reported false")
	}
	if stopped() {
		t.Error("a second stop reported true")
	}
	c.end()
	if got := receive(t, ran); got != "kept" {
		t.Errorf("ran %q, want kept", got)
	}
	late := context.AfterFunc(c, func() { ran <- "late" })
	if got := receive(t, ran); got != "late" {
		t.Errorf("ran %q, want late", got)
	}
	if late() {
		t.Error("stop after f ran reported true")
	}
	select {
	case got := <-ran:
		t.Errorf("%q ran too", got)
	case <-time.After(50 * time.Millisecond):
	}
}

func receive(t *testing.T, ran chan string) string {
	t.Helper()
	select {
	case got := <-ran:
		return got
	case <-time.After(5 * time.Second):
		t.Fatal("nothing ran 5 s after the context ended")
		return ""
	}
}

// TestRequestCtxChildren proves a context derived from a request's ends
// with it, and costs no goroutine of its own while it waits: without
// AfterFunc, package context would start one per derived context.
func TestRequestCtxChildren(t *testing.T) {
	c := &requestCtx{}
	const n = 100
	before := runtime.NumGoroutine()
	children := make([]context.Context, n)
	for i := range children {
		var cancel context.CancelFunc
		children[i], cancel = context.WithTimeout(c, time.Hour)
		defer cancel()
	}
	if grown := runtime.NumGoroutine() - before; grown >= n/2 {
		t.Errorf("%d derived contexts started %d goroutines", n, grown)
	}
	c.end()
	for i, child := range children {
		select {
		case <-child.Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("child %d still open 5 s after its parent ended", i)
		}
		if !errors.Is(child.Err(), context.Canceled) {
			t.Fatalf("child %d: Err %v, want context.Canceled", i, child.Err())
		}
	}
}
