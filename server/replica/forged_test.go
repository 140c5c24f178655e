package replica_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/replica"
)

// primaryPosition reads the primary's position as write answers give it.
func primaryPosition(t *testing.T) replica.LSN {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var text string
	if err := conn.QueryRow(ctx, replica.PositionSQL).Scan(&text); err != nil {
		t.Fatal(err)
	}
	pos, err := replica.ParseLSN(text)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestForgedPosition: a position ahead of anything the primary has
// written was handed out by no write; it is ignored, and the read runs on
// a replica as one without a position does, rather than on the primary.
func TestForgedPosition(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	for _, pos := range []string{
		"FFFFFFFF/FFFFFFFF",
		(primaryPosition(t) + 1<<20).String(),
		"0/10, FFFFFFFF/0",
	} {
		ts.awaitServing(t)
		resp, body := ts.do(t, "GET", "/whereami", http.Header{server.CommitLSNHeader: {pos}}, "")
		if !standby(t, resp.StatusCode, body) {
			t.Errorf("position %s, ahead of the primary: the read ran on the primary", pos)
		}
	}
	if got := ts.Replicas.PositionsIgnored(); got != 3 {
		t.Errorf("%d positions ignored, want 3", got)
	}
	if got := ts.Replicas.PrimaryReads(replica.NotReplayed); got != 0 {
		t.Errorf("%d reads went to the primary for want of a replayed position, want 0", got)
	}
	_, body := ts.admin("/metrics")
	if !strings.Contains(body, "svc_replica_positions_ignored_total 3") {
		t.Error("/metrics does not count the 3 positions ignored")
	}

	// A real one is still obeyed: the primary answers while the replica
	// has not replayed it.
	pauseReplay(t, 0)
	id, pos := ts.note(t, "real")
	if found, onStandby := ts.readNote(t, id, pos); !found || onStandby {
		t.Errorf("a real position: found %v, on the standby %v; want it found on the primary", found, onStandby)
	}
}

// TestMalformedPosition: a value that is not a position is refused, 400
// with SVC100, on a read as on a write, before anything runs.
func TestMalformedPosition(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	for _, c := range []struct{ method, path, body, value string }{
		{"GET", "/whereami", "", "yesterday"},
		{"GET", "/whereami", "", "0/10, 1/2/3"},
		{"GET", "/rpc/where_stable", "", "-1/0"},
		{"POST", "/notes", `{"body":"refused"}`, "16/B374D84G"},
	} {
		resp, body := ts.do(t, c.method, c.path, http.Header{server.CommitLSNHeader: {c.value}}, c.body)
		var e struct{ Code, Message string }
		json.Unmarshal([]byte(body), &e)
		if resp.StatusCode != http.StatusBadRequest || e.Code != "SVC100" || !strings.Contains(e.Message, server.CommitLSNHeader) {
			t.Errorf("%s %s with %q: %d %s; want 400 SVC100 naming the header", c.method, c.path, c.value, resp.StatusCode, body)
		}
	}
	resp, body := ts.do(t, "GET", "/notes?body=eq.refused", nil, "")
	if resp.StatusCode != http.StatusOK || body != "[]" {
		t.Errorf("the refused write was written: %d %s", resp.StatusCode, body)
	}
	if got := ts.Replicas.PrimaryReads(replica.NotReplayed); got != 0 {
		t.Errorf("%d refused reads were counted as sent to the primary", got)
	}
}

// TestPositionFromAnotherNode: a position another svc-serve node handed
// out, past what this node has seen of the primary, is real: this node
// reads the primary's position, finds it there, and obeys it, so the
// client reads its write.
func TestPositionFromAnotherNode(t *testing.T) {
	// Checked at start and then only when the test says: the node learns
	// nothing of the primary's progress after that but what it reads to
	// judge positions.
	stale := startServerChecking(t, time.Hour, testConfig(), nil, 0)
	other := startServer(t, testConfig(), nil, 0)
	other.awaitServing(t)
	rep := stale.Replicas.Replicas()[0]
	waitFor(t, "the stale node finds its replica healthy and past the snapshot's position", func() bool {
		stale.Replicas.Check(context.Background())
		st := rep.Status()
		return st.Healthy && st.Replayed >= stale.Replicas.Required()
	})
	pauseReplay(t, 0)

	id, pos := other.note(t, "written elsewhere")
	if found, onStandby := stale.readNote(t, id, pos); !found || onStandby {
		t.Errorf("a position from another node: found %v, on the standby %v; want it found on the primary", found, onStandby)
	}
	if stale.Replicas.PositionReads() == 0 || stale.Replicas.PositionsIgnored() != 0 {
		t.Errorf("%d reads of the primary's position, %d positions ignored; want at least one read and none ignored",
			stale.Replicas.PositionReads(), stale.Replicas.PositionsIgnored())
	}
	// Once read, the primary's position serves for the positions before
	// it without another read.
	reads := stale.Replicas.PositionReads()
	if found, _ := stale.readNote(t, id, pos); !found {
		t.Error("the second read with the position did not find the write")
	}
	if stale.Replicas.PositionReads() != reads {
		t.Error("a position already judged made another read of the primary's position")
	}
	// A forged one is still ignored, on this node too.
	resp, body := stale.do(t, "GET", "/whereami", http.Header{server.CommitLSNHeader: {(pos + 1<<30).String()}}, "")
	if !standby(t, resp.StatusCode, body) {
		t.Error("a forged position on the node with a stale view of the primary: the read ran on the primary")
	}
}
