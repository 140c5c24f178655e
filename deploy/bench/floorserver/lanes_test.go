package main

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/svc-dev/svc/sql/pgtest"
)

// Requests run through lanes, several to a write, each get their own
// transaction's answer: their own value back, or their own error, which
// leaves the others in the batch alone.
func TestLanesAnswerEachRequest(t *testing.T) {
	ctx := context.Background()
	c, err := pgtest.Start(ctx, pgtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	// The main statement, a read's one row, fails for 0, by its own
	// division.
	w := &workload{setup: "select pg_catalog.set_config('application_name', 'floor', true)",
		main: "select null, true, (100 / $1::int)::text", params: []string{"id"}}
	sessions := make([]*session, 2)
	for i := range sessions {
		if sessions[i], err = openSession(c.URI, map[string]*workload{"lookup": w}); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range []runner{exclusive(sessions), lanes(sessions, 4)} {
		var wg sync.WaitGroup
		for client := range 16 {
			wg.Go(func() {
				for i := range 50 {
					v := (client*50+i)%7 - 1 // -1 to 5, 0 among them
					body, failed, err := run(w, [][]byte{[]byte(strconv.Itoa(v))})
					switch {
					case err != nil:
						t.Errorf("%d: %v", v, err)
					case v == 0 && failed == nil:
						t.Errorf("0: answered %q, not division by zero", body)
					case v != 0 && (failed != nil || string(body) != "["+strconv.Itoa(100/v)+"]"):
						t.Errorf("%d: answered %q, %v", v, body, failed)
					}
				}
			})
		}
		wg.Wait()
	}
}
