package reload

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/logging"
)

// Listener keeps a dedicated LISTEN connection on the configured channel
// and reloads the snapshot on `reload schema`. The connection is its own
// (not pooled) because a pooled one would be handed to requests. After a
// reconnect, or a first connection that had to be retried, it reloads,
// since notifications sent while it was away are lost. Reloads run on a
// Queue, which spaces out a burst of notifications.
type Listener struct {
	URI     string
	Channel string
	// Others are channels listened to besides Channel on the same
	// connection, each with the message logged (at notice, so the default
	// log level shows it) when a notification arrives there; the
	// notification is acted on all the same (see naming.OtherChannels).
	Others    map[string]string
	Snapshots *Snapshots
	// OnConfigReload runs on `reload config` and reports whether the new
	// configuration was put in force; nil logs that it is ignored.
	OnConfigReload func(ctx context.Context) error
	// Queue runs the reloads; nil has Run make one of Snapshots and
	// OnConfigReload. A Queue given is run by its owner.
	Queue *Queue
	Log   *slog.Logger
	// MaxBackoff caps the wait between reconnection attempts.
	MaxBackoff time.Duration
	// OnConnected, when set, is told when the LISTEN connection comes up
	// (true) and when it goes down (false), e.g. for a metric.
	OnConnected func(up bool)
	// SelfCheck, when set, is the pool the listener sends itself a
	// notification on, to check that its LISTEN session hears its channel
	// (selfcheck.go): the request pool, which reaches the database as
	// db-uri does. Nil checks nothing.
	SelfCheck *pgxpool.Pool
	// SelfCheckEvery is how often the check is made again; zero is
	// selfCheckEvery.
	SelfCheckEvery time.Duration
	// OnHearing, when set, is told each check's outcome (a metric);
	// Health, when set, holds the problem while checks fail.
	OnHearing func(hears bool)
	Health    *Health
	// deaf is set while the last check failed, so that it is logged once.
	deaf atomic.Bool
}

// Run listens until ctx ends.
func (l *Listener) Run(ctx context.Context) {
	backoff := 100 * time.Millisecond
	maxBackoff := l.MaxBackoff
	if maxBackoff == 0 {
		maxBackoff = 10 * time.Second
	}
	q := l.Queue
	if q == nil {
		q = NewQueue(l.Snapshots.Refresh, l.OnConfigReload)
		go q.Run(ctx)
	}
	first := true
	for ctx.Err() == nil {
		conn, err := l.connect(ctx)
		if err != nil {
			// Notifications sent until it connects are lost, and a server
			// started while the database was away resolved its
			// configuration without the database's settings: reload once
			// connected, even the first time.
			first = false
			l.Log.Warn("LISTEN connection failed; retrying", "channel", l.Channel, "in", backoff, "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, maxBackoff)
			continue
		}
		backoff = 100 * time.Millisecond
		attrs := []any{"channel", l.Channel}
		if len(l.Others) > 0 {
			attrs = append(attrs, "also", strings.Join(slices.Sorted(maps.Keys(l.Others)), ","))
		}
		l.Log.Log(ctx, logging.LevelNotice, "listening for notifications", attrs...)
		l.connected(true)
		if !first {
			// Notifications sent while away are lost: reload both.
			if q.HasConfig() {
				q.Config()
			}
			q.Schema()
		}
		first = false
		var check *selfCheck
		checkCtx, stopCheck := context.WithCancel(ctx)
		if l.SelfCheck != nil {
			check = newSelfCheck()
			every := l.SelfCheckEvery
			if every == 0 {
				every = selfCheckEvery
			}
			go check.run(checkCtx, l.SelfCheck, l.Channel, every, func(hears bool) { l.hearing(ctx, hears) })
		}
		l.loop(ctx, conn, q, check)
		stopCheck()
		l.connected(false)
		conn.Close(context.Background())
	}
}

func (l *Listener) connected(up bool) {
	if l.OnConnected != nil {
		l.OnConnected(up)
	}
}

func (l *Listener) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := dbexec.Connect(ctx, l.URI)
	if err != nil {
		return nil, err
	}
	for _, channel := range append([]string{l.Channel}, slices.Sorted(maps.Keys(l.Others))...) {
		if _, err := conn.Exec(ctx, "listen "+pgx.Identifier{channel}.Sanitize()); err != nil {
			conn.Close(ctx)
			return nil, err
		}
	}
	return conn, nil
}

// loop handles notifications until the connection fails or ctx ends.
func (l *Listener) loop(ctx context.Context, conn *pgx.Conn, q *Queue, check *selfCheck) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() == nil {
				l.Log.Warn("LISTEN connection lost; reconnecting", "channel", l.Channel, "error", err)
			}
			return
		}
		payload := strings.TrimSpace(n.Payload)
		if check.own(payload) {
			continue // a server's check that it hears; no reload
		}
		if advice, other := l.Others[n.Channel]; other && n.Channel != l.Channel && knownPayload(payload) {
			l.Log.Log(ctx, logging.LevelNotice, "notification on another channel than this server's: "+advice,
				"channel", n.Channel, "payload", n.Payload)
		}
		switch payload {
		case "reload schema", "":
			q.Schema()
		case "reload config":
			if q.HasConfig() {
				q.Config()
			} else {
				l.Log.Warn("'reload config' received; configuration reload is not available in this build")
			}
		default:
			l.Log.Warn("unknown notification payload ignored", "channel", n.Channel, "payload", n.Payload)
		}
	}
}

// knownPayload reports whether a notification's payload asks for a reload.
func knownPayload(payload string) bool {
	return payload == "reload schema" || payload == "reload config" || payload == ""
}
