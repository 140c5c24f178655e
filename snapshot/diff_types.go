package snapshot

import "strings"

// The change kinds of enums and composite types. A type appearing or
// going with the columns and arguments of it is their retype, which
// breaks; the type's own line says what it is (its labels or attributes),
// which a reviewer needs to judge the columns' lines and generated
// clients' types.
const (
	TypeAdded             ChangeKind = "type_added"
	TypeRemoved           ChangeKind = "type_removed"
	EnumLabelsChanged     ChangeKind = "enum_labels_changed"
	TypeAttributesChanged ChangeKind = "type_attributes_changed"
)

// types compares the enums and composite types both snapshots keep, by
// name: an enum losing a label refuses values written with it, and a
// composite type losing or retyping an attribute changes values clients
// read, so those break; labels or attributes only added do not.
func (d *differ) types(old, new []UserType) {
	key := func(x *UserType) QualifiedName { return x.QualifiedName }
	before, after := byName(old, key), byName(new, key)
	for name, n := range after {
		if _, ok := before[name]; !ok {
			d.add(Change{Kind: TypeAdded, Object: name.String(), New: typeWords(n)})
		}
	}
	for _, o := range before {
		n, ok := after[o.QualifiedName]
		if !ok {
			d.add(Change{Kind: TypeRemoved, Object: o.QualifiedName.String(), Old: typeWords(o)})
			continue
		}
		if was, now := strings.Join(o.Labels, ", "), strings.Join(n.Labels, ", "); was != now {
			c := Change{Kind: EnumLabelsChanged, Object: o.QualifiedName.String(), Old: was, New: now}
			if !kept(o.Labels, n.Labels) {
				c.Breaking, c.Reason = true, "values with a removed label are refused"
			}
			d.add(c)
		}
		if was, now := attributeWords(o.Attributes), attributeWords(n.Attributes); strings.Join(was, ", ") != strings.Join(now, ", ") {
			c := Change{Kind: TypeAttributesChanged, Object: o.QualifiedName.String(),
				Old: strings.Join(was, ", "), New: strings.Join(now, ", ")}
			if !kept(was, now) {
				c.Breaking, c.Reason = true, "values clients read lose or retype an attribute"
			}
			d.add(c)
		}
	}
}

// typeWords describes a type for a reader: "enum: happy, sad" or
// "composite: street text, zip text".
func typeWords(t *UserType) string {
	if t.Attributes != nil {
		return "composite: " + strings.Join(attributeWords(t.Attributes), ", ")
	}
	return "enum: " + strings.Join(t.Labels, ", ")
}

// attributeWords renders a composite type's attributes as "name type".
func attributeWords(as []Attribute) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.Name + " " + a.Type
	}
	return out
}

// kept reports whether every element of old is in new.
func kept(old, new []string) bool {
	have := map[string]bool{}
	for _, s := range new {
		have[s] = true
	}
	for _, s := range old {
		if !have[s] {
			return false
		}
	}
	return true
}
