package reload

import (
	"context"
	"sync"
	"testing"
	"time"
)

// recorder is a reload that records when each run starts and can be held
// until released.
type recorder struct {
	mu      sync.Mutex
	starts  []time.Time
	kinds   []string
	started chan string
	release chan struct{}
}

func newRecorder() *recorder {
	return &recorder{started: make(chan string, 100), release: make(chan struct{})}
}

func (r *recorder) run(kind string) func(context.Context) {
	return func(ctx context.Context) {
		r.mu.Lock()
		r.starts = append(r.starts, time.Now())
		r.kinds = append(r.kinds, kind)
		r.mu.Unlock()
		r.started <- kind
		select {
		case <-r.release:
		case <-ctx.Done():
		}
	}
}

// TestQueueCoalesces: requests made while a reload runs are served by one
// more reload that starts after them, and reloads start no closer than
// the spacing.
func TestQueueCoalesces(t *testing.T) {
	r := newRecorder()
	q := NewQueue(r.run("schema"), r.run("config"))
	q.spacing = 50 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)

	q.Schema()
	<-r.started // the first runs at once, and is held
	asked := time.Now()
	for range 100 {
		q.Schema()
	}
	r.release <- struct{}{}
	<-r.started // one more, for all hundred
	r.release <- struct{}{}
	select {
	case kind := <-r.started:
		t.Fatalf("a third reload (%s) for requests the second served", kind)
	case <-time.After(200 * time.Millisecond):
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.starts) != 2 {
		t.Fatalf("%d reloads, want 2", len(r.starts))
	}
	if !r.starts[1].After(asked) {
		t.Error("the second reload started before the requests it serves")
	}
	if gap := r.starts[1].Sub(r.starts[0]); gap < q.spacing {
		t.Errorf("reloads %s apart, the spacing is %s", gap, q.spacing)
	}
}

// TestQueueConfigFirst: asked for both, a Queue reloads the configuration
// first, since it may name another snapshot source.
func TestQueueConfigFirst(t *testing.T) {
	r := newRecorder()
	q := NewQueue(r.run("schema"), r.run("config"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q.Schema()
	q.Config()
	go q.Run(ctx)
	for _, want := range []string{"config", "schema"} {
		if got := <-r.started; got != want {
			t.Errorf("reloaded %s, want %s", got, want)
		}
		r.release <- struct{}{}
	}
}
