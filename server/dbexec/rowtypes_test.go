package dbexec_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/query"
)

// A session is closed once the row types of the statements it has run
// are estimated past db-session-row-types-max-bytes, and only new
// statements count: a shape repeated costs its row types once.
func TestRowTypeLedgerRetiresOnNewShapesOnly(t *testing.T) {
	for _, prepare := range []bool{true, false} {
		t.Run("prepare="+strconv.FormatBool(prepare), func(t *testing.T) {
			cfg := *fixture.cfg
			cfg.DBPool = 1
			cfg.DBRowTypesMaxBytes = 1 << 20
			pool, err := dbexec.NewPool(t.Context(), &cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			exec := &dbexec.Executor{Names: apierr.SVCNaming, Pool: pool, AcquireTimeout: 10 * time.Second, Prepare: prepare, CancelTimeout: dbexec.TestCancelTimeout}
			tx := dbexec.Tx{ReadOnly: true, Role: "web_anon", SearchPath: `"test"`, Method: "GET", Path: "/"}
			// read runs shape n, estimated at 64 KiB of row types, and
			// returns the pid of the backend that ran it.
			read := func(n int) int {
				t.Helper()
				var pid int
				sql := fmt.Sprintf(`select pg_catalog.pg_backend_pid(), pg_catalog.json_agg(r)::text from (select 1 as "a%d") r`, n)
				err := exec.Execute(t.Context(), tx, dbexec.Step{
					Stmt: query.Statement{SQL: sql, RowTypes: 64 << 10},
					Row: func(v [][]byte) error {
						pid, err = strconv.Atoi(string(v[0]))
						return err
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				return pid
			}
			first := read(0)
			for range 100 {
				if pid := read(0); pid != first {
					t.Fatalf("one shape repeated moved the pool from backend %d to %d", first, pid)
				}
			}
			// 16 shapes of 64 KiB are the budget, not past it.
			for n := 1; n < 16; n++ {
				if pid := read(n); pid != first {
					t.Fatalf("after %d shapes of 64 KiB, within the budget of 1 MiB, the pool moved from backend %d to %d", n+1, first, pid)
				}
			}
			read(16)
			if pid := read(0); pid == first {
				t.Fatalf("after 17 shapes of 64 KiB, past the budget of 1 MiB, the pool still runs on backend %d", pid)
			}
		})
	}
}
