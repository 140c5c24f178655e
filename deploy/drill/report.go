package drill

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// stats are one period's answers counted.
type stats struct {
	requests, ok, s500, wrong int
	// errors counts answers other than 2xx by "status code"; s503 counts
	// the 503s by code.
	errors, s503 map[string]int
}

func tally(runs []*run, js []judgement) []stats {
	out := make([]stats, len(runs))
	for i := range out {
		out[i] = stats{errors: map[string]int{}, s503: map[string]int{}}
	}
	for _, j := range js {
		s := &out[j.run]
		s.requests++
		a := j.a
		switch {
		case a.err != nil:
			s.errors["no answer"]++
		case a.status < 300:
			s.ok++
		default:
			s.errors[fmt.Sprintf("%d %s", a.status, a.code)]++
		}
		if a.status == 500 {
			s.s500++
		}
		if a.status == 503 {
			s.s503[a.code]++
		}
		if j.verdict == wrong {
			s.wrong++
		}
	}
	return out
}

// convergence is the time from r's COMMIT to the last node serving its
// version, or 0 when some node never did.
func (r *run) convergence() time.Duration {
	var last time.Duration
	for _, t := range r.converged {
		if t.IsZero() {
			return 0
		}
		last = max(last, t.Sub(r.commit))
	}
	return last
}

// table is the per-step report, in markdown.
func table(runs []*run, st []stats, nodes []*node) string {
	var b strings.Builder
	b.WriteString("| # | step | requests | 2xx | other answers (status code × n) | 500 | 503 | wrong | COMMIT → every node serving |\n")
	b.WriteString("|---|---|---:|---:|---|---:|---:|---:|---|\n")
	for i, r := range runs {
		s := st[i]
		conv := "n/a"
		if r.migration() {
			conv = "not converged"
			if d := r.convergence(); d > 0 {
				var per []string
				for n, t := range r.converged {
					per = append(per, fmt.Sprintf("%s %s", nodes[n].name[4:], ms(t.Sub(r.commit))))
				}
				conv = fmt.Sprintf("**%s** (published %s; %s)", ms(d), ms(r.told.Sub(r.commit)), strings.Join(per, ", "))
			}
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %s | %d | %s | %d | %s |\n", i, r.name, s.requests, s.ok,
			counts(s.errors), s.s500, count503(s.s503), s.wrong, conv)
	}
	return b.String()
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s × %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func count503(m map[string]int) string {
	total := 0
	for _, n := range m {
		total += n
	}
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, counts(m))
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

// describe is one answer with its request and timing, for the list of
// wrong answers and 503s.
func describe(j judgement, runs []*run, nodes []*node) string {
	a, r := j.a, runs[j.run]
	req := a.req
	var b strings.Builder
	fmt.Fprintf(&b, "step %q, %s, %s (%s): %s %s", r.name, nodes[a.node].name, a.client, req.role, req.method, req.path)
	if req.profile != "" {
		fmt.Fprintf(&b, " [profile %s]", req.profile)
	}
	if req.body != "" {
		fmt.Fprintf(&b, " %s", req.body)
	}
	if a.err != nil {
		fmt.Fprintf(&b, "\n    -> no answer: %v", a.err)
	} else {
		body := string(a.body)
		if len(body) > 400 {
			body = body[:400] + "..."
		}
		fmt.Fprintf(&b, "\n    -> %d %s", a.status, body)
		if a.retryAfter != "" {
			fmt.Fprintf(&b, " (Retry-After: %s)", a.retryAfter)
		}
	}
	if r.migration() {
		fmt.Fprintf(&b, "\n    sent %s after COMMIT, answered %s after", ms(a.sent.Sub(r.commit)), ms(a.done.Sub(r.commit)))
		if t := r.converged[a.node]; !t.IsZero() {
			fmt.Fprintf(&b, "; the node served the new version %s after", ms(t.Sub(r.commit)))
		}
	}
	fmt.Fprintf(&b, "\n    %s", j.reason)
	return b.String()
}

// listed describes the judgements keep selects, one example of each
// kind (step, node, request kind, answer, reason) with how many there were, up
// to limit kinds; it returns the description and the number selected.
func listed(js []judgement, runs []*run, nodes []*node, limit int, keep func(judgement) bool) (string, int) {
	type group struct {
		first judgement
		n     int
	}
	var order []string
	groups := map[string]*group{}
	total := 0
	for _, j := range js {
		if !keep(j) {
			continue
		}
		total++
		reason := j.reason
		if len(reason) > 40 {
			reason = reason[:40]
		}
		key := fmt.Sprintf("%d|%d|%s|%s|%d|%s|%s", j.run, j.a.node, j.a.req.method, j.a.req.kind, j.a.status, j.a.code, reason)
		if g := groups[key]; g != nil {
			g.n++
			continue
		}
		groups[key] = &group{first: j, n: 1}
		order = append(order, key)
	}
	var b strings.Builder
	for i, key := range order {
		if i == limit {
			fmt.Fprintf(&b, "... and %d more kinds\n", len(order)-limit)
			break
		}
		g := groups[key]
		fmt.Fprintf(&b, "[%d like this] %s\n", g.n, describe(g.first, runs, nodes))
	}
	return b.String(), total
}
