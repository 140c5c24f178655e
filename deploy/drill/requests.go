package drill

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// role is who a request runs as: the anonymous role, or web_user through
// a token whose sub is u1.
type role int

const (
	anon role = iota
	user
)

func (r role) String() string {
	if r == anon {
		return "anon"
	}
	return "user"
}

// The signatures of api.bump, as Version.hasFunction knows them.
const (
	sigBumpOld = "bump(item)"
	sigBumpNew = "bump(item_id,amount)"
)

// refKind is the kind of schema object a request names, each answered
// differently when missing (oracle.go).
type refKind int

const (
	refProfile    refKind = iota // Accept-Profile or Content-Profile: api2
	refColumn                    // a column selected or filtered on
	refBodyColumn                // a key of a write's body
	refFunction                  // a function signature
	refLabel                     // an enum label given as a value
	refDelete                    // the role's DELETE privilege on api.items
)

// ref is one object a request names.
type ref struct {
	kind refKind
	// rel and name: the relation and column; name alone is the function
	// signature or the label.
	rel, name string
}

// request is one HTTP request of the workload, with what the oracle
// needs to judge its answer.
type request struct {
	kind    string // for reports: "read", "embed", "insert", ...
	role    role
	method  string
	path    string // path and query
	profile string // schema asked for with Accept-/Content-Profile, "" for the default
	prefer  string // preferences besides return=representation, which every write asks for
	body    string
	refs    []ref
	// okStatus is the status of a success.
	okStatus int
	// volatile marks a call of a VOLATILE function, which a server may
	// not retry once it has run.
	volatile bool
	// reshaped marks a call of a function a step gives another result
	// type under the same arguments: a node with the old snapshot
	// cannot answer the new result, and refuses it (503 SVC004).
	reshaped bool
	// check says whether a success's body is right when the catalog is
	// version c.
	check func(body []byte, c *Version) error
	// emptyRead, for a STABLE function reading api.items, is its answer
	// when the table looks empty to it (seesRewriteEmpty).
	emptyRead string
}

func columnRefs(rel string, cols []string) []ref {
	out := make([]ref, len(cols))
	for i, c := range cols {
		out[i] = ref{kind: refColumn, rel: rel, name: c}
	}
	return out
}

// pickCols is id and a random non-empty subset of cv's other item
// columns, in table order.
func pickCols(rng *rand.Rand, cols []string, always ...string) []string {
	out := []string{"id"}
	for _, c := range cols {
		if c != "id" && (slices.Contains(always, c) || rng.IntN(2) == 0) {
			out = append(out, c)
		}
	}
	if len(out) == 1 {
		out = append(out, cols[1+rng.IntN(len(cols)-1)])
	}
	return out
}

// seedID is a random seed row's id.
func seedID(rng *rand.Rand) int { return 1 + rng.IntN(seedRows) }

// pickLabel is one of cv's labels; a label outside baseLabels is named
// as a ref, since a catalog without it refuses it.
func pickLabel(rng *rand.Rand, cv *Version) (string, []ref) {
	l := cv.Labels[rng.IntN(len(cv.Labels))]
	if slices.Contains(baseLabels, l) {
		return l, nil
	}
	return l, []ref{{kind: refLabel, name: l}}
}

