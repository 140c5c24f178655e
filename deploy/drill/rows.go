package drill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The checks here judge a successful answer's body: its shape under the
// catalog version c (which columns, what JSON type each has) and its
// values against what the seed holds and the writers wrote. Rows are
// known by id: a seed row exactly, a written row through the ledger.

// itemWant is what a read of api.items must return beyond valid rows.
type itemWant struct {
	// ids, when not nil, are the ids asked for: every row has one, and
	// the seed rows among them (never deleted) are all there.
	ids []int
	// exact: the seed rows answered are exactly seeds.
	exact bool
	seeds []int
	// onlySeeds: the filter matches no written row.
	onlySeeds bool
	// mood and sizeW, when set, are what the filter asked every row to
	// have.
	mood  string
	sizeW int
}

func decode(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	return d.Decode(v)
}

func intOf(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.Atoi(string(n))
	return i, err == nil
}

func checkItems(body []byte, cols []string, c *Version, r role, led *ledger, w itemWant) error {
	var rows []map[string]any
	if err := decode(body, &rows); err != nil {
		return fmt.Errorf("not an array of objects: %v", err)
	}
	seen := map[int]bool{}
	for _, row := range rows {
		id, err := checkItem(row, cols, c, r, led)
		if err != nil {
			return err
		}
		if seen[id] {
			return fmt.Errorf("row %d twice", id)
		}
		seen[id] = true
		switch {
		case w.ids != nil && !slices.Contains(w.ids, id):
			return fmt.Errorf("row %d was not asked for", id)
		case w.onlySeeds && id > seedRows:
			return fmt.Errorf("row %d does not match the filter", id)
		case w.mood != "" && row["mood"] != w.mood:
			return fmt.Errorf("row %d has mood %v, filter asked for %s", id, row["mood"], w.mood)
		case w.exact && id <= seedRows && !slices.Contains(w.seeds, id):
			return fmt.Errorf("seed row %d does not match the filter", id)
		}
		if w.sizeW != 0 {
			if size, _ := row["size"].(map[string]any); size == nil || fmt.Sprint(size["w"]) != strconv.Itoa(w.sizeW) {
				return fmt.Errorf("row %d has size %v, filter asked for w = %d", id, row["size"], w.sizeW)
			}
		}
	}
	must := w.seeds
	if w.ids != nil {
		must = slices.DeleteFunc(slices.Clone(w.ids), func(id int) bool { return id > seedRows })
	}
	for _, id := range must {
		if !seen[id] {
			return fmt.Errorf("seed row %d missing", id)
		}
	}
	return nil
}

// knownRow checks that row id exists in the seed or was written, and
// that role r may see it under c's row-level security.
func knownRow(id int, c *Version, r role, led *ledger) error {
	if id >= 1 && id <= seedRows {
		return nil
	}
	owner, ok := led.owner(id)
	if !ok {
		return fmt.Errorf("row %d was never written", id)
	}
	if r == anon && owner == user && c.AnonHidesU1 {
		return fmt.Errorf("row %d of u1 shown to anon, whom the policy hides it from", id)
	}
	return nil
}

// checkItem checks one api.items row with keys cols and returns its id.
func checkItem(row map[string]any, cols []string, c *Version, r role, led *ledger) (int, error) {
	if len(row) != len(cols) {
		return 0, fmt.Errorf("keys %v, asked for %v", slices.Sorted(maps.Keys(row)), cols)
	}
	id, ok := intOf(row["id"])
	if !ok {
		return 0, fmt.Errorf("id %v is not an integer", row["id"])
	}
	if err := knownRow(id, c, r, led); err != nil {
		return 0, err
	}
	seed := id <= seedRows
	// qty, when known: selected, or read off size.w.
	qty := 0
	if seed {
		qty = id
	}
	for _, col := range cols {
		v, present := row[col]
		if !present {
			return 0, fmt.Errorf("row %d lacks %s", id, col)
		}
		bad := func(want any) error { return fmt.Errorf("row %d: %s is %v (%T), want %v", id, col, v, v, want) }
		switch col {
		case "id":
		case "author_id":
			if n, _ := intOf(v); n != authorOf(id) {
				return 0, bad(authorOf(id))
			}
		case "name", "title":
			if v != fmt.Sprintf("item-%d", id) {
				return 0, bad(fmt.Sprintf("item-%d", id))
			}
		case "qty", "size":
			n, err := qtyOf(col, v, id, c)
			if err != nil {
				return 0, err
			}
			if !seed && !led.wrote(id, n) {
				return 0, fmt.Errorf("row %d: %s says qty %d, which no writer wrote", id, col, n)
			}
			if (seed && n != id) || (qty != 0 && n != qty) {
				return 0, fmt.Errorf("row %d: %s says qty %d, the row's qty is %d", id, col, n, qty)
			}
			qty = n
		case "mood":
			if s, _ := v.(string); !slices.Contains(baseLabels, s) {
				return 0, bad(baseLabels)
			}
		case "code":
			if c.CodeText {
				if v != strconv.Itoa(id*7) {
					return 0, bad(strconv.Quote(strconv.Itoa(id * 7)))
				}
			} else if n, ok := intOf(v); !ok || n != id*7 {
				return 0, bad(id * 7)
			}
		case "email":
			if v != email(id) {
				return 0, bad(email(id))
			}
		case "legacy":
			if v != fmt.Sprintf("l%d", id) {
				return 0, bad(fmt.Sprintf("l%d", id))
			}
		case "color":
			if v != "red" {
				return 0, bad("red")
			}
		case "owner":
			if want := ownerName(id, led); v != want {
				return 0, bad(want)
			}
		default:
			return 0, fmt.Errorf("row %d: unexpected key %s", id, col)
		}
	}
	if m, ok := row["mood"]; ok && qty != 0 && m != moodOf(qty) {
		return 0, fmt.Errorf("row %d: mood %v with qty %d; a writer writes %s", id, m, qty, moodOf(qty))
	}
	return id, nil
}

