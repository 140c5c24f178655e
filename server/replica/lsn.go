package replica

import (
	"fmt"
	"strconv"
	"strings"
)

// LSN is a position in PostgreSQL's write-ahead log (pg_lsn), written as
// two hexadecimal halves: "16/B374D848". Later positions are larger.
type LSN uint64

// ParseLSN reads an LSN as PostgreSQL writes it.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if ok && len(hi) > 0 && len(hi) <= 8 && len(lo) > 0 && len(lo) <= 8 {
		h, err1 := strconv.ParseUint(hi, 16, 32)
		l, err2 := strconv.ParseUint(lo, 16, 32)
		if err1 == nil && err2 == nil {
			return LSN(h<<32 | l), nil
		}
	}
	return 0, fmt.Errorf("%q is not a WAL position (such as 16/B374D848)", s)
}

// String writes l as PostgreSQL does.
func (l LSN) String() string {
	return strings.ToUpper(strconv.FormatUint(uint64(l>>32), 16) + "/" + strconv.FormatUint(uint64(l&0xFFFFFFFF), 16))
}

// PositionSQL reads the primary's WAL position: everything committed
// before it runs lies at or before that position, and a standby that has
// replayed up to it sees all of it. It is the insert position, since a
// commit may not be flushed yet (synchronous_commit = off) and the flush
// position could then come before it. An insert position just past a
// page's header (the first 40 bytes of a page hold no record's end) is
// taken back to the page's start, where a standby's replay position stops
// when the last record ends with the page; otherwise a quiet primary would
// stay ahead of its standbys until its next write.
const PositionSQL = `select (case when (l - '0/0'::pg_lsn) % b between 1 and 40 then l - (l - '0/0'::pg_lsn) % b else l end)::text
	from (select pg_catalog.pg_current_wal_insert_lsn() as l,
		pg_catalog.current_setting('wal_block_size')::numeric as b) as position`

// snapshotPositionSQL reads the position a new snapshot requires
// (PositionSQL) in a statement that also takes a transaction id, so that
// its implicit transaction ends with a commit record after the position.
//
// Without that record a quiet primary could keep the standbys from ever
// reaching the position: they receive only flushed WAL, and the last WAL
// may be inserted but not flushed. A record written without a transaction
// id by a transaction that rolls back asks nothing to flush it; the live
// introspection's read-only transaction writes such records when it prunes
// catalog pages. The WAL writer flushes whole pages, and a partial one
// only as far as a commit asked, so such a tail waits for the next commit
// or for the background writer's standby snapshot, which comes up to 15 s
// or more later. A commit that wrote nothing else is flushed that way, by
// the WAL writer, with everything before it, whatever synchronous_commit
// says and without waiting for synchronous standbys. It needs no privilege
// and works in a read-only transaction; it costs a transaction id and a
// commit record per reload.
const snapshotPositionSQL = `select position, pg_catalog.pg_current_xact_id()::text from (` + PositionSQL + `) as p(position)`

// flushedSQL reads the primary's flush position, the end of the WAL a
// standby can have received. It never stops just past a page's header.
const flushedSQL = "select pg_catalog.pg_current_wal_flush_lsn()::text"