// readRequest is a random read as a client that knows version cv would
// send it: filters on the enum, domain, composite and extension columns,
// embeds in both directions, the view, STABLE functions and the other
// schema.
func readRequest(rng *rand.Rand, cv *Version, r role, led *ledger) *request {
	req := &request{kind: "read", role: r, method: "GET", okStatus: 200}
	items := func(cols []string, query string, want itemWant) {
		req.path = "/items?select=" + strings.Join(cols, ",") + query
		req.refs = append(req.refs, columnRefs("items", cols)...)
		req.check = func(body []byte, c *Version) error { return checkItems(body, cols, c, r, led, want) }
	}
	switch n := rng.IntN(13); n {
	case 0, 1: // rows by id, seed and written
		ids := []int{seedID(rng), seedID(rng)}
		ids = append(ids, led.recent(rng, 3)...)
		items(pickCols(rng, cv.ItemCols), "&id=in.("+joinInts(ids)+")", itemWant{ids: ids})
	case 2: // enum filter over the seed: exactly the seed rows of that mood
		label, refs := pickLabel(rng, cv)
		req.refs = append(refs, ref{kind: refColumn, rel: "items", name: "mood"})
		items(pickCols(rng, cv.ItemCols, "mood"), "&mood=eq."+label+"&id=lte."+strconv.Itoa(seedRows), itemWant{exact: true, onlySeeds: true, seeds: seedsWhere(func(id int) bool { return seedMood(id) == label }), mood: label})
	case 3: // enum filter over the newest rows
		label, refs := pickLabel(rng, cv)
		req.refs = append(refs, ref{kind: refColumn, rel: "items", name: "mood"})
		items(pickCols(rng, cv.ItemCols, "mood"), "&mood=eq."+label+"&order=id.desc&limit=20", itemWant{mood: label})
	case 4: // domain filter
		min := 1 + rng.IntN(seedRows)
		req.refs = append(req.refs, ref{kind: refColumn, rel: "items", name: "qty"})
		items(pickCols(rng, cv.ItemCols, "qty"), "&qty=gte."+strconv.Itoa(min)+"&id=lte."+strconv.Itoa(seedRows), itemWant{exact: true, onlySeeds: true, seeds: seedsWhere(func(id int) bool { return id >= min })})
	case 5: // composite field filter: seed w is its id; written rows' w is their qty
		w := seedID(rng)
		req.refs = append(req.refs, ref{kind: refColumn, rel: "items", name: "size"})
		items(pickCols(rng, cv.ItemCols, "size"), "&size->>w=eq."+strconv.Itoa(w)+"&order=id&limit=50", itemWant{exact: true, seeds: []int{w}, sizeW: w})
	case 6: // citext: a match whatever the case
		id := seedID(rng)
		req.refs = append(req.refs, ref{kind: refColumn, rel: "items", name: "email"})
		items(pickCols(rng, cv.ItemCols), "&email=eq."+url.QueryEscape(strings.ToUpper(email(id))), itemWant{exact: true, onlySeeds: true, seeds: []int{id}})
	case 7: // the column whose type changes
		id := seedID(rng)
		req.refs = append(req.refs, ref{kind: refColumn, rel: "items", name: "code"})
		items(pickCols(rng, cv.ItemCols), "&code=eq."+strconv.Itoa(id*7), itemWant{exact: true, onlySeeds: true, seeds: []int{id}})
	case 8: // the table that is dropped and recreated, and a to-many embed of it
		if rng.IntN(3) == 0 {
			id := seedID(rng)
			req.path = "/tags?select=item_id,label&item_id=eq." + strconv.Itoa(id)
			req.refs = columnRefs("tags", []string{"item_id", "label"})
			req.check = func(body []byte, _ *Version) error { return checkTags(body, id) }
			break
		}
		ids := append([]int{seedID(rng), seedID(rng)}, led.recent(rng, 2)...)
		req.path = "/items?select=id,tags(label)&id=in.(" + joinInts(ids) + ")"
		req.refs = []ref{{kind: refColumn, rel: "items", name: "id"}, {kind: refColumn, rel: "tags", name: "label"}}
		req.check = func(body []byte, c *Version) error { return checkTagged(body, ids, c, r, led) }
	case 9: // to-one embed, and the reverse to-many one
		if rng.IntN(2) == 0 {
			ids := append([]int{seedID(rng)}, led.recent(rng, 2)...)
			cols := []string{"id", cv.nameCol()}
			req.path = "/items?select=" + strings.Join(cols, ",") + ",authors(id,name)&id=in.(" + joinInts(ids) + ")"
			req.refs = append(columnRefs("items", cols), columnRefs("authors", []string{"id", "name"})...)
			req.check = func(body []byte, c *Version) error { return checkItemAuthors(body, cols, ids, c, r, led) }
		} else {
			author := 1 + rng.IntN(5)
			req.path = "/authors?select=id,name,items(id,qty,mood)&id=eq." + strconv.Itoa(author)
			req.refs = append(columnRefs("authors", []string{"id", "name"}), columnRefs("items", []string{"id", "qty", "mood"})...)
			req.check = func(body []byte, c *Version) error { return checkAuthorItems(body, author, c, r, led) }
		}
	case 10: // the view, which its owner's rights let read every row
		cols := pickCols(rng, cv.ViewCols)
		req.path = "/item_moods?select=" + strings.Join(cols, ",") + "&id=lte." + strconv.Itoa(seedRows)
		req.refs = columnRefs("item_moods", cols)
		req.check = func(body []byte, c *Version) error { return checkView(body, cols, c) }
	case 11: // STABLE functions: a scalar, one whose result type a step changes, and a set filtered like a table
		switch rng.IntN(3) {
		case 0:
			req.kind = "call"
			req.path = "/rpc/item_count"
			req.check = func(body []byte, _ *Version) error { return checkCount(body) }
			req.emptyRead = "0"
		case 1:
			req.kind = "call"
			n := 1 + rng.IntN(100)
			req.path = "/rpc/item_total?n=" + strconv.Itoa(n)
			req.reshaped = true
			req.check = func(body []byte, c *Version) error { return checkTotal(body, n, c) }
		default:
			req.kind = "call"
			label, refs := pickLabel(rng, cv)
			cols := []string{"id", "mood"}
			req.path = "/rpc/items_by_mood?m=" + label + "&select=id,mood&id=lte." + strconv.Itoa(seedRows)
			req.emptyRead = "[]"
			req.refs = append(refs, columnRefs("items", cols)...)
			req.check = func(body []byte, c *Version) error {
				return checkItems(body, cols, c, r, led, itemWant{exact: true, onlySeeds: true, seeds: seedsWhere(func(id int) bool { return seedMood(id) == label }), mood: label})
			}
		}
	case 12: // the other schema, when the client knows of it
		if !cv.Api2 {
			return readRequest(rng, cv, r, led)
		}
		req.path = "/things?select=id,label"
		req.profile = "api2"
		req.refs = []ref{{kind: refProfile, name: "api2"}}
		req.check = func(body []byte, _ *Version) error { return checkThings(body) }
	}
	return req
}

