package drill

import "slices"

// Version is the drill's schema after a step: what the oracle needs to
// know of it to say how a request is answered. Each migration turns one
// Version into the next (Step.Apply); nothing else changes one.
type Version struct {
	// Step is the migration that made this version ("initial" for the
	// first).
	Step string
	// ItemCols are api.items's columns.
	ItemCols []string
	// CodeText: items.code is text; otherwise integer.
	CodeText bool
	// DimsD: the composite api.dims has a third field, d.
	DimsD bool
	// Labels are api.mood's labels.
	Labels []string
	// ViewCols are api.item_moods's columns.
	ViewCols []string
	// BumpNew: api.bump is bump(item_id, by) returning table(id, qty);
	// otherwise bump(item) returning integer.
	BumpNew bool
	// TotalTable: api.item_total(n) returns table(total, tag), two rows;
	// otherwise an integer.
	TotalTable bool
	// AnonHidesU1: row-level security keeps the anonymous role from
	// reading the rows user u1 owns.
	AnonHidesU1 bool
	// AnonDelete and UserDelete: the role has DELETE on api.items.
	AnonDelete, UserDelete bool
	// Api2: the schema api2 exists and is exposed.
	Api2 bool
}

// initialVersion is the schema initialSQL creates.
func initialVersion() *Version {
	return &Version{
		Step:       "initial",
		ItemCols:   []string{"id", "author_id", "name", "qty", "mood", "size", "code", "email", "legacy", "owner"},
		Labels:     []string{"sad", "ok", "happy"},
		ViewCols:   []string{"id", "name", "mood"},
		AnonDelete: true,
	}
}

func (v *Version) clone() *Version {
	c := *v
	c.ItemCols = slices.Clone(v.ItemCols)
	c.Labels = slices.Clone(v.Labels)
	c.ViewCols = slices.Clone(v.ViewCols)
	return &c
}

// nameCol is items's name column, renamed by a step.
func (v *Version) nameCol() string {
	if slices.Contains(v.ItemCols, "title") {
		return "title"
	}
	return "name"
}

func (v *Version) hasItemCol(c string) bool { return slices.Contains(v.ItemCols, c) }

// hasColumn says whether relation rel has column col. The api2 table's
// existence is the profile's business (refProfile), so its columns are
// always there.
func (v *Version) hasColumn(rel, col string) bool {
	switch rel {
	case "items":
		return v.hasItemCol(col)
	case "item_moods":
		return slices.Contains(v.ViewCols, col)
	case "authors":
		return col == "id" || col == "name"
	case "tags":
		return col == "item_id" || col == "label"
	}
	return true
}

// hasFunction says whether the function signature sig (as requests name
// it, see requests.go) exists.
func (v *Version) hasFunction(sig string) bool {
	switch sig {
	case sigBumpOld:
		return !v.BumpNew
	case sigBumpNew:
		return v.BumpNew
	}
	return true
}

func (v *Version) canDelete(r role) bool {
	if r == anon {
		return v.AnonDelete
	}
	return v.UserDelete
}

// baseLabels are the labels every version keeps and writers write: a
// row's mood follows its qty (baseLabels[qty%3]), so a reader can tell a
// row read whole from one mixing two writes.
var baseLabels = []string{"sad", "ok", "happy"}
