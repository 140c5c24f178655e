package query

import (
	"github.com/svc-dev/svc/server/plan"
	"github.com/svc-dev/svc/server/request"
)

// A read whose body is a sequence of rows (a JSON array, CSV lines, a
// GeoJSON collection, one object) is not aggregated into one value in
// PostgreSQL: its statement returns one row per row of the answer, each
// with that row's text, and the server joins them (Framing), so neither
// the backend nor svc-serve holds a large result whole and the rows can
// leave as they arrive. The count, taken first, and the settings a
// function set ride along on every row; a page with no rows is still one
// row, whose body is null, so that they arrive all the same.
//
// The join is PostgreSQL's own: Framing reproduces byte for byte what
// json_agg, string_agg and json_build_object wrote when the body was one
// aggregate, so an answer is the same either way.

// Streamed reports whether p's body is written row by row (see
// Framing). A HEAD has no body, a media handler's aggregate takes every
// row at once, and a set of scalars is joined by a separator that
// depends on its type, which the plan does not carry: those are one
// aggregate, as before.
func Streamed(p *plan.Read) bool {
	if p.Head || p.Scalars {
		return false
	}
	switch p.Media.Kind {
	case request.MediaJSON, request.MediaArray, request.MediaObject, request.MediaCSV, request.MediaGeoJSON,
		request.MediaJSONLines:
		return true
	}
	return false
}

// Framing is how a streamed body's rows are joined: Open, then the rows
// with Sep between them, then Close; Empty when there is none. Single
// takes the first row alone, as is: the body of one object, which the
// server answers only when there is exactly one row. SkipNull leaves a
// row whose text is NULL out, as string_agg does; otherwise it is JSON's
// null, as json_agg writes it.
type Framing struct {
	Open, Sep, Close, Empty string
	Single, SkipNull        bool
}

// geoJSONOpen is json_build_object's rendering of the collection, up to
// its features.
const geoJSONOpen = `{"type" : "FeatureCollection", "features" : [`

// FramingOf returns how the rows of streamed read p are joined.
func FramingOf(p *plan.Read) Framing {
	var f Framing
	switch kind := rowKind(p); {
	case kind == request.MediaCSV:
		f = Framing{Sep: "\n", SkipNull: true}
	case kind == request.MediaGeoJSON:
		// json_agg of json values separates them with a comma and a space.
		f = Framing{Open: geoJSONOpen, Sep: ", ", Close: "]}"}
	case kind == request.MediaObject:
		return Framing{Single: true}
	case kind == request.MediaJSONLines:
		// Every line ended, the last too; no line at all for no row.
		return Framing{Sep: "\n", Close: "\n"}
	case p.Media.StripNulls:
		// json_strip_nulls rewrote the array without spaces.
		f = Framing{Open: "[", Sep: ",", Close: "]"}
	default:
		// json_agg of rows puts a newline and a space before each but
		// the first.
		f = Framing{Open: "[", Sep: ", \n ", Close: "]"}
	}
	f.Empty = f.Open + f.Close
	return f
}

// rowKind is the representation p's rows take: one object for a
// singular read (but as CSV or GeoJSON, which stay what they are).
func rowKind(p *plan.Read) request.MediaKind {
	kind := p.Media.Kind
	if p.Single && kind != request.MediaCSV && kind != request.MediaGeoJSON {
		kind = request.MediaObject
	}
	return kind
}

// streamedRows writes the statement of streamed read p over the rows
// top's scope names: per row of the answer, the count, a true flag, the
// row's text and the response settings.
//
// A read without a count in its statement is bare (bareStream): its rows
// alone, and SettingsSQL after it says the settings once the rows are
// read, for an empty page too. One with a count always returns a row,
// with a null flag and body when the page is empty, for the count to
// arrive: the rows come from a lateral subquery that refers to the one
// row before it, which PostgreSQL can only join in a nested loop driven
// by that row: the page is read once, in its order, and the count, an
// init plan, in the same snapshot.
//
// An exact count of a page that is every row read is a window over the
// page, as the aggregate counted it in one scan: a function read is
// called once, and the count arrives with the first row, once the rows
// are read (into PostgreSQL's tuple store, which spills to disk past
// work_mem).
func streamedRows(b *builder, p *plan.Read, top func() *scope) {
	if bareStream(p) {
		b.write("select null::bigint as total_count, true as page_count, ")
		rowText(b, p)
		settings := resultColumns
		if p.SettingsUnset {
			// Nothing the rows run sets them: reading them again on
			// every row cost PostgreSQL a tenth of a 100-row page.
			settings = unsetColumns
		}
		b.write(" as body, ", settings, " from (")
		source(b, top(), nil, nil, nil)
		b.write(") _svc_row")
		return
	}
	streamedLines(b, p, top, func() { totalCount(b, p, top, "coalesce(_svc_line.total, 0)") }, wholePage(p))
}

// bareStream reports whether the statement of streamed read p is its
// rows alone: when it counts nothing itself (totalCount writes null). The
// join that gives an empty page its row costs PostgreSQL more to parse
// and plan than the read it wraps (some 20 µs of planning a lookup, as
// much again in parsing), every time where statements are not prepared;
// the statement of the settings alone costs a fraction of that.
func bareStream(p *plan.Read) bool {
	return p.Count != "exact" && p.Count != "estimated"
}

// unsetColumns stand for resultColumns in the rows of a read that sets
// no response setting (plan.Read.SettingsUnset).
const unsetColumns = "null::text as response_headers, null::text as response_status"

// SettingsSQL reads the response settings after a bare streamed read
// (Statement.SettingsAfter), in the columns of its rows: no count, no row
// of the body, the settings as the statement left them. It names no
// relation, so one prepared statement serves every role.
const SettingsSQL = "select null::bigint as total_count, null::boolean as page_count, null::text as body, " + resultColumns

// streamedLines writes the select of streamedRows, with total writing
// its total_count: a write's representation (Write) is read the same
// way from the rows written. window counts the rows as they are read,
// into _svc_line.total.
func streamedLines(b *builder, p *plan.Read, top func() *scope, total func(), window bool) {
	b.write("select ")
	total()
	b.write(" as total_count, _svc_line.present as page_count, _svc_line.body as body, ", resultColumns,
		" from (select true as present) _svc_one left join lateral (select _svc_one.present, ")
	if window {
		b.write("pg_catalog.count(*) over () as total, ")
	}
	rowText(b, p)
	b.write(" as body from (select * from (")
	source(b, top(), nil, nil, nil)
	b.write(") _svc_row) _svc_row) _svc_line on true")
}

// rowText writes the text of one row of streamed read p, as the
// aggregate that Framing stands in for rendered it.
func rowText(b *builder, p *plan.Read) {
	switch rowKind(p) {
	case request.MediaCSV:
		// See body: a row's composite text without its parentheses.
		b.write("pg_catalog.btrim(_svc_row::text, '()')")
	case request.MediaGeoJSON:
		b.write("st_asgeojson(_svc_row)")
	default:
		if p.Media.StripNulls {
			b.write("pg_catalog.json_strip_nulls(pg_catalog.row_to_json(_svc_row))::text")
		} else {
			b.write("pg_catalog.row_to_json(_svc_row)::text")
		}
	}
}
