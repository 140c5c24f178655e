package reload

import (
	"slices"
	"strings"
	"sync"
)

// Problem is something wrong with a server that it cannot mend by itself
// and that an operator must hear of beyond one log line: the admin
// server's /health lists it, with the fix, for as long as it lasts.
type Problem struct {
	// Component names what has the problem ("listener", "snapshot"); one
	// problem a component.
	Component string `json:"component"`
	// Problem says what is wrong, Fix what to do about it.
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
	// NotReady makes /ready answer 503 while the problem lasts: the
	// server cannot serve as configured (a snapshot it cannot use), as
	// opposed to one that serves but would not follow a change (a LISTEN
	// session that hears nothing).
	NotReady bool `json:"not_ready"`
}

// Health holds a server's current problems. The zero value has none; a
// nil *Health ignores what it is told.
type Health struct {
	mu       sync.Mutex
	problems map[string]Problem
}

// Set records p, replacing its component's previous problem, and reports
// whether it is news (another problem, or one the component had not).
func (h *Health) Set(p Problem) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.problems == nil {
		h.problems = map[string]Problem{}
	}
	old, had := h.problems[p.Component]
	h.problems[p.Component] = p
	return !had || old != p
}

// Clear forgets component's problem and reports whether it had one.
func (h *Health) Clear(component string) bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, had := h.problems[component]
	delete(h.problems, component)
	return had
}

// Problems lists the current problems by component.
func (h *Health) Problems() []Problem {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Problem, 0, len(h.problems))
	for _, p := range h.problems {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Problem) int { return strings.Compare(a.Component, b.Component) })
	return out
}

// NotReady returns the first problem that keeps the server from being
// ready, if any.
func (h *Health) NotReady() (Problem, bool) {
	for _, p := range h.Problems() {
		if p.NotReady {
			return p, true
		}
	}
	return Problem{}, false
}
