package replica

import (
	"testing"
	"time"
)

func TestParseLSN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want LSN
		ok   bool
	}{
		{"0/0", 0, true},
		{"16/B374D848", 0x16B374D848, true},
		{"16/b374d848", 0x16B374D848, true},
		{"FFFFFFFF/FFFFFFFF", 1<<64 - 1, true},
		{"", 0, false},
		{"16", 0, false},
		{"/1", 0, false},
		{"1/", 0, false},
		{"1/2/3", 0, false},
		{"100000000/0", 0, false},
		{"0/x", 0, false},
		{"-1/0", 0, false},
		{" 1/0", 0, false},
	} {
		got, err := ParseLSN(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseLSN(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok {
			if back, _ := ParseLSN(got.String()); back != got {
				t.Errorf("%q: String %q does not read back", c.in, got.String())
			}
		}
	}
	if s := LSN(0x16B374D848).String(); s != "16/B374D848" {
		t.Errorf("String = %q", s)
	}
}

// TestLag measures a replica's lag from the primary's samples: zero when
// it has replayed the latest, else the age of the oldest it has not.
func TestLag(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1000, 0)
	h := history{keep: 10 * time.Second}
	for i, pos := range []LSN{100, 100, 200, 300} {
		h.add(t0.Add(time.Duration(i)*time.Second), pos)
	}
	now := t0.Add(4 * time.Second)
	for _, c := range []struct {
		replayed LSN
		want     time.Duration
	}{
		{300, 0},
		{400, 0},
		{299, time.Second},
		{200, time.Second},
		{150, 2 * time.Second},
		{99, 4 * time.Second},
	} {
		if got := h.lag(c.replayed, now); got != c.want {
			t.Errorf("lag(%d) = %s, want %s", c.replayed, got, c.want)
		}
	}
	// Old samples go; a replica behind all that are kept lags at least
	// as long as they reach back.
	h.add(t0.Add(12*time.Second), 400)
	if len(h.samples) != 3 || h.samples[0].pos != 200 {
		t.Errorf("samples kept: %v", h.samples)
	}
	if got := h.lag(100, t0.Add(12*time.Second)); got != 10*time.Second {
		t.Errorf("lag behind every sample = %s, want 10s", got)
	}
	if got := (&history{}).lag(1, now); got != 0 {
		t.Errorf("lag without samples = %s", got)
	}
}

// TestPick sends a read to a healthy replica that has replayed what it
// needs, the least busy one, and none otherwise.
func TestPick(t *testing.T) {
	t.Parallel()
	replica := func(name string, st Status, busy int64) *Replica {
		r := &Replica{Name: name}
		r.status.Store(&st)
		r.inFlight.Store(busy)
		return r
	}
	healthy := func(replayed LSN) Status { return Status{Healthy: true, Replayed: replayed} }
	for _, c := range []struct {
		name     string
		replicas []*Replica
		after    LSN
		required LSN
		want     string // "" for the primary
		reason   Reason
	}{
		{"none healthy", []*Replica{replica("a", Status{Reason: "down", Replayed: 500}, 0)}, 0, 0, "", NoneHealthy},
		{"healthy", []*Replica{replica("a", Status{Reason: "down"}, 0), replica("b", healthy(10), 0)}, 0, 0, "b", 0},
		{"least busy", []*Replica{replica("a", healthy(10), 3), replica("b", healthy(10), 1), replica("c", healthy(10), 2)}, 0, 0, "b", 0},
		{"replayed the write", []*Replica{replica("a", healthy(99), 0), replica("b", healthy(100), 5)}, 100, 0, "b", 0},
		{"none replayed the write", []*Replica{replica("a", healthy(99), 0)}, 100, 0, "", NotReplayed},
		{"none replayed the snapshot", []*Replica{replica("a", healthy(99), 0)}, 0, 100, "", NotReplayed},
		{"snapshot and write", []*Replica{replica("a", healthy(150), 0), replica("b", healthy(250), 0)}, 100, 200, "b", 0},
	} {
		s := &Set{replicas: c.replicas}
		s.Require(c.required)
		got := s.Pick(c.after)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: picked %s, want the primary", c.name, got.Name)
		case c.want == "" && s.PrimaryReads(c.reason) != 1:
			t.Errorf("%s: reason %s not counted", c.name, c.reason)
		case c.want != "" && (got == nil || got.Name != c.want):
			t.Errorf("%s: picked %v, want %s", c.name, got, c.want)
		case got != nil && (got.inFlight.Load() == 0 || got.Requests() != 1):
			t.Errorf("%s: the pick was not counted", c.name)
		}
	}

	// Among equals, in turn.
	s := &Set{replicas: []*Replica{replica("a", healthy(1), 0), replica("b", healthy(1), 0)}}
	seen := map[string]int{}
	for range 4 {
		r := s.Pick(0)
		seen[r.Name]++
		r.Done()
	}
	if seen["a"] != 2 || seen["b"] != 2 {
		t.Errorf("picks among idle equals: %v", seen)
	}
}

// TestJudge: a replica serves reads when it answers, is in recovery, has
// replayed something and lags within the bound; once found promoted it
// stays out.
func TestJudge(t *testing.T) {
	t.Parallel()
	now := time.Unix(1000, 0)
	h := &history{keep: time.Minute}
	h.add(now.Add(-5*time.Second), 100)
	h.add(now, 200)
	r := &Replica{}
	for _, c := range []struct {
		name    string
		p       probe
		err     error
		healthy bool
		reason  string
	}{
		{"caught up", probe{recovering: true, replayed: 200}, nil, true, ""},
		{"within the bound", probe{recovering: true, replayed: 150}, nil, true, ""},
		{"past the bound", probe{recovering: true, replayed: 50}, nil, false, "replay lags 5s behind the primary (db-replica-max-lag is 2s)"},
		{"nothing replayed", probe{recovering: true, noReplay: true}, nil, false, "has replayed no WAL yet"},
		{"unreachable", probe{}, errTest, false, "unreachable: test"},
		{"promoted", probe{recovering: false}, nil, false, "promoted"},
		{"promoted for good", probe{recovering: true, replayed: 200}, nil, false, "promoted"},
	} {
		st := r.judge(c.p, c.err, h, 2*time.Second, now)
		if st.Healthy != c.healthy || len(st.Reason) < len(c.reason) || st.Reason[:len(c.reason)] != c.reason {
			t.Errorf("%s: %+v, want healthy %v, reason %q", c.name, st, c.healthy, c.reason)
		}
	}
}

var errTest = testError{}

type testError struct{}

func (testError) Error() string { return "test" }
