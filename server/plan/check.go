package plan

import (
	"slices"

	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// A read tree is checked in PostgREST's order, so that a request wrong in
// several ways is answered with the error PostgREST gives it: the
// relationships of the embeds first (buildNode), then the parameters
// addressed to embeds (applyEmbedParams), then what the tree asks of its
// embeds (checkStructure), and the columns last (checkColumns), which
// PostgREST leaves to PostgreSQL.

// checkStructure checks what a built tree asks of its embeds, in
// PostgREST's order: related orders name to-one embeds (SVC108, SVC118),
// spreads are of to-one embeds (SVC119), an embed is filtered only on its
// presence (SVC120), aggregates are enabled (SVC123), and no two embeds
// of a node share a key (42712, PostgreSQL's error on PostgREST's
// statement).
func checkStructure(root *Node, snap *snapshot.Snapshot, items []request.SelectItem, opts Options) error {
	if err := walk(root, checkRelatedOrders); err != nil {
		return err
	}
	if err := walk(root, checkSpreads); err != nil {
		return err
	}
	if err := walk(root, func(n *Node) error { return checkEmbedFilters(n, snap) }); err != nil {
		return err
	}
	if err := checkAggregates(items, opts); err != nil {
		return err
	}
	return walk(root, checkDuplicateEmbeds)
}

// walk applies check to n and every node under it, depth first.
func walk(n *Node, check func(*Node) error) error {
	if err := check(n); err != nil {
		return err
	}
	for _, e := range n.Embeds {
		if err := walk(&e.Node, check); err != nil {
			return err
		}
	}
	return nil
}

func checkRelatedOrders(n *Node) error {
	for _, o := range n.Order {
		if o.Relation == "" {
			continue
		}
		e := n.EmbedNamed(o.Relation)
		if e == nil {
			return apierr.NotEmbedded(o.Relation)
		}
		if !e.ToOne() {
			return apierr.RelatedOrderNotToOne(n.Relation.Name, o.Relation)
		}
	}
	return nil
}

func checkSpreads(n *Node) error {
	for _, e := range n.Embeds {
		if e.Spread && !e.ToOne() {
			return apierr.SpreadNotToOne(n.Relation.Name, e.Name)
		}
	}
	return nil
}

// checkEmbedFilters checks that a filter naming an embed only tests its
// presence: `rel=is.null` or `rel=not.is.null`. A name that is a column
// (or computed field) as well filters the column.
func checkEmbedFilters(n *Node, snap *snapshot.Snapshot) error {
	cols := columnChecker{snap: snap, rel: n.Relation, node: n}
	check := func(f request.Filter) error {
		e := n.EmbedNamed(f.Field.Name)
		if e == nil || len(f.Field.Path) > 0 || cols.has(f.Field.Name) {
			return nil
		}
		if f.Op != "is" || f.Value != "null" {
			return apierr.UnacceptableEmbedFilter(e.Key)
		}
		return nil
	}
	return eachNodeFilter(n, check)
}

// checkDuplicateEmbeds refuses two embeds of n under one key: parameters
// address an embed by its key and the answer outputs it under that key.
// PostgREST's statement names both laterals `<table>_<key>_<depth>`,
// and PostgreSQL refuses it.
func checkDuplicateEmbeds(n *Node) error {
	for i, e := range n.Embeds {
		if slices.ContainsFunc(n.Embeds[:i], func(o *Embed) bool { return o.Key == e.Key }) {
			return apierr.DuplicateEmbed(n.Relation.Name, e.Key, e.Depth)
		}
	}
	return nil
}

// checkColumns checks every name n and the nodes under it use, select,
// filters, logic trees and order, against the snapshot: an unknown one is
// answered as PostgreSQL would (42703). Each name found is resolved into
// its node's Fields.
func checkColumns(n *Node, snap *snapshot.Snapshot, refresh Refresh) error {
	cols := columnChecker{snap: snap, rel: n.Relation, node: n, aggregates: n.aggregateKeys(), refresh: refresh}
	for _, c := range n.Columns {
		if c.Star || c.Embed != nil || c.Field.Name == "" {
			continue
		}
		if err := cols.check(c.Field.Name); err != nil {
			return err
		}
	}
	if err := checkFilterColumns(n, cols); err != nil {
		return err
	}
	for _, o := range n.Order {
		if o.Relation == "" {
			if err := cols.check(o.Field.Name); err != nil {
				return err
			}
			continue
		}
		// As in PostgREST, the term names one of the embed's outputs (an
		// alias first), or else one of its relation's columns, which the
		// embed then carries out for its parent to order by.
		e := n.EmbedNamed(o.Relation)
		if len(o.Field.Path) == 0 && slices.Contains(e.OutputNames(), o.Field.Name) {
			continue
		}
		embedCols := columnChecker{snap: snap, rel: e.Relation, node: &e.Node, aggregates: e.aggregateKeys(), refresh: refresh}
		if err := embedCols.check(o.Field.Name); err != nil {
			return err
		}
	}
	for _, e := range n.Embeds {
		if err := checkColumns(&e.Node, snap, refresh); err != nil {
			return err
		}
	}
	return nil
}

// checkFilterColumns checks the columns of n's filters and logic trees;
// a filter testing an embed's presence names no column.
func checkFilterColumns(n *Node, cols columnChecker) error {
	check := func(f request.Filter) error {
		if n.EmbedNamed(f.Field.Name) != nil && len(f.Field.Path) == 0 && !cols.has(f.Field.Name) {
			return nil
		}
		return cols.check(f.Field.Name)
	}
	return eachNodeFilter(n, check)
}

// eachNodeFilter applies check to n's filters and to every filter of its
// logic trees.
func eachNodeFilter(n *Node, check func(request.Filter) error) error {
	for _, f := range n.Filters {
		if err := check(f); err != nil {
			return err
		}
	}
	for _, t := range n.Logic {
		if err := eachFilter(t, check); err != nil {
			return err
		}
	}
	return nil
}

// eachFilter applies check to every filter of t, nested trees included.
func eachFilter(t request.LogicTree, check func(request.Filter) error) error {
	for _, c := range t.Conditions {
		var err error
		if c.Tree != nil {
			err = eachFilter(*c.Tree, check)
		} else {
			err = check(*c.Filter)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
