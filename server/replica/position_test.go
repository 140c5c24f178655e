package replica_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/svc-dev/svc/server/replica"
)

// TestPositionSQL: the primary's position is its insert position, except
// one just past a page's header, which is taken back to the page's start,
// where a standby's replay stops when the last record ends with the page.
func TestPositionSQL(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, fixture.superURI)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var blockSize int
	if err := conn.QueryRow(ctx, "select current_setting('wal_block_size')::int").Scan(&blockSize); err != nil || blockSize != 8192 {
		t.Fatalf("wal_block_size %d, %v; the cases assume 8192", blockSize, err)
	}
	given := strings.Replace(replica.PositionSQL, "pg_catalog.pg_current_wal_insert_lsn()", "$1::pg_lsn", 1)
	for in, want := range map[string]string{
		"0/0":         "0/0",
		"0/2000":      "0/2000", // a page's start
		"0/2018":      "0/2000", // past a short header (24 bytes)
		"0/2028":      "0/2000", // past a long header (40 bytes), at a segment's start
		"0/2030":      "0/2030", // a record's end
		"0/1FF8":      "0/1FF8",
		"5/1000028":   "5/1000000",
		"16/B374D848": "16/B374D848",
	} {
		var got string
		if err := conn.QueryRow(ctx, given, in).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("position %s: %s, want %s", in, got, want)
		}
	}
	// The real one reads, and agrees with the primary's insert position
	// but for a header.
	var got, insert string
	if err := conn.QueryRow(ctx, replica.PositionSQL).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "select pg_current_wal_insert_lsn()::text").Scan(&insert); err != nil {
		t.Fatal(err)
	}
	p, err1 := replica.ParseLSN(got)
	i, err2 := replica.ParseLSN(insert)
	if err1 != nil || err2 != nil || p > i || i-p > 40 {
		t.Errorf("position %s, insert position %s", got, insert)
	}
}
