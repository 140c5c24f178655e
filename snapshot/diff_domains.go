package snapshot

// The change kinds of domains. A domain appearing or going with the
// columns of its type is a column's retype; these are changes of a domain
// both snapshots keep.
const (
	DomainCheckAdded   ChangeKind = "domain_check_added"
	DomainCheckRemoved ChangeKind = "domain_check_removed"
	DomainCheckChanged ChangeKind = "domain_check_changed"
	DomainNullChanged  ChangeKind = "domain_nullability_changed"
)

// domains compares the checks and NOT NULL of the domains both snapshots
// keep, by name: a check added or changed, or NOT NULL added, may refuse
// values written before, so it breaks; one removed does not.
func (d *differ) domains(old, new []Domain) {
	key := func(x *Domain) QualifiedName { return x.QualifiedName }
	after := byName(new, key)
	for _, o := range byName(old, key) {
		n, ok := after[o.QualifiedName]
		if !ok {
			continue
		}
		object := o.Type
		if o.NotNull != n.NotNull {
			c := Change{Kind: DomainNullChanged, Object: object, Old: nullWords(!o.NotNull), New: nullWords(!n.NotNull)}
			if n.NotNull {
				c.Breaking, c.Reason = true, "writes of null to it are refused"
			}
			d.add(c)
		}
		checks := byName(n.Checks, func(c *DomainCheck) string { return c.Name })
		for _, oc := range o.Checks {
			nc, ok := checks[oc.Name]
			switch {
			case !ok:
				d.add(Change{Kind: DomainCheckRemoved, Object: object + " " + oc.Name, Old: oc.Expr})
			case nc.Expr != oc.Expr:
				d.add(Change{Kind: DomainCheckChanged, Object: object + " " + oc.Name, Old: oc.Expr, New: nc.Expr,
					Breaking: true, Reason: "values it accepted may be refused"})
			}
		}
		had := byName(o.Checks, func(c *DomainCheck) string { return c.Name })
		for _, nc := range n.Checks {
			if _, ok := had[nc.Name]; !ok {
				d.add(Change{Kind: DomainCheckAdded, Object: object + " " + nc.Name, New: nc.Expr,
					Breaking: true, Reason: "values it accepted may be refused"})
			}
		}
	}
}
