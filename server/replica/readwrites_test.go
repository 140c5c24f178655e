package replica_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/replica"
)

// note writes a note and returns its id and the position the answer
// carried.
func (ts *testServer) note(t testing.TB, body string) (id int, pos replica.LSN) {
	t.Helper()
	resp, out := ts.do(t, "POST", "/notes?select=id", http.Header{"Prefer": {"return=representation"}}, `{"body":"`+body+`"}`)
	var rows []struct{ ID int }
	if resp.StatusCode != http.StatusCreated || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 {
		t.Fatalf("POST /notes: %d %s", resp.StatusCode, out)
	}
	pos, err := replica.ParseLSN(resp.Header.Get(server.CommitLSNHeader))
	if err != nil {
		t.Fatalf("POST /notes: %s: %v", server.CommitLSNHeader, err)
	}
	return rows[0].ID, pos
}

// readNote reads note id, sending pos (unless 0), and reports whether it
// was found and where the read ran.
func (ts *testServer) readNote(t *testing.T, id int, pos replica.LSN) (found, onStandby bool) {
	t.Helper()
	h := http.Header{}
	if pos != 0 {
		h.Set(server.CommitLSNHeader, pos.String())
	}
	resp, body := ts.do(t, "GET", "/notes_where?id=eq."+strconv.Itoa(id), h, "")
	var rows []struct{ Standby bool }
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &rows) != nil {
		t.Fatalf("GET note %d: %d %s", id, resp.StatusCode, body)
	}
	if len(rows) == 0 {
		// Nothing says where an empty answer came from; ask where this
		// server's reads go now.
		resp, body := ts.do(t, "GET", "/whereami", h, "")
		return false, standby(t, resp.StatusCode, body)
	}
	return true, rows[0].Standby
}

// TestReadYourWrites: a write answers the position of its commit; a read
// sending it back reads the write, from the replica once the replica has
// replayed it and from the primary while the replica's replay is paused.
// A read without it takes the replica's lag.
func TestReadYourWrites(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]

	id, pos := ts.note(t, "first")
	waitFor(t, "the replica replays the first note", func() bool { return rep.Status().Replayed >= pos })
	if found, onStandby := ts.readNote(t, id, pos); !found || !onStandby {
		t.Errorf("replayed write: found %v, on the standby %v; want it found on the standby", found, onStandby)
	}

	pauseReplay(t, 0)
	id, pos = ts.note(t, "second")
	if found, onStandby := ts.readNote(t, id, pos); !found || onStandby {
		t.Errorf("write not replayed, read with its position: found %v, on the standby %v; want it found on the primary", found, onStandby)
	}
	if found, onStandby := ts.readNote(t, id, 0); found || !onStandby {
		t.Errorf("write not replayed, read without a position: found %v, on the standby %v; want the standby, without it", found, onStandby)
	}
	// Two positions (from two writes): the later decides.
	resp, body := ts.do(t, "GET", "/notes_where?id=eq."+strconv.Itoa(id), http.Header{server.CommitLSNHeader: {"0/1, " + pos.String()}}, "")
	if standby(t, resp.StatusCode, body) {
		t.Error("the earlier of two positions decided")
	}

	resumeReplay(t, 0)
	waitFor(t, "the replica replays the second note", func() bool { return rep.Status().Replayed >= pos })
	if found, onStandby := ts.readNote(t, id, pos); !found || !onStandby {
		t.Errorf("write replayed after resuming: found %v, on the standby %v; want it found on the standby", found, onStandby)
	}
}

// TestReadYourWritesChecked: the position is checked on the replica too,
// in the read's own round trip, so a replica thought to have replayed it
// (as one restarted from an older point might be) does not answer: the
// primary does.
func TestReadYourWritesChecked(t *testing.T) {
	ts := startServer(t, testConfig(), nil, 0)
	ts.awaitServing(t)
	rep := ts.Replicas.Replicas()[0]
	pauseReplay(t, 0)
	id, pos := ts.note(t, "unreplayed")
	// The next check corrects what Observed claims; a read that comes
	// first meets the replica's own check.
	for ts.Replicas.PrimaryReads(replica.Behind) == 0 {
		rep.Observed(pos)
		if found, onStandby := ts.readNote(t, id, pos); !found || onStandby {
			t.Fatalf("found %v, on the standby %v; want it found on the primary", found, onStandby)
		}
	}
}

// TestWritePosition: every write that commits answers its position, those
// whose results are checked before the commit (a single object) too; one
// that rolls back answers none, nor does a read.
func TestWritePosition(t *testing.T) {
	cfg := testConfig()
	cfg.DBTxEnd = "commit-allow-override"
	ts := startServer(t, cfg, nil, 0)
	ts.awaitServing(t)
	_, first := ts.note(t, "plain")

	h := http.Header{"Prefer": {"return=representation"}, "Accept": {"application/vnd.svc.object+json"}}
	resp, body := ts.do(t, "POST", "/notes?select=id", h, `{"body":"checked"}`)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("single-object write: %d %s", resp.StatusCode, body)
	}
	checked, err := replica.ParseLSN(resp.Header.Get(server.CommitLSNHeader))
	if err != nil || checked <= first {
		t.Errorf("single-object write: position %q (%v), want one past the first write's %s", resp.Header.Get(server.CommitLSNHeader), err, first)
	}
	var row struct{ ID int }
	json.Unmarshal([]byte(body), &row)
	if found, _ := ts.readNote(t, row.ID, checked); !found {
		t.Error("the single-object write is not read back with its position")
	}

	h = http.Header{"Prefer": {"tx=rollback"}}
	resp, body = ts.do(t, "POST", "/notes", h, `{"body":"rolled back"}`)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get(server.CommitLSNHeader) != "" {
		t.Errorf("rolled-back write: %d, position %q; want 201 and none", resp.StatusCode, resp.Header.Get(server.CommitLSNHeader))
	}
	resp, _ = ts.do(t, "GET", "/notes?limit=1", nil, "")
	if resp.Header.Get(server.CommitLSNHeader) != "" {
		t.Errorf("a read answered a position: %q", resp.Header.Get(server.CommitLSNHeader))
	}
	// A refused write answers none either.
	resp, _ = ts.do(t, "POST", "/notes", nil, `{"body":null}`)
	if resp.StatusCode < 400 || resp.Header.Get(server.CommitLSNHeader) != "" {
		t.Errorf("failed write: %d, position %q", resp.StatusCode, resp.Header.Get(server.CommitLSNHeader))
	}
}
