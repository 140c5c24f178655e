package replica_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

// moodsSQL creates an enum type, a table using it and a view that says
// where it is read, all readable by the anonymous role; %s lists the
// enum's values.
const moodsSQL = `create type api.mood as enum (%s);
	create table api.moods (id integer primary key, mood api.mood not null);
	create view api.moods_where as select m.id, m.mood, pg_is_in_recovery() as standby from api.moods m;
	grant select on api.moods_where to web_anon;`

// TestSnapshotRetiresReplicaSessions: a replica's session prepares the
// read of a filter on an enum column with a parameter of the enum's type;
// a migration then recreates the type and the table under the same names.
// Once the snapshot is reloaded the same read runs on the replica again,
// on a session opened after the replica replayed the migration, rather
// than failing on the old one with "cache lookup failed for type".
func TestSnapshotRetiresReplicaSessions(t *testing.T) {
	primary := fixture.set.Primary
	sql(t, primary, fmt.Sprintf(moodsSQL, "'sad', 'happy'")+"insert into api.moods values (1, 'happy'), (2, 'sad');")
	t.Cleanup(func() { sql(t, primary, "drop view api.moods_where; drop table api.moods; drop type api.mood") })
	ts := startServer(t, testConfig(), nil, 0)
	read := func(want ...int) {
		t.Helper()
		// On a loaded machine a check may find the replica slow to
		// answer, or not past the snapshot's position yet, and the read
		// would rightly go to the primary: the test is about the session
		// it runs on once it is the replica's turn.
		for _, r := range ts.Replicas.Replicas() {
			waitFor(t, r.Name+" healthy and past the snapshot's position", func() bool {
				st := r.Status()
				return st.Healthy && st.Replayed >= ts.Replicas.Required()
			})
		}
		resp, body := ts.do(t, "GET", "/moods_where?mood=eq.happy&order=id", nil, "")
		var rows []struct {
			ID      int
			Standby bool
		}
		if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &rows) != nil {
			t.Fatalf("GET /moods_where?mood=eq.happy: %d %s", resp.StatusCode, body)
		}
		var ids []int
		for _, r := range rows {
			ids = append(ids, r.ID)
			if !r.Standby {
				t.Errorf("row %d was read on the primary", r.ID)
			}
		}
		if !reflect.DeepEqual(ids, want) {
			t.Errorf("ids %v, want %v", ids, want)
		}
	}
	read(1)

	sql(t, primary, "begin; drop view api.moods_where; drop table api.moods; drop type api.mood;"+
		fmt.Sprintf(moodsSQL, "'sad', 'calm', 'happy'")+
		"insert into api.moods values (1, 'happy'), (2, 'calm'), (3, 'happy'); commit;")
	if err := ts.Snaps.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	read(1, 3)
}
