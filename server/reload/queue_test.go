package reload

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
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

// schema is run as a schema reload, reporting that it changed something,
// as a reload after a migration does.
func (r *recorder) schema() func(context.Context) bool {
	run := r.run("schema")
	return func(ctx context.Context) bool {
		run(ctx)
		return true
	}
}

// config is run as a configuration reload, failing while fail is set.
func (r *recorder) config(fail *atomic.Bool) func(context.Context) error {
	run := r.run("config")
	return func(ctx context.Context) error {
		failed := fail.Load() // before the test, released, goes on
		run(ctx)
		if failed {
			return errors.New("refused")
		}
		return nil
	}
}

// TestQueueCoalesces: requests made while a reload runs are served by one
// more reload that starts after them, and reloads start no closer than
// the spacing.
func TestQueueCoalesces(t *testing.T) {
	r := newRecorder()
	q := NewQueue(r.schema(), r.config(new(atomic.Bool)))
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

// TestQueueSchemaFirst: asked for both, a Queue reloads the schema first,
// since a configuration exposing a new schema needs a snapshot covering
// it; and a configuration reload that failed is tried again after the
// next schema reload, whatever the order the two were asked in.
func TestQueueSchemaFirst(t *testing.T) {
	r := newRecorder()
	var fail atomic.Bool
	q := NewQueue(r.schema(), r.config(&fail))
	q.spacing = time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	expect := func(kinds ...string) {
		t.Helper()
		for _, want := range kinds {
			select {
			case got := <-r.started:
				if got != want {
					t.Fatalf("reloaded %s, want %s", got, want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s reload", want)
			}
			r.release <- struct{}{}
		}
	}
	q.Config()
	q.Schema()
	go q.Run(ctx)
	expect("schema", "config")

	// The configuration comes first, and is refused: the snapshot it
	// needs is not out yet.
	fail.Store(true)
	q.Config()
	expect("config")
	fail.Store(false)
	q.Schema()
	expect("schema", "config")
	q.Schema()
	expect("schema")
	select {
	case kind := <-r.started:
		t.Fatalf("a %s reload nothing asked for", kind)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestQueueBacksOffWhileNothingChanges: while schema reloads find nothing
// changed, as in a storm of notifications anyone may send, each waits
// twice as long as the one before after the last one's start, up to the
// idle spacing.
func TestQueueBacksOffWhileNothingChanges(t *testing.T) {
	r := newRecorder()
	run := r.run("schema")
	q := NewQueue(func(ctx context.Context) bool { run(ctx); return false }, nil)
	q.spacing, q.idleSpacing = 10*time.Millisecond, 40*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go q.Run(ctx)
	const reloads = 5
	for range reloads {
		q.Schema()
		<-r.started
		r.release <- struct{}{}
		q.Schema() // asked for while the reload ran: served by the next
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	want := []time.Duration{10, 20, 40, 40}
	for i, w := range want {
		if gap := r.starts[i+1].Sub(r.starts[i]); gap < w*time.Millisecond {
			t.Errorf("reload %d started %s after the one before, want at least %s", i+2, gap, w*time.Millisecond)
		}
	}
}

// TestNextSpacing: the spacing doubles, from the base up to the idle
// spacing, after reloads that changed nothing, and is the base again
// after one that changed something.
func TestNextSpacing(t *testing.T) {
	const base, idle = 250 * time.Millisecond, 2 * time.Second
	for _, c := range []struct {
		cur     time.Duration
		changed bool
		want    time.Duration
	}{
		{base, false, 500 * time.Millisecond},
		{time.Second, false, idle},
		{idle, false, idle},
		{idle, true, base},
		{base, true, base},
	} {
		if got := nextSpacing(c.cur, base, idle, c.changed); got != c.want {
			t.Errorf("nextSpacing(%s, changed %v) = %s, want %s", c.cur, c.changed, got, c.want)
		}
	}
}