// qtyOf reads qty from the qty column or from size (whose w is qty and h
// the id), checking the composite's fields under c.
func qtyOf(col string, v any, id int, c *Version) (int, error) {
	if col == "qty" {
		n, ok := intOf(v)
		if !ok || n < 1 {
			return 0, fmt.Errorf("row %d: qty %v is not a positive integer", id, v)
		}
		return n, nil
	}
	size, ok := v.(map[string]any)
	want := []string{"h", "w"}
	if c.DimsD {
		want = []string{"d", "h", "w"}
	}
	if !ok || !slices.Equal(slices.Sorted(maps.Keys(size)), want) {
		return 0, fmt.Errorf("row %d: size %v, want fields %v", id, v, want)
	}
	if h, _ := intOf(size["h"]); h != id {
		return 0, fmt.Errorf("row %d: size.h %v", id, size["h"])
	}
	if d, has := size["d"]; has && d != nil {
		return 0, fmt.Errorf("row %d: size.d %v, never written", id, d)
	}
	n, ok := intOf(size["w"])
	if !ok || n < 1 {
		return 0, fmt.Errorf("row %d: size.w %v", id, size["w"])
	}
	return n, nil
}

func ownerName(id int, led *ledger) string {
	if id <= seedRows {
		return "seed"
	}
	if r, _ := led.owner(id); r == user {
		return "u1"
	}
	return "anon"
}

// checkTagged checks items with their tags: a seed row has two, a
// written row none or the one its writer adds.
func checkTagged(body []byte, ids []int, c *Version, r role, led *ledger) error {
	var rows []struct {
		ID   json.Number      `json:"id"`
		Tags []map[string]any `json:"tags"`
	}
	if err := decode(body, &rows); err != nil {
		return fmt.Errorf("not items with tags: %v", err)
	}
	seen := map[int]bool{}
	for _, row := range rows {
		id, _ := intOf(row.ID)
		if err := knownRow(id, c, r, led); err != nil {
			return err
		}
		if !slices.Contains(ids, id) {
			return fmt.Errorf("row %d was not asked for", id)
		}
		seen[id] = true
		var labels []string
		for _, t := range row.Tags {
			l, _ := t["label"].(string)
			if len(t) != 1 || l == "" {
				return fmt.Errorf("row %d: tag %v", id, t)
			}
			labels = append(labels, l)
		}
		slices.Sort(labels)
		var want []string
		if id <= seedRows {
			want = []string{fmt.Sprintf("t%da", id), fmt.Sprintf("t%db", id)}
		}
		if !slices.Equal(labels, want) && (id <= seedRows || !slices.Equal(labels, []string{writerTag(id)})) {
			return fmt.Errorf("row %d: tags %v, want %v", id, labels, want)
		}
	}
	for _, id := range ids {
		if id <= seedRows && !seen[id] {
			return fmt.Errorf("seed row %d missing", id)
		}
	}
	return nil
}

// checkTags checks a seed row's two tags read from the tags table.
func checkTags(body []byte, id int) error {
	var rows []map[string]any
	if err := decode(body, &rows); err != nil || len(rows) != 2 {
		return fmt.Errorf("want the 2 tags of row %d, got %s", id, body)
	}
	var labels []string
	for _, row := range rows {
		if n, _ := intOf(row["item_id"]); n != id || len(row) != 2 {
			return fmt.Errorf("tag %v, want one of row %d", row, id)
		}
		l, _ := row["label"].(string)
		labels = append(labels, l)
	}
	slices.Sort(labels)
	if want := []string{fmt.Sprintf("t%da", id), fmt.Sprintf("t%db", id)}; !slices.Equal(labels, want) {
		return fmt.Errorf("row %d: tags %v, want %v", id, labels, want)
	}
	return nil
}

