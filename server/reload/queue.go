package reload

import (
	"context"
	"sync"
	"time"
)

// ReloadSpacing is the least time between the starts of two reloads a
// Queue runs. A schema reload that finds the catalog changed retires the
// pooled database sessions, and each request after it pays for a new one
// (a backend started, its statements prepared again); a burst of
// notifications during a migration (a migration tool notifying after
// every statement, an event trigger on each DDL command) would otherwise
// keep the pool empty. The first request after a quiet
// spell runs at once, so a lone migration is followed without delay.
const ReloadSpacing = 250 * time.Millisecond

// IdleSpacing is the most the spacing grows to while schema reloads find
// nothing changed: it doubles after each such reload, from ReloadSpacing,
// and is ReloadSpacing again after one that changed something. Any role
// that can connect may NOTIFY, and a reload that changes nothing still
// reads its source again (with live introspection, introspects again):
// a storm of notifications then costs one reload per IdleSpacing, and a
// migration's own notification during it waits that long at most.
const IdleSpacing = 2 * time.Second

// Queue runs the reloads asked of a server (by notification or signal)
// one at a time, in the background: a request made while a reload runs,
// or within ReloadSpacing of the last one's start, is served by one more
// reload, however many requests came meanwhile. Each request is followed
// by a reload that starts after it, so none is lost.
//
// When both kinds are asked for together, the schema is reloaded first: a
// configuration that exposes a new schema is refused until a snapshot
// covers it, and one that names another snapshot source reloads the
// snapshot itself. For the same reason a configuration reload that failed
// is tried again after the next schema reload: exposing a schema takes a
// snapshot published and both notifications, in whichever order they come.
type Queue struct {
	schema func(ctx context.Context) bool
	config func(ctx context.Context) error
	// spacing and idleSpacing are ReloadSpacing and IdleSpacing but in
	// tests.
	spacing, idleSpacing time.Duration
	wake                 chan struct{}
	mu                   sync.Mutex
	// wantSchema and wantConfig are the kinds asked for since the last
	// reload began.
	wantSchema, wantConfig bool
	// configFailed is set while the last configuration reload has failed.
	configFailed bool
}

// NewQueue returns a Queue that reloads the schema with schema, which
// reports whether the reload changed anything (Snapshots.Refresh), and
// the configuration with config (nil when that is not available), which
// reports whether the new configuration was put in force. Start it with
// Run.
func NewQueue(schema func(ctx context.Context) bool, config func(ctx context.Context) error) *Queue {
	return &Queue{schema: schema, config: config, spacing: ReloadSpacing, idleSpacing: IdleSpacing, wake: make(chan struct{}, 1)}
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
	spacing := q.spacing
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		if wait := spacing - time.Since(last); !last.IsZero() && wait > 0 {
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
		if schema {
			spacing = nextSpacing(spacing, q.spacing, q.idleSpacing, q.schema(ctx))
		}
		if q.config != nil && (config || schema && q.configFailed) {
			q.configFailed = q.config(ctx) != nil
		}
	}
}

// nextSpacing is the spacing after a schema reload that changed something
// or not, from cur: base after a change, otherwise doubled up to idle.
func nextSpacing(cur, base, idle time.Duration, changed bool) time.Duration {
	if changed {
		return base
	}
	return max(base, min(2*cur, idle))
}
