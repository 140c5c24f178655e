package drill

import (
	"context"
	"fmt"
	"strings"
	"time"
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
	r := &run{name: s.Name, old: v, new: next, start: time.Now(), converged: make([]time.Time, len(top.nodes))}
	time.Sleep(f.pre)
	r.begin = time.Now()
	// Clients learn of the new version as the migration starts, as an
	// application deployed beside it would; some still send the old
	// version's requests until every node serves the new one.
	w.phase.Store(&phase{old: v, new: next, mixed: true})
	defer w.phase.Store(&phase{old: next, new: next})
	tx, err := top.conn.Begin(ctx)
	if err != nil {
		r.failure = "begin: " + err.Error()
		return r
	}
	if _, err := tx.Exec(ctx, s.SQL(v)); err != nil {
		tx.Rollback(ctx)
		r.failure = "migration: " + err.Error()
		return r
	}
	r.commit = time.Now()
	if err := tx.Commit(ctx); err != nil {
		r.failure = "commit: " + err.Error()
		return r
	}
	r.committed = time.Now()
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
