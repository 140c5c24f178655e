package plan

import (
	"github.com/svc-dev/svc/server/apierr"
	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// checkAggregates answers SVC123 when a select list, at any depth, uses an
// aggregate function while db-aggregates-enabled is off. The legacy bare
// `count` is no aggregate of the grammar and passes, as in PostgREST.
func checkAggregates(items []request.SelectItem, opts Options) error {
	if opts.Aggregates {
		return nil
	}
	for _, item := range items {
		if item.Aggregate != "" {
			return apierr.AggregatesNotAllowed()
		}
		if item.Embed != nil {
			if err := checkAggregates(item.Embed.Select, opts); err != nil {
				return err
			}
		}
	}
	return nil
}

// legacyCount reports the bare word `count` naming no column or computed
// field of rel: before aggregates existed it counted rows (PostgreSQL reads
// `t.count` as count(t)), and it still does.
func legacyCount(snap *snapshot.Snapshot, rel *snapshot.Relation, item request.SelectItem) bool {
	return item.Field.Name == "count" && len(item.Field.Path) == 0 && item.Aggregate == "" &&
		snap.Column(rel, "count") == nil && snap.ComputedField(rel, "count") == nil
}

// Aggregates reports whether the node computes aggregates: one of its own
// columns is an aggregate, or a spread embed lifts one into it. A spread
// embed never aggregates itself: its aggregates are computed by the node
// it is spread into, over its rows grouped with that node's columns.
func (n *Node) Aggregates() bool {
	for _, c := range n.Columns {
		if c.Aggregate != "" {
			return true
		}
		if c.Embed != nil && c.Embed.Spread {
			for _, o := range c.Embed.SpreadOutputs() {
				if o.Aggregate != "" {
					return true
				}
			}
		}
	}
	return false
}

// aggregateKeys lists the output keys of the node's aggregate columns.
func (n *Node) aggregateKeys() []string {
	var keys []string
	for _, c := range n.Columns {
		if c.Aggregate != "" {
			keys = append(keys, c.OutputName())
		}
	}
	return keys
}

// SpreadOutput is one key a spread embed lifts into its parent's row.
type SpreadOutput struct {
	Name string
	// Aggregate and AggregateCast, when set, are applied by the node the
	// key is spread into; the embed itself outputs the aggregate's input.
	Aggregate     string
	AggregateCast string
}

// SpreadOutputs lists the keys a spread embed lifts into its parent, in
// order, with the aggregates the parent applies; nested spreads' keys are
// lifted through.
func (e *Embed) SpreadOutputs() []SpreadOutput {
	var outs []SpreadOutput
	for _, c := range e.Columns {
		switch {
		case c.Star:
			for _, col := range e.Relation.Columns {
				outs = append(outs, SpreadOutput{Name: col.Name})
			}
		case c.Embed != nil && c.Embed.Spread:
			outs = append(outs, c.Embed.SpreadOutputs()...)
		case c.Embed != nil:
			outs = append(outs, SpreadOutput{Name: c.Embed.Key})
		default:
			outs = append(outs, SpreadOutput{Name: c.OutputName(), Aggregate: c.Aggregate, AggregateCast: c.AggregateCast})
		}
	}
	return outs
}
