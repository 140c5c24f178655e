package txroute

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/logging"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/replica"
)

// CommitLSNHeader carries a WAL position of the primary (LSN, "16/B374D848")
// both ways when replicas serve reads. A write's answer carries the
// position its commit lies within; a read that sends a position back is
// served by a replica only once that replica has replayed it, and by the
// primary until then, so a client reads its own writes. A client that
// writes more than once sends back the highest it was given.
const CommitLSNHeader = "SVC-Commit-LSN"

// NewReplicas opens the replicas of cfg's db-replica-uris, nil when it
// names none. primary is the request pool, whose WAL position the
// replicas' lag is measured against. Start their checks with Start; until a
// check finds a replica healthy, the primary serves its reads.
func NewReplicas(ctx context.Context, cfg *config.Config, primary *pgxpool.Pool, log *slog.Logger) (*replica.Set, error) {
	if len(cfg.DBReplicaURIs) == 0 {
		return nil, nil
	}
	return replica.New(ctx, ReplicaOptions(cfg, primary, log))
}

// ReplicaOptions are the replica set options NewReplicas uses: each
// replica's pool is opened as the primary's is, so requests run the same
// way on both (statements, role switch, settings).
func ReplicaOptions(cfg *config.Config, primary *pgxpool.Pool, log *slog.Logger) replica.Options {
	return replica.Options{
		URIs: cfg.DBReplicaURIs,
		NewPool: func(ctx context.Context, uri string) (*pgxpool.Pool, error) {
			return dbexec.OpenPool(ctx, cfg, uri, cfg.DBReplicaPool)
		},
		Primary: primary, MaxLag: cfg.DBReplicaMaxLag, Log: log, Notice: logging.LevelNotice,
	}
}

// AwaitReplicas is the Snapshots gate (Snapshots.Gate) of a server with
// replicas: before a snapshot is put in force, the replicas are given up
// to db-replica-max-lag to replay the primary's WAL as of its loading,
// which holds the tables and functions it describes; from then on a
// replica serves reads only once it has, and only on sessions opened
// since (replica.Set.AwaitSnapshot). A reload that found nothing changed
// keeps the sessions but requires the position all the same
// (replica.Set.AwaitPosition): what its migration changed outside the
// snapshot, a policy or a function's body, is read on the replicas once
// the reload is done. A replica still behind is only skipped, so one
// stalled replica never holds a schema change back.
func AwaitReplicas(set *replica.Set, log *slog.Logger) func(ctx context.Context, changed bool) {
	return func(ctx context.Context, changed bool) {
		await := set.AwaitSnapshot
		if !changed {
			await = set.AwaitPosition
		}
		pos, behind, err := await(ctx)
		switch {
		case err != nil:
			log.Warn("could not read the primary's WAL position; the new snapshot is put in force without waiting for the replicas",
				"error", err)
		case len(behind) > 0:
			log.Warn("replicas have not replayed the new snapshot's schema yet; they serve no reads until they have",
				"replicas", strings.Join(behind, ","), "position", pos.String())
		}
	}
}

// Router runs each request's transaction on the server it belongs on:
// the primary, or a replica for a request that only reads.
type Router struct {
	Exec *dbexec.Executor
	// Replicas serve the reads they may; nil for none.
	Replicas *replica.Set
	// RollbackByDefault is set when transactions roll back unless a
	// request asks to commit (db-tx-end).
	RollbackByDefault bool
}

// Execute runs a request on the server it belongs on. Without
// replicas, that is the primary. With them, a request that only reads
// (replicaMayServe) runs on the replica Pick chooses, or on the primary
// when none is healthy and caught up; every other request runs on the
// primary, and a write's answer carries the position its commit lies
// within (CommitLSNHeader). A request is never split across servers: a
// read the chosen replica could not serve runs again, whole, on the
// primary (retryOnPrimary). A position sent back that is not one is
// refused (400, SVC100), whatever the request; one ahead of the primary
// is ignored (replica.Set.Reached).
func (s *Router) Execute(w http.ResponseWriter, r *http.Request, tx dbexec.Tx, steps []dbexec.Step) error {
	ctx := r.Context()
	if s.Replicas == nil {
		return s.Exec.Execute(ctx, tx, steps...)
	}
	after, err := readAfter(r.Header)
	if err != nil {
		return err
	}
	if !s.replicaMayServe(&tx) {
		return s.executeMarked(ctx, w, tx, steps)
	}
	if after > 0 && !s.Replicas.Reached(ctx, after) {
		// Ahead of anything the primary has written: no write answered
		// it, and obeying it would put the read, and every read sent
		// with it, on the primary for good.
		after = 0
	}
	rep := s.Replicas.Pick(after)
	if rep == nil {
		return s.Exec.Execute(ctx, tx, steps...)
	}
	run := replicaRun{rep: rep, after: after}
	tx.Replica = rep
	err = s.Exec.Execute(ctx, tx, run.wrap(steps)...)
	rep.Done()
	switch {
	case run.behind:
		s.Replicas.Rerouted(replica.Behind)
	case err != nil && run.rows == 0 && ctx.Err() == nil && retryOnPrimary(err):
		if replicaDown(err) {
			rep.Failed(err)
		}
		s.Replicas.Rerouted(replica.Unavailable)
	default:
		return err
	}
	tx.Replica = nil
	return s.Exec.Execute(ctx, tx, steps...)
}

