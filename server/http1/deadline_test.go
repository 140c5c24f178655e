package http1

import (
	"net"
	"testing"
	"time"
)

// deadlineConn records the read deadlines set on it.
type deadlineConn struct {
	net.Conn
	set []time.Time
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.set = append(c.set, t)
	return c.Conn.SetReadDeadline(t)
}

// TestReadDeadlineSlack proves readDeadlineAfter moves the read deadline
// only when the one in force falls outside [t+d, t+d+slack], and then to
// t+d+slack; that a deadline set by other means (the watcher's) is never
// mistaken for one in that span; and that a zero timeout clears it once.
func TestReadDeadlineSlack(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	dc := &deadlineConn{Conn: a}
	c := &conn{rwc: dc}
	const d = 60 * time.Second
	slack := deadlineSlack(d)
	if slack != time.Second {
		t.Fatalf("slack of %v: %v, want 1s", d, slack)
	}
	if s := deadlineSlack(160 * time.Millisecond); s != 10*time.Millisecond {
		t.Fatalf("slack of 160ms: %v, want 10ms", s)
	}
	t0 := time.Now()
	steps := []struct {
		name string
		at   time.Time
		d    time.Duration
		want time.Time // zero: left as it was
	}{
		{"first", t0, d, t0.Add(d + slack)},
		{"within the slack", t0.Add(slack / 2), d, time.Time{}},
		{"at the slack's end", t0.Add(slack), d, time.Time{}},
		{"past it", t0.Add(slack + time.Millisecond), d, t0.Add(slack + time.Millisecond + d + slack)},
		{"a shorter timeout", t0.Add(slack + time.Millisecond), d / 2, t0.Add(slack + time.Millisecond + d/2 + deadlineSlack(d/2))},
	}
	for _, s := range steps {
		n := len(dc.set)
		c.readDeadlineAfter(s.at, s.d)
		switch {
		case s.want.IsZero() && len(dc.set) != n:
			t.Errorf("%s: set %v, want the deadline left as it was", s.name, dc.set[n:])
		case !s.want.IsZero() && (len(dc.set) != n+1 || !dc.set[n].Equal(s.want)):
			t.Errorf("%s: set %v, want %v", s.name, dc.set[n:], s.want)
		}
	}

	// The watcher's deadline (aLongTimeAgo, then none) goes through
	// setReadDeadline, so the next wait sets its own.
	c.setReadDeadline(aLongTimeAgo)
	n := len(dc.set)
	c.readDeadlineAfter(time.Now(), d)
	if len(dc.set) != n+1 || !dc.set[n].After(time.Now()) {
		t.Errorf("after the watcher's deadline: set %v, want one in the future", dc.set[n:])
	}
	c.readDeadlineAfter(time.Now(), 0)
	c.readDeadlineAfter(time.Now(), 0)
	if got := dc.set[n+1:]; len(got) != 1 || !got[0].IsZero() {
		t.Errorf("two waits without a timeout: set %v, want the deadline cleared once", got)
	}
}
