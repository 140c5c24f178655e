package snapshot

// The change kinds of computed fields and domain representations.
const (
	ComputedFieldAdded   ChangeKind = "computed_field_added"
	ComputedFieldRemoved ChangeKind = "computed_field_removed"
	ComputedFieldRetyped ChangeKind = "computed_field_retyped"

	// CastAdded, CastRemoved and CastChanged (another function) are
	// changes of domain representations: each changes how the domain's
	// values are answered or read, so each is breaking.
	CastAdded   ChangeKind = "cast_added"
	CastRemoved ChangeKind = "cast_removed"
	CastChanged ChangeKind = "cast_changed"
)

// computedFields compares the computed fields of a relation both
// snapshots have, by name.
func (d *differ) computedFields(relation string, old, new []ComputedField) {
	before := byName(old, (*ComputedField).Name)
	for i := range new {
		n := &new[i]
		object := relation + "." + n.Name()
		o, ok := before[n.Name()]
		if !ok {
			d.add(Change{Kind: ComputedFieldAdded, Object: object, New: n.Type})
			continue
		}
		delete(before, n.Name())
		if o.Type != n.Type {
			d.add(Change{Kind: ComputedFieldRetyped, Object: object, Old: o.Type, New: n.Type, Breaking: true,
				Reason: "values read have another type"})
		}
	}
	for name, o := range before {
		d.add(Change{Kind: ComputedFieldRemoved, Object: relation + "." + name, Old: o.Type, Breaking: true,
			Reason: "select, filters and order naming it fail"})
	}
}

// casts compares domain representations by their source and target.
func (d *differ) casts(old, new []Cast) {
	key := func(c *Cast) castTypes { return castTypes{c.Source, c.Target} }
	before, after := byName(old, key), byName(new, key)
	for k, o := range before {
		n, ok := after[k]
		switch {
		case !ok:
			d.add(Change{Kind: CastRemoved, Object: castObject(k), Old: o.Function.String(), Breaking: true,
				Reason: castEffect(k) + " no longer by " + o.Function.String()})
		case n.Function != o.Function:
			d.add(Change{Kind: CastChanged, Object: castObject(k), Old: o.Function.String(), New: n.Function.String(),
				Breaking: true, Reason: castEffect(k) + " by another function"})
		}
	}
	for k, n := range after {
		if _, ok := before[k]; !ok {
			d.add(Change{Kind: CastAdded, Object: castObject(k), New: n.Function.String(), Breaking: true,
				Reason: castEffect(k) + " by " + n.Function.String()})
		}
	}
}

func castObject(k castTypes) string { return k.source + " -> " + k.target }

// castEffect says what a representation does to the API, in words.
func castEffect(k castTypes) string {
	switch k.source {
	case "json":
		return "values of " + k.target + " in request bodies are read"
	case "text":
		return "filter values on " + k.target + " are read"
	}
	return "values of " + k.source + " are answered as " + k.target
}
