package snapshot

import "testing"

// accessFixture is a relation, a function and roles granted them in
// every way privileges pass.
func accessFixture(t *testing.T) *Snapshot {
	t.Helper()
	grants := func(pairs ...string) []Grant {
		var out []Grant
		for i := 0; i < len(pairs); i += 2 {
			out = append(out, Grant{Grantee: pairs[i], Privileges: []string{pairs[i+1]}})
		}
		return out
	}
	rel := Relation{QualifiedName: QualifiedName{Schema: "api", Name: "t"},
		Grants:  grants("reader", PrivSelect, "PUBLIC", PrivInsert, "owner", PrivDelete),
		Columns: []Column{{Name: "a"}, {Name: "b", Grants: grants("colwriter", PrivUpdate)}}}
	fn := Function{QualifiedName: QualifiedName{Schema: "api", Name: "f"}, Grants: grants("caller", PrivExecute)}
	snap, err := New(Header{}, Content{
		Relations: []Relation{rel},
		Functions: []Function{fn},
		Roles: []Role{
			{Name: "reader", Inherit: true},
			{Name: "web", Inherit: true, MemberOf: []string{"reader", "middle"}},
			{Name: "middle", Inherit: false, MemberOf: []string{"owner"}},
			{Name: "noinherit", Inherit: false, MemberOf: []string{"reader"}},
			{Name: "deep", Inherit: true, MemberOf: []string{"web"}},
			{Name: "colwriter", Inherit: true},
			{Name: "caller", Inherit: true},
			{Name: "root", Superuser: true},
			{Name: "loop1", Inherit: true, MemberOf: []string{"loop2"}},
			{Name: "loop2", Inherit: true, MemberOf: []string{"loop1", "caller"}},
			{Name: "allreader", Inherit: true, MemberOf: []string{"pg_read_all_data"}},
			{Name: "allwriter", Inherit: true, MemberOf: []string{"pg_write_all_data"}},
			{Name: "allwriter_noinherit", Inherit: false, MemberOf: []string{"pg_write_all_data"}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestAccess(t *testing.T) {
	t.Parallel()
	snap := accessFixture(t)
	r, f := &snap.Content.Relations[0], &snap.Content.Functions[0]
	cases := []struct {
		role                          string
		sel, ins, del, upd, anyUpdate bool
		exec                          bool
	}{
		{role: "reader", sel: true, ins: true},
		{role: "web", sel: true, ins: true},             // through reader; middle does not pass on owner's
		{role: "middle", ins: true},                     // noinherit: owner's DELETE needs SET ROLE
		{role: "noinherit", ins: true},                  // PUBLIC only
		{role: "deep", sel: true, ins: true},            // two levels of inherit
		{role: "colwriter", ins: true, anyUpdate: true}, // a column grant
		{role: "caller", ins: true, exec: true},         // EXECUTE
		{role: "stranger", ins: true},                   // unknown: PUBLIC
		{role: "root", sel: true, ins: true, del: true, upd: true, anyUpdate: true, exec: true}, // superuser
		{role: "loop1", ins: true, exec: true},                                                  // cycles end
		{role: "allreader", sel: true, ins: true},                                               // pg_read_all_data
		{role: "allwriter", ins: true, del: true, upd: true, anyUpdate: true},                   // pg_write_all_data
		{role: "allwriter_noinherit", ins: true},                                                // needs INHERIT as any role
	}
	for _, c := range cases {
		a := snap.AccessOf(c.role)
		got := []bool{a.Table(r, PrivSelect), a.Table(r, PrivInsert), a.Table(r, PrivDelete),
			a.Table(r, PrivUpdate), a.AnyColumn(r, PrivUpdate), a.Execute(f)}
		want := []bool{c.sel, c.ins, c.del, c.upd, c.anyUpdate, c.exec}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: [select insert delete update anyColumnUpdate execute] = %v, want %v", c.role, got, want)
				break
			}
		}
	}
	// Column: the relation's grant, or the column's own.
	for _, c := range []struct {
		role, col, priv string
		want            bool
	}{
		{"colwriter", "b", PrivUpdate, true},
		{"colwriter", "a", PrivUpdate, false},
		{"reader", "a", PrivSelect, true},
		{"reader", "b", PrivUpdate, false},
		{"allreader", "b", PrivSelect, true},
	} {
		col := &r.Columns[0]
		if c.col == "b" {
			col = &r.Columns[1]
		}
		if got := snap.AccessOf(c.role).Column(r, col, c.priv); got != c.want {
			t.Errorf("%s: Column(%s, %s) = %v, want %v", c.role, c.col, c.priv, got, c.want)
		}
	}
}

// TestAccessKey: roles whose holders differ only by roles no grant names
// share a key; any difference in what they may do gives another.
func TestAccessKey(t *testing.T) {
	t.Parallel()
	snap := accessFixture(t)
	same := [][]string{
		{"reader", "web", "deep"},                     // reader's grants, through inheritance
		{"middle", "noinherit", "stranger", "nobody"}, // PUBLIC's alone
		{"root"},
		{"colwriter"},
		{"caller", "loop1", "loop2"},
		{"allreader"},
		{"allwriter"},
	}
	seen := map[string]string{}
	for _, group := range same {
		key := snap.AccessOf(group[0]).Key()
		for _, role := range group[1:] {
			if got := snap.AccessOf(role).Key(); got != key {
				t.Errorf("%s: key %q, want %s's %q", role, got, group[0], key)
			}
		}
		if other, ok := seen[key]; ok {
			t.Errorf("%s and %s hold different privileges and share key %q", group[0], other, key)
		}
		seen[key] = group[0]
	}
}

// A known role's privileges are computed once and kept with the
// snapshot, and read the same from many goroutines at once; an unknown
// name's are not kept, so names from tokens cannot grow it.
func TestAccessKeptPerRole(t *testing.T) {
	t.Parallel()
	snap := accessFixture(t)
	r := &snap.Content.Relations[0]
	done := make(chan bool)
	for range 8 {
		go func() { done <- snap.AccessOf("deep").Table(r, PrivSelect) }()
	}
	for range 8 {
		if !<-done {
			t.Fatal("deep lost SELECT through web and reader")
		}
	}
	kept := snap.idx.access[snap.idx.roles["deep"]].Load()
	if kept == nil || !kept.holders["reader"] {
		t.Fatalf("deep's privileges were not kept: %+v", kept)
	}
	snap.AccessOf("stranger")
	for i := range snap.idx.access {
		if name := snap.Content.Roles[i].Name; name != "deep" && snap.idx.access[i].Load() != nil {
			t.Errorf("%s's privileges kept though only deep's and a stranger's were asked for", name)
		}
	}
}
