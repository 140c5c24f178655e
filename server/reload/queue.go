package reload

import (
	"context"
	"sync"
	"time"
)

// ReloadSpacing is the least time between the starts of two reloads a
// Queue runs. Every schema reload retires the pooled database sessions,
// and each request after it pays for a new one (a backend started, its
// statements prepared again); a burst of notifications (a migration tool
// notifying after every statement, an event trigger on each DDL command)
// would otherwise keep the pool empty. The first request after a quiet
// spell runs at once, so a lone migration is followed without delay.
const ReloadSpacing = 250 * time.Millisecond

// Queue runs the reloads asked of a server (by notification or signal)
// one at a time, in the background: a request made while a reload runs,
// or within ReloadSpacing of the last one's start, is served by one more
// reload, however many requests came meanwhile. Each request is followed
// by a reload that starts after it, so none is lost. When both kinds are
// asked for, the configuration is reloaded first, since it may name
// another snapshot source.
type Queue struct {
	schema, config func(ctx context.Context)
	spacing        time.Duration
	wake           chan struct{}
	mu             sync.Mutex
	// wantSchema and wantConfig are the kinds asked for since the last
	// reload began.
	wantSchema, wantConfig bool
}

// NewQueue returns a Queue that reloads the schema with schema and the
// configuration with config (nil when that is not available). Start it
// with Run.
func NewQueue(schema, config func(ctx context.Context)) *Queue {
	return &Queue{schema: schema, config: config, spacing: ReloadSpacing, wake: make(chan struct{}, 1)}
}

// Schema asks for a schema reload; it does not wait for it.
func (q *Queue) Schema() { q.ask(&q.wantSchema) }

// Config asks for a configuration reload; it does not wait for it.
func (q *Queue) Config() { q.ask(&q.wantConfig) }

// HasConfig reports whether the Queue can reload the configuration.
func (q *Queue) HasConfig() bool { return q.config != nil }

func (q *Queue) ask(want *bool) {
	q.mu.Lock()
	*want = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Run reloads what is asked for until ctx ends.
func (q *Queue) Run(ctx context.Context) {
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		if wait := q.spacing - time.Since(last); !last.IsZero() && wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		q.mu.Lock()
		schema, config := q.wantSchema, q.wantConfig
		q.wantSchema, q.wantConfig = false, false
		q.mu.Unlock()
		if !schema && !config {
			continue // asked for while waiting, and taken by the last run
		}
		last = time.Now()
		if config && q.config != nil {
			q.config(ctx)
		}
		if schema {
			q.schema(ctx)
		}
	}
}
