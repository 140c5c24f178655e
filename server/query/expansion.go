package query

import "github.com/svc-dev/svc/server/plan"

// A statement prepared on a session costs its PostgreSQL backend memory
// for as long as it is kept: the trees its text parses into, and a generic
// plan once it has run a few times. Most of it grows with the text, which
// the database executor prices itself; the rest is what PostgreSQL expands
// where the text does not list it, and grows with the widths of the
// relations read: every relation read brings the names of all its columns
// into the query and the plan, a `*` brings a target for each column at
// each level of the statement that passes the row on, and each lateral
// join of an embed brings a variable for every column joined so far, so a
// node's chain of to-one embeds costs the square of their number. Those
// are what Expansion prices, from the plan; the prices come from
// dbexec's TestStatementCostCoversBackendMemory, which measures what
// PostgreSQL's memory contexts hold for each kind of statement and fails
// when the estimate falls short.
const (
	// priceNamed is a column of a relation read: its name in the
	// statement's range table and in the plan's.
	priceNamed = 700
	// priceStar is a column a `*` outputs: its target entries.
	priceStar = 2600
	// priceJoined is a column a lateral join carries: its alias variable.
	priceJoined = 640
)

// readExpansion estimates, in bytes, what PostgreSQL holds for a read of
// p beyond what the statement's text accounts for: the nodes' relations,
// stars and joins, and the relations a count reads once more.
func readExpansion(p *plan.Read) int {
	n := nodeExpansion(&p.Node)
	if p.Count != "" {
		n += namedExpansion(&p.Node)
	}
	return n
}

// nodeExpansion is what n and its embeds expand.
func nodeExpansion(n *plan.Node) int {
	width := relationWidth(n)
	cost := width * priceNamed
	for _, c := range n.Columns {
		if c.Star {
			cost += width * priceStar
		}
	}
	joined := width // the chain of laterals starts from the node's row
	for _, e := range n.Embeds {
		cost += nodeExpansion(&e.Node)
		if e.ToOne() {
			joined += len(e.OutputNames()) // its whole row, for row_to_json
		} else {
			joined++ // its rows' JSON array
		}
		cost += joined * priceJoined
	}
	return cost
}

// namedExpansion is what the relations of n and its embeds cost, read
// again for a count (countedRows).
func namedExpansion(n *plan.Node) int {
	cost := relationWidth(n) * priceNamed
	for _, e := range n.Embeds {
		cost += namedExpansion(&e.Node)
	}
	return cost
}

// relationWidth is the number of columns of n's rows.
func relationWidth(n *plan.Node) int {
	if n.Relation == nil {
		return 0
	}
	return len(n.Relation.Columns)
}
