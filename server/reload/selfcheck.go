package reload

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/logging"
)

// A LISTEN session can look fine and hear nothing: through a pooler in
// transaction mode (db-uri at PgBouncer and no db-channel-uri) the LISTEN
// runs on whichever backend the pooler lends for that statement, and the
// pooler drops what that backend later receives ("got packet 'A' from
// server when not linked"). The server would serve its old schema for
// ever. So the listener sends itself a notification on its channel from
// another session, the request pool, once connected and then every
// SelfCheckEvery, and reports whether it arrives: in the log, in /health
// (Health) and in a metric (OnHearing).

// SelfCheckPrefix starts the payload of a self-check notification. Every
// server on the channel hears every other's and ignores them: they ask for
// no reload.
const SelfCheckPrefix = "svc self-check "

// Timings of the self-check: how long a notification may take to arrive,
// and how often the check is made again.
const (
	selfCheckTimeout = 3 * time.Second
	selfCheckEvery   = time.Minute
)

// ListenerFix is what an operator does when the LISTEN session hears
// nothing.
const ListenerFix = "set db-channel-uri to a connection straight to PostgreSQL, or through a pooler in session mode " +
	"(LISTEN needs a session of its own); through a pooler in transaction mode notifications are lost"

// selfCheck is one LISTEN session's check that it hears its channel.
type selfCheck struct {
	// id starts this session's own payloads, so that another server's
	// check does not pass for this one's.
	id    string
	heard chan struct{}
}

func newSelfCheck() *selfCheck {
	return &selfCheck{id: strconv.FormatUint(rand.Uint64()>>16, 36), heard: make(chan struct{}, 1)}
}

// own reports whether payload is a self-check, and tells the check when
// it is this session's own.
func (c *selfCheck) own(payload string) bool {
	rest, ok := strings.CutPrefix(payload, SelfCheckPrefix)
	if !ok {
		return false
	}
	if c != nil && strings.HasPrefix(rest, c.id+" ") {
		select {
		case c.heard <- struct{}{}:
		default:
		}
	}
	return true
}

// run sends a self-check on pool now and every every, until ctx ends
// (the LISTEN session is lost), reporting each outcome to report: true
// when a check arrived, false when one did not within selfCheckTimeout.
// A check that arrives late still counts.
func (c *selfCheck) run(ctx context.Context, pool *pgxpool.Pool, channel string, every time.Duration, report func(bool)) {
	next := time.NewTimer(0)
	defer next.Stop()
	timeout := time.NewTimer(time.Hour)
	timeout.Stop()
	defer timeout.Stop()
	seq := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.heard:
			timeout.Stop()
			report(true)
		case <-timeout.C:
			report(false)
		case <-next.C:
			seq++
			payload := SelfCheckPrefix + c.id + " " + strconv.Itoa(seq)
			sendCtx, cancel := context.WithTimeout(ctx, selfCheckTimeout)
			_, err := pool.Exec(sendCtx, "select pg_catalog.pg_notify($1, $2)", channel, payload)
			cancel()
			if err == nil {
				timeout.Reset(selfCheckTimeout)
			}
			next.Reset(every)
		}
	}
}

// hearing records whether the LISTEN session hears its channel, saying
// so when that changes: an error with the fix when it stops, a notice
// when it hears again.
func (l *Listener) hearing(ctx context.Context, hears bool) {
	if l.OnHearing != nil {
		l.OnHearing(hears)
	}
	if hears {
		l.Health.Clear("listener")
		if l.deaf.CompareAndSwap(true, false) {
			l.Log.Log(ctx, logging.LevelNotice, "the LISTEN session hears notifications again", "channel", l.Channel)
		}
		return
	}
	p := Problem{Component: "listener", Fix: ListenerFix,
		Problem: "a notification this server sent on channel " + l.Channel + " did not reach its LISTEN session: " +
			"reloads asked for by NOTIFY (svc-introspect publish, migrations) do not reach it, and it serves the schema it has"}
	l.Health.Set(p)
	if l.deaf.CompareAndSwap(false, true) {
		l.Log.Error("the LISTEN session does not hear notifications: one this server sent itself did not arrive within "+
			selfCheckTimeout.String()+"; "+ListenerFix, "channel", l.Channel)
	}
}
