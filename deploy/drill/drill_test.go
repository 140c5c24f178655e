package drill

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/sql/pgtest"
)

var (
	full    = flag.Bool("drill.full", false, "run the full migration drill: every step, three nodes, a standby")
	bouncer = flag.Bool("drill.pgbouncer", false, "with -drill.full, run the full drill through PgBouncer only")
)

// TestMigrationDrill runs the migration drill (see the package comment
// and docs/operations.md): the short form by default, directly and
// through PgBouncer in transaction mode with SVC's defaults; the full one
// with -drill.full (through PgBouncer with -drill.pgbouncer too). It fails
// on any answer with status 500, any wrong answer, any unexplained 503,
// any step that does not converge and, in the full form, any step slower
// than the bound from COMMIT to every node serving it. The short form
// reports its times without judging them: CI machines differ too much
// for a bound to mean anything there.
func TestMigrationDrill(t *testing.T) {
	if _, err := pgtest.FindBinDir(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	forms := []form{shortForm, withBouncer(shortForm)}
	switch {
	case *full && *bouncer:
		forms = []form{withBouncer(fullForm)}
	case *full:
		forms = []form{fullForm}
	}
	for _, f := range forms {
		t.Run(strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			if f.bouncer {
				if _, err := pgtest.FindPgBouncer(); err != nil {
					if os.Getenv("CI") != "" {
						t.Fatal(err, "; .ci/run installs it")
					}
					t.Skip(err)
				}
			}
			drill(t, f)
		})
	}
}

// drill runs one form of the drill.
func drill(t *testing.T, f form) {
	ctx := context.Background()
	top, stop, err := start(ctx, f, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	v := initialVersion()
	w := newWorkload(top.nodes, token(), v, f.pause)
	runs := []*run{{name: "baseline (" + v.Step + ")", old: v, new: v, start: time.Now(), converged: make([]time.Time, len(top.nodes))}}
	w.start(f.readers, f.writers)
	time.Sleep(f.baseline)
	var failures []string
	for _, s := range steps {
		if f.short && !s.Short {
			continue
		}
		r := top.migrate(ctx, w, f, s, v)
		runs = append(runs, r)
		if r.failure != "" {
			failures = append(failures, fmt.Sprintf("step %q: %s", r.name, r.failure))
		}
		if !r.migration() {
			break // the version in force is unknown: the migration did not commit
		}
		v = r.new
	}
	w.halt()

	js := make([]judgement, len(w.answers))
	for i, a := range w.answers {
		js[i] = judge(a, runs)
	}
	st := tally(runs, js)
	t.Logf("migration drill, %s form: %s\n\n%s", f.name, describeTopology(top), table(runs, st, top.nodes))
	if top.standby != nil {
		t.Logf("reads the standby served: %.0f", top.nodes[0].metric("svc_replica_requests_total"))
	}
	if list, n := listed(js, runs, top.nodes, 40, func(j judgement) bool { return j.a.status == 503 }); n > 0 {
		t.Logf("%d answers 503:\n%s", n, list)
	}
	if list, n := listed(js, runs, top.nodes, 40, func(j judgement) bool { return j.verdict == wrong }); n > 0 {
		t.Errorf("%d wrong answers:\n%s", n, list)
	}
	for i, r := range runs {
		if st[i].s500 > 0 {
			t.Errorf("step %q: %d answers with status 500", r.name, st[i].s500)
		}
		if d := r.convergence(); f.convergenceBound > 0 && d > f.convergenceBound {
			t.Errorf("step %q: %s from COMMIT to every node serving it, over the bound of %s", r.name, ms(d), ms(f.convergenceBound))
		}
	}
	for _, msg := range failures {
		t.Error(msg)
	}
	if len(runs) == 1 || slices.ContainsFunc(runs[1:], func(r *run) bool { return !r.migration() }) {
		for _, n := range top.nodes {
			t.Logf("%s log:\n%s", n.name, n.logTail())
		}
	}
}

func describeTopology(top *topology) string {
	s := "one primary"
	if top.standby != nil {
		s += " with a streaming standby"
	}
	for _, n := range top.nodes {
		s += fmt.Sprintf("; %s: %s", n.name, n.mode)
	}
	return s
}
