package drill

import (
	"fmt"
	"strings"
	"time"
)

// The oracle decides, for every answer, whether it is one the schema in
// force allows.
//
// A server plans a request with its snapshot (version s) and PostgreSQL
// runs the statement on its catalog (version c). Outside a migration both
// are the version in force. From a migration's COMMIT until a node serves
// the new snapshot, the node may answer as the old version (s = c = old),
// as the new one (s = c = new), or with a statement planned on the old
// snapshot meeting the new catalog (s = old, c = new). For each request
// the oracle knows the objects it names (refs); whichever of them s lacks
// is refused by the server as PostgreSQL would refuse it (the codes in
// planError), else whichever c lacks is refused by PostgreSQL itself
// (execError), else the request succeeds and its body is checked against
// c. Anything else is wrong; in particular a 500 always is, and so is a
// 503 unless it is the one answer a server may give for a VOLATILE call
// that met a stale catalog (SVC004, during a migration).

// outcome is one allowed answer: an error's status and code, or a
// success (code "") whose body is checked against the catalog c.
type outcome struct {
	status int
	code   string
	c      *Version
}

// outcomes are the answers to r from a server planning with s against
// the catalog c.
func outcomes(r *request, s, c *Version) []outcome {
	var errs []outcome
	for _, f := range r.refs {
		if o, failed := planError(f, r.role, s); failed {
			errs = append(errs, o)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, f := range r.refs {
		if o, failed := execError(f, r.role, c); failed {
			errs = append(errs, o)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return []outcome{{status: r.okStatus, c: c}}
}

// privilegeError is PostgreSQL's insufficient_privilege, which SVC
// answers 401 for the anonymous role and 403 for a token's.
func privilegeError(r role) outcome {
	if r == anon {
		return outcome{status: 401, code: "42501"}
	}
	return outcome{status: 403, code: "42501"}
}

// planError is how a server refuses a request naming f when its snapshot
// is s: SVC's codes, or the SQLSTATE PostgreSQL would give, as the
// server answers from the snapshot alone (docs/errors.md).
func planError(f ref, r role, s *Version) (outcome, bool) {
	switch f.kind {
	case refProfile:
		return outcome{status: 406, code: "SVC106"}, !s.Api2
	case refColumn:
		return outcome{status: 400, code: "42703"}, !s.hasColumn(f.rel, f.name)
	case refBodyColumn:
		return outcome{status: 400, code: "SVC204"}, !s.hasColumn(f.rel, f.name)
	case refFunction:
		return outcome{status: 404, code: "SVC202"}, !s.hasFunction(f.name)
	case refDelete:
		return privilegeError(r), !s.canDelete(r)
	}
	// A label is PostgreSQL's to check.
	return outcome{}, false
}

// execError is how PostgreSQL refuses a statement naming f when its
// catalog is c:
//   - a schema dropped: the relation in it does not exist, 42P01;
//   - a column dropped or renamed: 42703;
//   - a function whose signature changed: 42883 (undefined function);
//   - an enum label removed, given as a value: 22P02 (invalid text
//     representation of the enum);
//   - a privilege revoked: 42501.
func execError(f ref, r role, c *Version) (outcome, bool) {
	switch f.kind {
	case refProfile:
		return outcome{status: 404, code: "42P01"}, !c.Api2
	case refColumn, refBodyColumn:
		return outcome{status: 400, code: "42703"}, !c.hasColumn(f.rel, f.name)
	case refFunction:
		return outcome{status: 404, code: "42883"}, !c.hasFunction(f.name)
	case refLabel:
		return outcome{status: 400, code: "22P02"}, !containsLabel(c, f.name)
	case refDelete:
		return privilegeError(r), !c.canDelete(r)
	}
	return outcome{}, false
}

func containsLabel(c *Version, l string) bool {
	for _, x := range c.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// run is one period of the drill: the baseline (no migration) or a step,
// with the times the oracle reads.
type run struct {
	name     string
	old, new *Version
	// start is when the period's requests begin; begin, commit and
	// committed bracket the migration's transaction.
	start, begin, commit, committed time.Time
	// told is when the step's last action (publishing, notifying)
	// returned; a node may be serving the new version already, since
	// publish notifies as it commits, before the command exits.
	told time.Time
	// converged is, per node, when it served the new version (zero:
	// never seen).
	converged []time.Time
	// gaveUp is when the drill stopped waiting for the nodes that had
	// not converged, if any.
	gaveUp time.Time
	// fingerprint is the snapshot the step published.
	fingerprint string
	// failure says why the step did not complete, if it did not.
	failure string
	// rewrites is the step's Rewrites.
	rewrites bool
}

// migration reports whether r is a step that committed, rather than the
// baseline or a step that failed before its commit.
func (r *run) migration() bool { return !r.commit.IsZero() }

// windowEnd is when node n served r's new version. For a node the drill
// gave up waiting for, it is when the drill gave up: from then on the node
// is held to the new version like the others.
func (r *run) windowEnd(n int) time.Time {
	if t := r.converged[n]; !t.IsZero() {
		return t
	}
	if !r.gaveUp.IsZero() {
		return r.gaveUp
	}
	return time.Unix(1<<40, 0)
}

// verdict is what the oracle says of an answer.
type verdict int

const (
	right verdict = iota
	wrong
	// explained is a 503 the oracle accepts, counted apart.
	explained
)

// judgement is an answer judged.
type judgement struct {
	a        *answer
	run      int // the period the request was sent in
	verdict  verdict
	reason   string
	inWindow bool
}

// judge decides a's verdict from the periods it overlapped on its node:
// the stable version before a step's COMMIT, the step's window from its
// COMMIT until the node served the new version, the new version after.
func judge(a *answer, runs []*run) judgement {
	j := judgement{a: a}
	for i, p := range runs {
		if !a.sent.Before(p.start) {
			j.run = i
		}
	}
	var allowed []outcome
	overlaps := func(from, to time.Time) bool { return a.sent.Before(to) && !a.done.Before(from) }
	for i, p := range runs {
		stableFrom := time.Time{}
		if p.migration() {
			stableFrom = p.windowEnd(a.node)
			if overlaps(p.commit, stableFrom) {
				j.inWindow = true
				allowed = append(allowed, outcomes(a.req, p.old, p.old)...)
				allowed = append(allowed, outcomes(a.req, p.new, p.new)...)
				allowed = append(allowed, outcomes(a.req, p.old, p.new)...)
			}
		}
		stableTo := time.Unix(1<<40, 0)
		if i+1 < len(runs) && runs[i+1].migration() {
			stableTo = runs[i+1].commit
		}
		if overlaps(stableFrom, stableTo) {
			allowed = append(allowed, outcomes(a.req, p.new, p.new)...)
		}
	}
	j.verdict, j.reason = decide(a, allowed, j.inWindow)
	if j.verdict == wrong && seesRewriteEmpty(a, runs) {
		j.verdict, j.reason = right, ""
	}
	return j
}

// seesRewriteEmpty reports whether a is a STABLE function's read of
// api.items answered as if the table were empty, by a statement in flight
// when a step rewriting the table committed: PostgreSQL's own answer
// (Step.Rewrites), which a fresh request would not get.
func seesRewriteEmpty(a *answer, runs []*run) bool {
	if a.req.emptyRead == "" || a.status != 200 || strings.TrimSpace(string(a.body)) != a.req.emptyRead {
		return false
	}
	for _, p := range runs {
		if p.rewrites && p.migration() && a.sent.Before(p.committed) && !a.done.Before(p.commit) {
			return true
		}
	}
	return false
}

func decide(a *answer, allowed []outcome, inWindow bool) (verdict, string) {
	switch {
	case a.err != nil:
		return wrong, "no answer: " + a.err.Error()
	case a.status == 500:
		return wrong, "500 is never right"
	case a.status == 503:
		if a.code == "SVC004" && a.req.volatile && inWindow {
			return explained, "a VOLATILE call met a stale catalog during the migration and was not retried"
		}
		if a.code == "SVC004" && a.req.reshaped && inWindow {
			return explained, "a call of a function whose result type changed was refused until the node reloaded"
		}
		return wrong, "503 " + a.code + " not explained by a migration"
	}
	var expected []string
	var lastErr error
	for _, o := range allowed {
		if o.code == "" {
			expected = append(expected, fmt.Sprint(o.status))
			if a.status == o.status {
				if lastErr = a.req.check(a.body, o.c); lastErr == nil {
					return right, ""
				}
			}
			continue
		}
		expected = append(expected, fmt.Sprintf("%d %s", o.status, o.code))
		if a.status == o.status && a.code == o.code {
			return right, ""
		}
	}
	if lastErr != nil {
		return wrong, "body: " + lastErr.Error()
	}
	return wrong, "expected " + strings.Join(dedupe(expected), " or ")
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
