package txroute

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/config"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/server/replica"
)

// TestReadAfter reads the positions a request sends back: the highest
// counts, an empty item is none, and any other that is not a position is
// refused with SVC100.
func TestReadAfter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		values []string
		want   replica.LSN
		bad    string // the item refused; "" for none
	}{
		{nil, 0, ""},
		{[]string{"0/10"}, 0x10, ""},
		{[]string{"0/10, 1/0"}, 1 << 32, ""},
		{[]string{"1/0", "0/10"}, 1 << 32, ""},
		{[]string{"FFFFFFFF/FFFFFFFF"}, 1<<64 - 1, ""},
		{[]string{""}, 0, ""},
		{[]string{"0/10,", " , 0/20"}, 0x20, ""},
		{[]string{"0/10", "now"}, 0, "now"},
		{[]string{"0/10, 1/0/0"}, 0, "1/0/0"},
		{[]string{"100000000/0"}, 0, "100000000/0"},
		{[]string{"-1/0"}, 0, "-1/0"},
	} {
		h := http.Header{}
		for _, v := range c.values {
			h.Add(CommitLSNHeader, v)
		}
		got, err := readAfter(h)
		var e *apierr.Error
		switch {
		case c.bad == "" && (err != nil || got != c.want):
			t.Errorf("%q: %v, %v; want %v", c.values, got, err, c.want)
		case c.bad != "" && (!errors.As(err, &e) || e.Status != 400 || e.Code != "SVC100" || !strings.Contains(fmt.Sprint(e.Details), `"`+c.bad+`"`)):
			t.Errorf("%q: %v, %v; want 400 SVC100 naming %q", c.values, got, err, c.bad)
		}
	}
}

// TestReplicaMayServe: reads, unless they ask to commit where requests
// roll back, or run serializable.
func TestReplicaMayServe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		txEnd string
		tx    dbexec.Tx
		want  bool
	}{
		{"read", "commit", dbexec.Tx{Reads: true}, true},
		{"write", "commit", dbexec.Tx{}, false},
		{"read, rolled back", "rollback", dbexec.Tx{Reads: true, Rollback: true}, true},
		{"read asking to commit", "rollback-allow-override", dbexec.Tx{Reads: true}, false},
		{"read asking to roll back", "commit-allow-override", dbexec.Tx{Reads: true, Rollback: true}, true},
		{"repeatable read", "commit", dbexec.Tx{Reads: true, Isolation: "repeatable read"}, true},
		{"serializable", "commit", dbexec.Tx{Reads: true, Isolation: "serializable"}, false},
	} {
		cfg := &config.Config{DBTxEnd: c.txEnd}
		rollback, _ := cfg.TxRollback("")
		s := &Router{RollbackByDefault: rollback}
		if got := s.replicaMayServe(&c.tx); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestReplicaRunChecksPosition: a read needing a position first reads the
// replica's; one behind hands the read's rows to no one, so that it can
// run again on the primary.
func TestReplicaRunChecksPosition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		replayed []byte // nil: NULL, a server out of recovery
		behind   bool
	}{
		{"replayed", []byte("0/20"), false},
		{"past it", []byte("1/0"), false},
		{"behind", []byte("0/1F"), true},
		{"promoted", nil, true},
	} {
		run := replicaRun{after: 0x20}
		var got [][]byte
		steps := run.wrap([]dbexec.Step{{Stmt: query.Statement{SQL: "select 1"}, Row: func(v [][]byte) error { got = v; return nil }}})
		if len(steps) != 2 || steps[0].Stmt.SQL != replayedSQL {
			t.Fatalf("%s: steps %v, want the check first", c.name, steps)
		}
		steps[0].Row([][]byte{c.replayed})
		steps[1].Row([][]byte{[]byte("1")})
		if run.behind != c.behind || (got != nil) == c.behind || run.rows != len(got) {
			t.Errorf("%s: behind %v, rows handed on %v (%d counted); want behind %v", c.name, run.behind, got, run.rows, c.behind)
		}
	}
	// Without a position, no check.
	run := replicaRun{}
	if steps := run.wrap([]dbexec.Step{{Stmt: query.Statement{SQL: "select 1"}, Row: noRows}}); len(steps) != 1 {
		t.Errorf("%d steps without a position", len(steps))
	}
}

// TestRetryOnPrimary: a replica's failure to connect, its shutting down
// and its cancelling a read for a recovery conflict send the read to the
// primary, the first two marking the replica down; an error of the
// request's own does neither.
func TestRetryOnPrimary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err         error
		retry, down bool
	}{
		{apierr.ConnectionRefused(errors.New("refused")), true, true},
		{apierr.ConnectionFailed(errors.New("broken")), true, true},
		{&apierr.Error{Code: "57P01"}, true, true},
		{&apierr.Error{Code: "57P03"}, true, true},
		{&apierr.Error{Code: "40001"}, true, false},
		{&apierr.Error{Code: "42P01"}, false, false},
		{apierr.PoolTimeout(), false, false},
		{errors.New("other"), false, false},
	} {
		if retry, down := retryOnPrimary(c.err), replicaDown(c.err); retry != c.retry || down != c.down {
			t.Errorf("%v: retry %v, down %v; want %v, %v", c.err, retry, down, c.retry, c.down)
		}
	}
}
