package replica

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Replica is one standby: the pool requests run on and what its last
// check found.
type Replica struct {
	// Name is host:port, without credentials, for logs and metrics.
	Name string
	// Pool is where the reads sent to this replica run.
	Pool *pgxpool.Pool

	status atomic.Pointer[Status]
	// promoted is set for good once a check finds the standby out of
	// recovery (see the package comment).
	promoted atomic.Bool
	inFlight atomic.Int64
	requests atomic.Uint64

	// check is the replica's own connection for checks, apart from the
	// pool so that a pool busy with requests does not make the replica
	// look unreachable; nil until the first check, or after one failed.
	checkMu   sync.Mutex
	check     *pgx.Conn
	checkConf *pgx.ConnConfig
}

// Status is what the last check of a replica found.
type Status struct {
	// Healthy replicas serve reads; Reason says why one does not.
	Healthy bool
	Reason  string
	// Replayed is the WAL position the replica had replayed.
	Replayed LSN
	// Lag is how long ago the primary had flushed WAL the replica had not
	// replayed yet; 0 when it had replayed all the primary had flushed.
	// LagBytes is how much WAL that was, as of the primary's last sample.
	Lag      time.Duration
	LagBytes uint64
	// At is when the check ran.
	At time.Time
}

// unreachable starts the reason of a replica that did not answer.
const unreachable = "unreachable: "

// unchecked is a replica's status before its first check: not used.
var unchecked = Status{Reason: "not checked yet"}

func newReplica(pool *pgxpool.Pool) *Replica {
	cc := pool.Config().ConnConfig
	// The check connection is opened as the pool's are (host, role,
	// session name), without the pool's AfterConnect, which readies
	// connections for requests.
	r := &Replica{Name: net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), Pool: pool, checkConf: cc.Copy()}
	r.status.Store(&unchecked)
	return r
}

// Status returns what the last check found.
func (r *Replica) Status() Status { return *r.status.Load() }

// Promoted reports whether the replica was found out of recovery.
func (r *Replica) Promoted() bool { return r.promoted.Load() }

// Requests counts the reads Pick sent to r.
func (r *Replica) Requests() uint64 { return r.requests.Load() }

// Done ends a request Pick sent to r.
func (r *Replica) Done() { r.inFlight.Add(-1) }

// Failed marks r unhealthy until its next check, after a request on it
// failed for want of a connection: the replica may be down, and reads are
// better sent to the primary than retried here.
func (r *Replica) Failed(err error) {
	for {
		old := r.status.Load()
		if !old.Healthy {
			return
		}
		st := *old
		st.Healthy, st.Reason = false, "a request could not use it: "+err.Error()
		if r.status.CompareAndSwap(old, &st) {
			r.Pool.Reset()
			return
		}
	}
}

// Observed records a replay position a request read on r (read-your-writes
// checks it), fresher than the last check's.
func (r *Replica) Observed(replayed LSN) {
	for {
		old := r.status.Load()
		if !old.Healthy || replayed <= old.Replayed {
			return
		}
		st := *old
		st.Replayed = replayed
		// A check storing its own status meanwhile wins: try again on it.
		if r.status.CompareAndSwap(old, &st) {
			return
		}
	}
}

// probe is what one check reads on a replica.
type probe struct {
	recovering bool
	replayed   LSN
	// noReplay is set when a standby has replayed nothing (yet).
	noReplay bool
}

// probeSQL reads whether the server is still a standby and how far it has
// replayed the primary's WAL.
const probeSQL = "select pg_catalog.pg_is_in_recovery(), pg_catalog.pg_last_wal_replay_lsn()::text"

// probe reads r's state over its check connection, opening one when it
// has none.
func (r *Replica) probe(ctx context.Context) (probe, error) {
	r.checkMu.Lock()
	defer r.checkMu.Unlock()
	if r.check == nil {
		conn, err := pgx.ConnectConfig(ctx, r.checkConf)
		if err != nil {
			return probe{}, err
		}
		r.check = conn
	}
	var p probe
	var replayed *string
	err := r.check.QueryRow(ctx, probeSQL).Scan(&p.recovering, &replayed)
	if err != nil {
		r.check.Close(context.WithoutCancel(ctx))
		r.check = nil
		return probe{}, err
	}
	if replayed == nil {
		p.noReplay = true
		return p, nil
	}
	if p.replayed, err = ParseLSN(*replayed); err != nil {
		return probe{}, err
	}
	return p, nil
}

// judge turns a probe (or its error) into a status: healthy when the
// replica answered, is still a standby and lags no more than maxLag.
func (r *Replica) judge(p probe, err error, h *history, maxLag time.Duration, now time.Time) Status {
	st := Status{At: now}
	switch {
	case err != nil:
		st.Reason = unreachable + err.Error()
	case !p.recovering || r.promoted.Load():
		r.promoted.Store(true)
		st.Reason = "promoted: no longer in recovery, so it may take writes the primary does not see; not used for reads until svc-serve is restarted with the new topology"
	case p.noReplay:
		st.Reason = "has replayed no WAL yet"
	default:
		st.Replayed = p.replayed
		st.Lag = h.lag(p.replayed, now)
		if latest := h.latest(); latest > p.replayed {
			st.LagBytes = uint64(latest - p.replayed)
		}
		if st.Lag > maxLag {
			st.Reason = fmt.Sprintf("replay lags %s behind the primary (db-replica-max-lag is %s)", st.Lag.Round(time.Millisecond), maxLag)
		} else {
			st.Healthy = true
		}
	}
	return st
}

// close closes the check connection.
func (r *Replica) close() {
	r.checkMu.Lock()
	defer r.checkMu.Unlock()
	if r.check != nil {
		r.check.Close(context.Background())
		r.check = nil
	}
}
