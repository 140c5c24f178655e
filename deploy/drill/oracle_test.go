package drill

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// after is the version the named step makes of v.
func after(t *testing.T, v *Version, name string) *Version {
	t.Helper()
	for _, s := range steps {
		if s.Name == name {
			next := v.clone()
			s.Apply(next)
			return next
		}
	}
	t.Fatalf("no step %q", name)
	return nil
}

func codes(os []outcome) []string {
	var out []string
	for _, o := range os {
		out = append(out, fmt.Sprintf("%d %s", o.status, o.code))
	}
	return out
}

// The answers the oracle derives for a request planned on one version's
// snapshot and run on another's catalog are PostgreSQL's and SVC's for
// the objects the request names.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	v0 := initialVersion()
	readName := &request{role: anon, okStatus: 200, refs: columnRefs("items", []string{"id", "name"})}
	insertLegacy := &request{role: anon, okStatus: 201, refs: []ref{{kind: refBodyColumn, rel: "items", name: "legacy"}}}
	bumpOld := &request{role: user, okStatus: 200, refs: []ref{{kind: refFunction, name: sigBumpOld}}}
	things := &request{role: anon, okStatus: 200, refs: []ref{{kind: refProfile, name: "api2"}}}
	ecstatic := &request{role: anon, okStatus: 200, refs: []ref{{kind: refLabel, name: "ecstatic"}}}
	deleteAnon := &request{role: anon, okStatus: 200, refs: []ref{{kind: refDelete}}}
	deleteUser := &request{role: user, okStatus: 200, refs: []ref{{kind: refDelete}}}

	renamed := after(t, v0, "rename column")
	dropped := after(t, v0, "drop column")
	replaced := after(t, v0, "replace function")
	withAPI2 := after(t, v0, "add exposed schema")
	withoutAPI2 := after(t, withAPI2, "drop exposed schema")
	withLabel := after(t, v0, "add enum value")
	withoutLabel := after(t, withLabel, "recreate enum")
	revoked := after(t, v0, "grant/revoke")

	for _, tc := range []struct {
		name string
		req  *request
		s, c *Version
		want []string
	}{
		{"column there", readName, v0, v0, []string{"200 "}},
		{"renamed column, old snapshot, new catalog", readName, v0, renamed, []string{"400 42703"}},
		{"renamed column, new snapshot", readName, renamed, renamed, []string{"400 42703"}},
		{"dropped body column, new snapshot", insertLegacy, dropped, dropped, []string{"400 SVC204"}},
		{"dropped body column, old snapshot, new catalog", insertLegacy, v0, dropped, []string{"400 42703"}},
		{"replaced function, old snapshot, new catalog", bumpOld, v0, replaced, []string{"404 42883"}},
		{"replaced function, new snapshot", bumpOld, replaced, replaced, []string{"404 SVC202"}},
		{"schema not exposed", things, v0, v0, []string{"406 SVC106"}},
		{"schema exposed", things, withAPI2, withAPI2, []string{"200 "}},
		{"schema dropped, old snapshot, new catalog", things, withAPI2, withoutAPI2, []string{"404 42P01"}},
		{"label added", ecstatic, withLabel, withLabel, []string{"200 "}},
		{"label before it is added", ecstatic, v0, v0, []string{"400 22P02"}},
		{"label removed, old snapshot, new catalog", ecstatic, withLabel, withoutLabel, []string{"400 22P02"}},
		{"delete revoked, anonymous", deleteAnon, revoked, revoked, []string{"401 42501"}},
		{"delete revoked, old snapshot, new catalog", deleteAnon, v0, revoked, []string{"401 42501"}},
		{"delete not granted, authenticated", deleteUser, v0, v0, []string{"403 42501"}},
		{"delete granted", deleteUser, revoked, revoked, []string{"200 "}},
	} {
		if got := codes(outcomes(tc.req, tc.s, tc.c)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// An answer is judged by the periods it overlaps on its node: the old
// version before the COMMIT, old, new or the two mixed until the node
// serves the new version, the new version only after.
func TestJudge(t *testing.T) {
	t.Parallel()
	v0 := initialVersion()
	v1 := after(t, v0, "rename column")
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	runs := []*run{
		{name: "baseline", old: v0, new: v0, start: at(0), converged: make([]time.Time, 2)},
		{name: "rename", old: v0, new: v1, start: at(1000), begin: at(1400), commit: at(1500), committed: at(1501),
			converged: []time.Time{at(1600), at(1800)}},
	}
	readName := &request{role: anon, okStatus: 200, refs: columnRefs("items", []string{"id", "name"}),
		check: func([]byte, *Version) error { return nil }}
	bump := &request{role: anon, okStatus: 200, volatile: true, refs: []ref{{kind: refFunction, name: sigBumpOld}},
		check: func([]byte, *Version) error { return nil }}
	for _, tc := range []struct {
		name           string
		req            *request
		node, sent     int
		status         int
		code           string
		want           verdict
		wantRun        int
		wantInWindow   bool
		answeredWithin int
	}{
		{"old column before the commit", readName, 0, 1200, 200, "", right, 1, false, 5},
		{"renamed column refused before the commit", readName, 0, 1200, 400, "42703", wrong, 1, false, 5},
		{"old column in the window", readName, 0, 1550, 200, "", right, 1, true, 5},
		{"renamed column refused in the window", readName, 0, 1550, 400, "42703", right, 1, true, 5},
		{"old column after node A converged", readName, 0, 1700, 200, "", wrong, 1, false, 5},
		{"old column while node B has not", readName, 1, 1700, 200, "", right, 1, true, 5},
		{"a request in flight at the commit", readName, 0, 1490, 400, "42703", right, 1, true, 20},
		{"500 in the window", readName, 0, 1550, 500, "XX000", wrong, 1, true, 5},
		{"503 SVC004 for a VOLATILE call in the window", bump, 0, 1550, 503, "SVC004", explained, 1, true, 5},
		{"503 SVC004 outside a window", bump, 0, 1100, 503, "SVC004", wrong, 1, false, 5},
		{"503 SVC004 for a read", readName, 0, 1550, 503, "SVC004", wrong, 1, true, 5},
	} {
		a := &answer{req: tc.req, node: tc.node, sent: at(tc.sent), done: at(tc.sent + tc.answeredWithin),
			status: tc.status, code: tc.code}
		j := judge(a, runs)
		if j.verdict != tc.want || j.run != tc.wantRun || j.inWindow != tc.wantInWindow {
			t.Errorf("%s: verdict %d run %d in window %v (%s), want %d run %d in window %v",
				tc.name, j.verdict, j.run, j.inWindow, j.reason, tc.want, tc.wantRun, tc.wantInWindow)
		}
	}
}

// A STABLE function's read of api.items in flight when a step rewriting
// the table commits may find it empty, as PostgreSQL answers; no other
// read, and no read at another time, may.
func TestRewriteSeenEmpty(t *testing.T) {
	t.Parallel()
	v0 := initialVersion()
	v1 := after(t, v0, "change column type")
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	runs := func(rewrites bool) []*run {
		return []*run{
			{name: "baseline", old: v0, new: v0, start: at(0), converged: make([]time.Time, 1)},
			{name: "retype", old: v0, new: v1, start: at(1000), begin: at(1400), commit: at(1500), committed: at(1501),
				converged: []time.Time{at(1600)}, rewrites: rewrites},
		}
	}
	count := &request{role: anon, okStatus: 200, emptyRead: "0", check: func(b []byte, _ *Version) error { return checkCount(b) }}
	for _, tc := range []struct {
		name     string
		rewrites bool
		sent     int
		want     verdict
	}{
		{"in flight at a rewrite's commit", true, 1495, right},
		{"sent after the commit", true, 1550, wrong},
		{"in flight at a commit that rewrites nothing", false, 1495, wrong},
	} {
		a := &answer{req: count, sent: at(tc.sent), done: at(tc.sent + 20), status: 200, body: []byte("0")}
		if j := judge(a, runs(tc.rewrites)); j.verdict != tc.want {
			t.Errorf("%s: verdict %d (%s), want %d", tc.name, j.verdict, j.reason, tc.want)
		}
	}
}

// A call of a function whose result type a step changes (the arguments
// staying): in the window the old result, the new one and 503 SVC004 are
// right, and a row of the new result answered as the old value, the
// issue's stale answer, never is; outside the window a 503 is wrong.
func TestReshapedFunction(t *testing.T) {
	t.Parallel()
	v0 := initialVersion()
	v1 := after(t, v0, "change function return type")
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	runs := []*run{
		{name: "baseline", old: v0, new: v0, start: at(0), converged: make([]time.Time, 1)},
		{name: "reshape", old: v0, new: v1, start: at(1000), begin: at(1400), commit: at(1500), committed: at(1501),
			converged: []time.Time{at(1600)}},
	}
	total := &request{role: anon, okStatus: 200, reshaped: true,
		check: func(b []byte, c *Version) error { return checkTotal(b, 3, c) }}
	for _, tc := range []struct {
		name   string
		sent   int
		status int
		code   string
		body   string
		want   verdict
	}{
		{"the value before the commit", 1200, 200, "", "6", right},
		{"the table before the commit", 1200, 200, "", `[{"total":6,"tag":"x"}, {"total":6,"tag":"y"}]`, wrong},
		{"the value in the window", 1550, 200, "", "6", right},
		{"the table in the window", 1550, 200, "", `[{"total":6,"tag":"x"}, {"total":6,"tag":"y"}]`, right},
		{"one row as the value in the window", 1550, 200, "", `{"total":6,"tag":"y"}`, wrong},
		{"refused in the window", 1550, 503, "SVC004", "", explained},
		{"refused after the node converged", 1700, 503, "SVC004", "", wrong},
		{"the value after the node converged", 1700, 200, "", "6", wrong},
	} {
		a := &answer{req: total, sent: at(tc.sent), done: at(tc.sent + 5), status: tc.status, code: tc.code, body: []byte(tc.body)}
		if j := judge(a, runs); j.verdict != tc.want {
			t.Errorf("%s: verdict %d (%s), want %d", tc.name, j.verdict, j.reason, tc.want)
		}
	}
}