// replicaMayServe reports whether a replica may serve tx: a request that
// only reads (a relation's GET or HEAD, a call of a function that is not
// VOLATILE), that does not ask to commit where transactions otherwise
// roll back (Prefer: tx=commit: the caller expects to change something),
// and does not run at the serializable level, which a standby refuses.
func (s *Router) replicaMayServe(tx *dbexec.Tx) bool {
	if !tx.Reads || tx.Isolation == "serializable" {
		return false
	}
	return tx.Rollback || !s.RollbackByDefault
}

// executeMarked runs a request on the primary; when it may commit a
// change, the primary's WAL position is read right after the commit, in
// the round trip that commits, and answered in CommitLSNHeader. The
// transaction is then an explicit one, ending with a COMMIT statement
// among the steps, since the position must be read after it.
func (s *Router) executeMarked(ctx context.Context, w http.ResponseWriter, tx dbexec.Tx, steps []dbexec.Step) error {
	if tx.ReadOnly || tx.Rollback {
		return s.Exec.Execute(ctx, tx, steps...)
	}
	var pos string
	mark := dbexec.Step{Stmt: query.Statement{SQL: replica.PositionSQL}, Row: dbexec.ScanOne(&pos)}
	tx.Mark = &mark
	if tx.Check == nil && tx.Next == nil {
		steps = append(steps[:len(steps):len(steps)], dbexec.Step{Stmt: query.Statement{SQL: "commit"}, Row: noRows}, mark)
	}
	err := s.Exec.Execute(ctx, tx, steps...)
	if err == nil && pos != "" {
		w.Header().Set(CommitLSNHeader, pos)
		if p, perr := replica.ParseLSN(pos); perr == nil {
			s.Replicas.HandedOut(p)
		}
	}
	return err
}

// noRows reads the rows of a statement that returns none.
func noRows([][]byte) error { return nil }

// readAfter reads the positions a request sends in CommitLSNHeader and
// returns the highest, 0 when there is none. An empty item is none; any
// other that is not a position is refused with SVC100.
func readAfter(h http.Header) (replica.LSN, error) {
	var after replica.LSN
	for _, v := range h.Values(CommitLSNHeader) {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			pos, err := replica.ParseLSN(item)
			if err != nil {
				return 0, apierr.InvalidCommitLSN(CommitLSNHeader, item)
			}
			after = max(after, pos)
		}
	}
	return after, nil
}

// replicaRun is one request's run on a replica.
type replicaRun struct {
	rep   *replica.Replica
	after replica.LSN
	// behind is set when the replica had not replayed after, as the
	// request found when it ran there.
	behind bool
	// rows counts the rows handed to the steps; after one, the request
	// cannot run again elsewhere.
	rows int
}

// replayedSQL reads how far a replica has replayed, in the request's own
// transaction, before its statements: what the snapshot sees there is at
// least that position.
const replayedSQL = "select pg_catalog.pg_last_wal_replay_lsn()::text"

// wrap returns the steps to run on the replica: each counts its rows,
// and hands none on when the replica turns out to be behind; a request
// that needs a position first checks that the replica has replayed it
// (the read-your-writes check, one more statement in the same round trip).
func (run *replicaRun) wrap(steps []dbexec.Step) []dbexec.Step {
	out := make([]dbexec.Step, 0, len(steps)+1)
	if run.after > 0 {
		out = append(out, dbexec.Step{Stmt: query.Statement{SQL: replayedSQL}, Row: run.checkReplayed})
	}
	for _, st := range steps {
		row := st.Row
		out = append(out, dbexec.Step{Stmt: st.Stmt, Row: func(values [][]byte) error {
			if run.behind {
				return nil
			}
			run.rows++
			return row(values)
		}})
	}
	return out
}

// checkReplayed reads the replica's replay position and decides whether
// the request may be answered from it.
func (run *replicaRun) checkReplayed(values [][]byte) error {
	if len(values) == 1 && values[0] != nil {
		if pos, err := replica.ParseLSN(string(values[0])); err == nil {
			if run.rep != nil {
				run.rep.Observed(pos)
			}
			run.behind = pos < run.after
			return nil
		}
	}
	// NULL: the server is no longer in recovery (promoted) and may hold
	// writes the primary never had.
	run.behind = true
	return nil
}

// retryOnPrimary reports whether a read that failed on a replica, before
// any row arrived, is better run again on the primary than answered with
// the error: the replica was down (replicaDown), cancelled the read for
// a conflict with the WAL it replays (40001), which the primary has not,
// or ran it on a session that knew objects a migration replaced since
// (SVC004; the session is closed).
func retryOnPrimary(err error) bool {
	var e *apierr.Error
	return replicaDown(err) || errors.As(err, &e) && (e.Code == "40001" || e.Code == "SVC004")
}

// replicaDown reports whether err says the replica could not be reached,
// or is shutting down or starting up (SQLSTATE class 57P).
func replicaDown(err error) bool {
	var e *apierr.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "SVC000", "SVC001", "57P01", "57P02", "57P03": // SVC's codes are spelt so under any naming
		return true
	}
	return false
}
