package dbexec_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// TestLostCancelRollsBack: a request whose client leaves just as its
// statements go out, so that the cancel request reaches the backend
// before they do (PostgreSQL drops a cancel that arrives while the backend
// waits for its next message), still does not commit. The backend runs the
// write, but SVC asks again until the statements answer (abandon.go), and
// the next cancel request ends the transaction before the Sync commits it.
//
// The proxy forces the interleaving: it holds what the session sends once
// the request's statements are written, the test cancels the request
// then, and the proxy lets the statements through, as the network would
// have, only once a cancel request has ended: PostgreSQL has signalled the
// backend by then, while it still waited for them. Execute returns only
// once the backend has stopped.
func TestLostCancelRollsBack(t *testing.T) {
	cases := []struct {
		name    string
		prepare bool
		// warm runs the call once beforehand on the same connection, so
		// that the statements are prepared and the request takes the
		// prepared path (runPrepared) rather than pgx's pipeline.
		warm      bool
		isolation string // non-empty: an explicit transaction
	}{
		{"pipeline preparing", true, false, ""},
		{"pipeline unprepared", false, false, ""},
		{"pipeline explicit transaction", true, false, "repeatable read"},
		{"prepared path", true, true, ""},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startHoldProxy(t)
			cfg := *fixture.cfg
			u, _ := url.Parse(fixture.authURI)
			u.Host = p.ln.Addr().String()
			cfg.DBURI = u.String()
			cfg.DBPool = 1
			pool, err := dbexec.NewPool(t.Context(), &cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			exec := &dbexec.Executor{Names: apierr.SVCNaming, Pool: pool, AcquireTimeout: 10 * time.Second, Prepare: tc.prepare, CancelTimeout: dbexec.TestCancelTimeout}
			tx := dbexec.Tx{Role: "web_anon", SearchPath: `"test"`, Method: "POST", Path: "/rpc/log_then_nap",
				Isolation: tc.isolation}
			call := func(ctx context.Context, name string, seconds string) error {
				return exec.Execute(ctx, tx, dbexec.Step{
					Stmt: query.Statement{SQL: "select test.log_then_nap($1, $2)", Args: []any{name, seconds}},
					Row:  func([][]byte) error { return nil },
				})
			}
			if tc.warm {
				if err := call(t.Context(), fmt.Sprintf("lost-cancel-warm-%d", i), "0"); err != nil {
					t.Fatal(err)
				}
			}
			conn, err := pool.Acquire(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			pid := conn.Conn().PgConn().PID()
			conn.Release()
			db := superConn(t)
			before := lastLogID(t, db)

			name := fmt.Sprintf("lost-cancel-%d-%d", i, time.Now().UnixNano())
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			p.hold()
			done := make(chan error, 1)
			go func() { done <- call(ctx, name, "5") }()
			select {
			case <-p.held:
			case err := <-done:
				t.Fatalf("Execute = %v before its statements were sent", err)
			}
			cancel() // the client leaves as the statements are on their way
			if err := <-done; !errors.Is(err, dbexec.ErrClientGone) {
				t.Fatalf("Execute = %v, want ErrClientGone", err)
			}

			// Execute returns once PostgreSQL has closed the session, which
			// a backend does as it exits: the pool may not open another in
			// its place while it runs on.
			var alive bool
			if err := db.QueryRow(t.Context(), "select exists (select from pg_stat_activity where pid = $1)", pid).Scan(&alive); err != nil {
				t.Fatal(err)
			}
			if alive {
				t.Error("Execute returned while the backend of its session still runs")
			}
			if lastLogID(t, db) == before {
				t.Fatal("the write never ran: the test did not force a lost cancel")
			}
			if n := logged(t, name); n != 0 {
				t.Errorf("the write of a request whose cancel was lost committed (%d rows)", n)
			}
		})
	}
}

// lastLogID is the last id rpc_log's sequence gave, committed or not: an
// insert that ran and rolled back still moves it.
func lastLogID(t *testing.T, db *pgx.Conn) int64 {
	t.Helper()
	var id int64
	if err := db.QueryRow(t.Context(), "select coalesce(pg_sequence_last_value('test.rpc_log_id_seq'), 0)").Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// cancelRequestCode opens a CancelRequest packet, in place of a startup
// message's protocol version.
const cancelRequestCode = 80877102

// holdProxy forwards connections to the fixture's PostgreSQL. Once hold
// is called, what the session sends, its close included, is kept back, as
// if still on its way, until a cancel request through the proxy has ended.
type holdProxy struct {
	ln     net.Listener
	target string
	held   chan struct{} // closed once bytes are kept back

	mu      sync.Mutex
	kept    bool          // hold was called
	gate    chan struct{} // closed when the kept bytes may go on
	heldSet bool
	opened  bool
}

func startHoldProxy(t *testing.T) *holdProxy {
	t.Helper()
	u, _ := url.Parse(fixture.authURI)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdProxy{ln: ln, target: u.Host, held: make(chan struct{}), gate: make(chan struct{})}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		p.open() // nothing is held past the test
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.serve(c)
			}()
		}
	}()
	return p
}

// hold keeps back what the session sends from now on.
func (p *holdProxy) hold() {
	p.mu.Lock()
	p.kept = true
	p.mu.Unlock()
}

// open lets what is kept back go on.
func (p *holdProxy) open() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.opened {
		p.opened = true
		close(p.gate)
	}
}

// holding reports whether what the session sends is kept back, and says
// so on held the first time it is.
func (p *holdProxy) holding() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kept && !p.heldSet {
		p.heldSet = true
		close(p.held)
	}
	return p.kept
}

func (p *holdProxy) serve(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	defer server.Close()
	first := make([]byte, 8)
	if _, err := io.ReadFull(client, first); err != nil {
		return
	}
	if _, err := server.Write(first); err != nil {
		return
	}
	if binary.BigEndian.Uint32(first[4:]) == cancelRequestCode {
		// PostgreSQL closes a cancel request's connection once it has
		// signalled the backend.
		go io.Copy(server, client)
		io.Copy(client, server)
		p.open()
		return
	}

	// A queue between reading the session and writing to PostgreSQL: the
	// session's close is read while bytes are kept back, and reaches
	// PostgreSQL after them.
	chunks := make(chan []byte, 1024)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := client.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		defer server.Close()
		for c := range chunks {
			if p.holding() {
				<-p.gate
			}
			if _, err := server.Write(c); err != nil {
				return
			}
		}
	}()
	io.Copy(client, server)
}