// writeBody is the JSON object a writer sends for row id at qty, with
// the columns a client that knows cv writes.
func writeBody(cv *Version, id, qty int, insert bool) (string, []ref) {
	m := map[string]any{"qty": qty, "mood": moodOf(qty), "size": map[string]int{"w": qty, "h": id}}
	if insert {
		m["id"] = id
		m["author_id"] = authorOf(id)
		m[cv.nameCol()] = fmt.Sprintf("item-%d", id)
		m["email"] = email(id)
		if cv.CodeText {
			m["code"] = strconv.Itoa(id * 7)
		} else {
			m["code"] = id * 7
		}
		if cv.hasItemCol("legacy") {
			m["legacy"] = fmt.Sprintf("l%d", id)
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	refs := make([]ref, len(keys))
	for i, k := range keys {
		refs[i] = ref{kind: refBodyColumn, rel: "items", name: k}
	}
	b, _ := json.Marshal(m)
	return string(b), refs
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

func email(id int) string   { return fmt.Sprintf("item-%d@drill.test", id) }
func authorOf(id int) int   { return id%5 + 1 }
func moodOf(qty int) string { return baseLabels[qty%3] }
func seedMood(id int) string {
	return moodOf(id) // a seed row's qty is its id
}

func seedsWhere(keep func(id int) bool) []int {
	var out []int
	for id := 1; id <= seedRows; id++ {
		if keep(id) {
			out = append(out, id)
		}
	}
	return out
}
