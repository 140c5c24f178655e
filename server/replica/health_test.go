package replica_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/replica"
	"github.com/svc-dev/svc/sql/pgtest"
)

// TestReplicaDownAndBack: while its one replica is down, a server answers
// every read from the primary, without an error; once the replica is
// back, reads go to it again.
func TestReplicaDownAndBack(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 1)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	resp, body := ts.do(t, "GET", "/whereami", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Fatal("the healthy replica did not serve the read")
	}

	standby1 := fixture.set.Standbys[1]
	standby1.Halt()
	halted := true
	t.Cleanup(func() {
		if !halted {
			return
		}
		if err := standby1.Resume(context.Background()); err != nil {
			t.Log("resume:", err)
		}
	})
	// The pool's connections are broken now; the first read meets one.
	for i := range 5 {
		resp, body := ts.do(t, "GET", "/whereami", nil, "")
		if standby(t, resp.StatusCode, body) {
			t.Fatalf("read %d while the replica is down ran on a standby", i)
		}
	}
	waitFor(t, "the check finds the replica down", func() bool {
		st := rep.Status()
		return !st.Healthy && strings.HasPrefix(st.Reason, "unreachable")
	})
	if code, _ := ts.admin("/ready"); code != http.StatusOK {
		t.Errorf("/ready with the replica down: %d, want 200 (it is about the primary)", code)
	}
	if !strings.Contains(ts.log.String(), "replica not serving reads") {
		t.Errorf("the log does not say the replica stopped serving reads:\n%s", ts.log)
	}

	if err := standby1.Resume(context.Background()); err != nil {
		t.Fatal(err)
	}
	halted = false
	waitFor(t, "the replica is back", func() bool { return rep.Status().Healthy })
	resp, body = ts.do(t, "GET", "/whereami", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Error("the replica back up does not serve reads")
	}
}

// TestReplicaPromoted: a replica promoted out of recovery serves no more
// reads, even while it answers and is not behind: it may take writes the
// primary never sees.
func TestReplicaPromoted(t *testing.T) {
	ctx := context.Background()
	extra, err := pgtest.StartStandby(ctx, fixture.set.Primary, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Stop()
	cfg := testConfig()
	cfg.DBReplicaURIs = []string{dbURI(extra, "authenticator", "replicas")}
	ts := startServer(t, cfg, nil)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	resp, body := ts.do(t, "GET", "/whereami", nil, "")
	if !standby(t, resp.StatusCode, body) {
		t.Fatal("the healthy replica did not serve the read")
	}

	if err := extra.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the check finds the replica promoted", rep.Promoted)
	for range 3 {
		resp, body := ts.do(t, "GET", "/whereami", nil, "")
		if standby(t, resp.StatusCode, body) {
			t.Fatal("a read ran on a standby")
		}
	}
	if got := ts.Replicas.Replicas()[0].Requests(); got != 1 {
		t.Errorf("the promoted replica served %d reads in all, want the one before", got)
	}
	time.Sleep(3 * checkInterval)
	if st := rep.Status(); st.Healthy || !strings.HasPrefix(st.Reason, "promoted") {
		t.Errorf("promoted replica's status: %+v", st)
	}
	if n := ts.Replicas.PrimaryReads(replica.NoneHealthy); n < 3 {
		t.Errorf("primary reads for want of a healthy replica: %d, want at least 3", n)
	}
}
