package drill

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// convergenceLimit bounds the wait for every node to serve a step; a
// step past it is reported as not converged (the bound the issue sets
// is form.convergenceBound, judged afterwards).
const convergenceLimit = 10 * time.Second

// migrate runs step s on top under w's load: the load goes on for f.pre,
// then the migration commits, its actions tell the servers, and the load
// goes on until every node serves the new version and f.post after. The
// run it returns has the times the oracle judges by, and says why when
// the step failed: a step whose migration did not commit ends the drill,
// one some node did not follow lets it go on.
func (top *topology) migrate(ctx context.Context, w *workload, f form, s Step, v *Version) *run {
	next := v.clone()
	s.Apply(next)
	next.Step = s.Name
	r := &run{name: s.Name, old: v, new: next, start: time.Now(), converged: make([]time.Time, len(top.nodes)), rewrites: s.Rewrites}
	time.Sleep(f.pre)
	r.begin = time.Now()
	// Clients learn of the new version as the migration starts, as an
	// application deployed beside it would; some still send the old
	// version's requests until every node serves the new one.
	w.phase.Store(&phase{old: v, new: next, mixed: true})
	defer w.phase.Store(&phase{old: next, new: next})
	if err := top.commitMigration(ctx, s.SQL(v), r); err != nil {
		r.failure = err.Error()
		return r
	}
	config := false
	for _, a := range s.actions() {
		if a.publish == nil {
			config = true
			if _, err := top.conn.Exec(ctx, "notify svc, 'reload config'"); err != nil {
				r.failure = "notify: " + err.Error()
				return r
			}
			continue
		}
		fp, err := top.publish(ctx, a.publish)
		if err != nil {
			r.failure = err.Error()
			return r
		}
		r.fingerprint = fp
	}
	r.told = time.Now()
	if err := top.awaitConvergence(r, config); err != nil {
		// The nodes that did not follow are judged by the new version
		// from now on, so what they answer wrongly is counted.
		r.failure = err.Error()
	}
	w.phase.Store(&phase{old: next, new: next})
	time.Sleep(f.post)
	top.awaitQuiet(150 * time.Millisecond)
	return r
}

// migrationLockTimeout bounds each lock a migration waits for, and
// migrationAttempts the times it is tried. Clients take locks in orders
// no migration can share with all of them (a read locks items, then the
// tags it embeds; an insert into tags locks tags, then the item its
// foreign key checks), so a migration locking both can close a cycle with
// a client. Waiting less than PostgreSQL's deadlock_timeout (1 s), the
// migration gives up before a client can be chosen as the deadlock's
// victim, and is tried again: what a careful migration tool does.
const (
	migrationLockTimeout = "200ms"
	migrationAttempts    = 50
)

// commitMigration runs sql in one transaction, tried again while it gives
// up on a lock (55P03) or is a deadlock's victim (40P01), and records in
// r when the commit was sent and returned.
func (top *topology) commitMigration(ctx context.Context, sql string, r *run) error {
	var err error
	for range migrationAttempts {
		if err = top.tryMigration(ctx, sql, r); err == nil || !lockConflict(err) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

func (top *topology) tryMigration(ctx context.Context, sql string, r *run) error {
	tx, err := top.conn.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if _, err := tx.Exec(ctx, "set local lock_timeout = '"+migrationLockTimeout+"';\n"+sql); err != nil {
		tx.Rollback(ctx)
		return fmt.Errorf("migration: %w", err)
	}
	r.commit = time.Now()
	if err := tx.Commit(ctx); err != nil {
		r.commit = time.Time{}
		return fmt.Errorf("commit: %w", err)
	}
	r.committed = time.Now()
	return nil
}

// lockConflict reports whether err is a lock given up on or a deadlock.
func lockConflict(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "55P03" || pgErr.Code == "40P01")
}

// awaitConvergence waits until every node has put in force, after the
// commit, a snapshot with the step's fingerprint (and, when the step
// reloads the configuration, reloaded it), and records when. A recreated
// object of the same shape leaves the fingerprint as it was, so only a
// load after the commit counts. The admin server's /snapshot must then
// agree: that fingerprint, loaded after the commit (a later reload, as a
// second notification of the step causes, may have replaced it since).
func (top *topology) awaitConvergence(r *run, config bool) error {
	deadline := time.Now().Add(convergenceLimit)
	for {
		pending := 0
		for i, n := range top.nodes {
			if !r.converged[i].IsZero() {
				continue
			}
			var snap, conf time.Time
			for _, e := range n.eventsSince(r.commit) {
				switch {
				case e.kind == "snapshot" && e.fingerprint == r.fingerprint && snap.IsZero():
					snap = e.at
				case e.kind == "config" && conf.IsZero():
					conf = e.at
				}
			}
			if snap.IsZero() || (config && conf.IsZero()) {
				pending++
				continue
			}
			if conf.After(snap) {
				snap = conf
			}
			r.converged[i] = snap
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			r.gaveUp = time.Now()
			var why []string
			for i, n := range top.nodes {
				if r.converged[i].IsZero() {
					var lines []string
					for _, e := range n.eventsSince(r.commit) {
						lines = append(lines, "    "+e.line)
					}
					why = append(why, fmt.Sprintf("%s not serving %s (with its configuration reloaded: %v) within %s; since the COMMIT it logged:\n%s",
						n.name, r.fingerprint, config, convergenceLimit, strings.Join(lines, "\n")))
				}
			}
			return fmt.Errorf("%s", strings.Join(why, "\n"))
		}
		time.Sleep(2 * time.Millisecond)
	}
	for _, n := range top.nodes {
		info, err := n.snapshot()
		switch {
		case err != nil:
			return fmt.Errorf("%s /snapshot: %v", n.name, err)
		case !strings.HasPrefix(info.Fingerprint, r.fingerprint):
			return fmt.Errorf("%s /snapshot has fingerprint %s, its log said %s", n.name, info.Fingerprint, r.fingerprint)
		case info.LoadedAt.Before(r.commit):
			return fmt.Errorf("%s /snapshot loaded at %s, before the commit (%s)", n.name,
				info.LoadedAt.Format(time.RFC3339Nano), r.commit.Format(time.RFC3339Nano))
		}
	}
	return nil
}

// awaitQuiet waits until no node has reloaded anything for d, so that a
// reload the last step caused cannot pass for one the next step caused.
func (top *topology) awaitQuiet(d time.Duration) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		last := time.Time{}
		for _, n := range top.nodes {
			if t := n.lastEvent(); t.After(last) {
				last = t
			}
		}
		if time.Since(last) >= d {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