// checkItemAuthors checks items (cols) each with its author embedded.
func checkItemAuthors(body []byte, cols []string, ids []int, c *Version, r role, led *ledger) error {
	var rows []map[string]any
	if err := decode(body, &rows); err != nil {
		return fmt.Errorf("not an array of objects: %v", err)
	}
	for _, row := range rows {
		a, _ := row["authors"].(map[string]any)
		delete(row, "authors")
		id, err := checkItem(row, cols, c, r, led)
		if err != nil {
			return err
		}
		if n, _ := intOf(a["id"]); len(a) != 2 || n != authorOf(id) || a["name"] != fmt.Sprintf("author-%d", n) {
			return fmt.Errorf("row %d: author %v, want author %d", id, a, authorOf(id))
		}
	}
	return checkItems(mustJSON(rows), cols, c, r, led, itemWant{ids: ids})
}

// checkAuthorItems checks one author with its items.
func checkAuthorItems(body []byte, author int, c *Version, r role, led *ledger) error {
	var rows []struct {
		ID    json.Number     `json:"id"`
		Name  string          `json:"name"`
		Items json.RawMessage `json:"items"`
	}
	if err := decode(body, &rows); err != nil || len(rows) != 1 {
		return fmt.Errorf("want one author, got %s (%v)", body, err)
	}
	if id, _ := intOf(rows[0].ID); id != author || rows[0].Name != fmt.Sprintf("author-%d", author) {
		return fmt.Errorf("author %v %q, want %d", rows[0].ID, rows[0].Name, author)
	}
	var items []map[string]any
	if err := decode(rows[0].Items, &items); err != nil {
		return fmt.Errorf("items: %v", err)
	}
	for _, it := range items {
		if id, _ := intOf(it["id"]); authorOf(id) != author {
			return fmt.Errorf("item %d embedded under author %d", id, author)
		}
	}
	return checkItems(rows[0].Items, []string{"id", "qty", "mood"}, c, r, led, itemWant{
		exact: true, seeds: seedsWhere(func(id int) bool { return authorOf(id) == author })})
}

// checkView checks the view over the seed rows, all of which it shows
// (it runs with its owner's rights, which row-level security spares).
func checkView(body []byte, cols []string, c *Version) error {
	var rows []map[string]any
	if err := decode(body, &rows); err != nil {
		return fmt.Errorf("not an array of objects: %v", err)
	}
	if len(rows) != seedRows {
		return fmt.Errorf("%d rows, want the %d seed rows", len(rows), seedRows)
	}
	for _, row := range rows {
		if len(row) != len(cols) {
			return fmt.Errorf("keys %v, asked for %v", slices.Sorted(maps.Keys(row)), cols)
		}
		id, _ := intOf(row["id"])
		for _, col := range cols {
			var want any
			switch col {
			case "id":
				continue
			case "name", "title":
				want = fmt.Sprintf("item-%d", id)
			case "mood":
				want = seedMood(id)
			case "qty":
				want = json.Number(strconv.Itoa(id))
			}
			if row[col] != want {
				return fmt.Errorf("view row %d: %s is %v, want %v", id, col, row[col], want)
			}
		}
	}
	return nil
}

// checkCount checks item_count's scalar: every role sees the seed.
func checkCount(body []byte) error {
	var v any
	if err := decode(body, &v); err != nil {
		return err
	}
	if n, ok := intOf(v); !ok || n < seedRows {
		return fmt.Errorf("item_count is %s, want an integer of at least %d", body, seedRows)
	}
	return nil
}

// checkTotal checks item_total(n): 2n, or the table of two rows after
// "change function return type".
func checkTotal(body []byte, n int, c *Version) error {
	want := strconv.Itoa(2 * n)
	if c.TotalTable {
		want = fmt.Sprintf(`[{"total":%d,"tag":"x"},{"total":%[1]d,"tag":"y"}]`, 2*n)
	}
	if got := strings.Join(strings.Fields(string(body)), ""); got != want {
		return fmt.Errorf("item_total(%d) is %s, want %s", n, body, want)
	}
	return nil
}

func checkThings(body []byte) error {
	var rows []map[string]any
	if err := decode(body, &rows); err != nil || len(rows) != 3 {
		return fmt.Errorf("want the 3 things, got %s", body)
	}
	for _, row := range rows {
		id, _ := intOf(row["id"])
		if len(row) != 2 || id < 1 || id > 3 || row["label"] != fmt.Sprintf("thing-%d", id) {
			return fmt.Errorf("thing %v", row)
		}
	}
	return nil
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
