package query

import "github.com/svc-dev/svc/server/plan"

// A statement that turns rows into JSON or CSV (json_agg, row_to_json, a
// row's text form, a handler's aggregate) hands PostgreSQL rows of an
// anonymous record type, which the backend registers the first time it
// meets each distinct list of column names and types, and keeps until the
// session ends. Every new alias set is a new type, so a client sending
// ever new aliases makes a session grow without bound, whether or not
// the statement is prepared. The database executor closes a session once
// the row types of the statements it ran are estimated past
// db-session-row-types-max-bytes; RowTypes is that estimate for one
// statement. The prices come from dbexec's
// TestRowTypeCostCoversBackendMemory, which measures what PostgreSQL's
// CacheMemoryContext gains per new row type and fails when the estimate
// falls short.
const (
	// priceRowTypeFixed is a row type's hash entry and its slot in the
	// backend's array of record types.
	priceRowTypeFixed = 1024
	// priceRowTypeColumn is a column of a row type's descriptor.
	priceRowTypeColumn = 112
	// priceRowTypeHeader is a descriptor's header.
	priceRowTypeHeader = 64
	// rowTypeChunkLimit is the size up to which PostgreSQL's allocator
	// rounds a descriptor up to a power of two; the descriptor is also
	// copied once into a chunk of that size.
	rowTypeChunkLimit = 8 << 10
)

// nodeRowTypes estimates the row types a statement reading n registers:
// one for n's rows and one for each embed's, each as wide as its output.
// A spread embed or a scalar output registers none, which this counts all
// the same: the estimate may only err high.
func nodeRowTypes(n *plan.Node) int {
	cost := rowTypeCost(outputWidth(n))
	for _, e := range n.Embeds {
		cost += nodeRowTypes(&e.Node)
	}
	return cost
}

// rowTypeCost is what a row type of width columns keeps in the backend.
func rowTypeCost(width int) int {
	size := priceRowTypeHeader + priceRowTypeColumn*width
	if size <= rowTypeChunkLimit {
		chunk := 1
		for chunk < size {
			chunk <<= 1
		}
		return priceRowTypeFixed + 2*chunk
	}
	// A large descriptor gets a block of its own; an eighth more covers
	// the block's header and the hash table's growth.
	return priceRowTypeFixed + size + size/8
}

// outputWidth is the number of columns of n's output rows, counted as
// Node.OutputNames lists them, without building the list.
func outputWidth(n *plan.Node) int {
	width := 0
	for _, c := range n.Columns {
		switch {
		case c.Star && n.Relation != nil:
			width += len(n.Relation.Columns)
		case c.Embed != nil && c.Embed.Spread:
			width += outputWidth(&c.Embed.Node)
		default:
			width++
		}
	}
	return width
}
