package catalog

import (
	"reflect"
	"testing"
)

func TestParseTargetList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		want    []target
		wantErr bool
	}{
		{
			name: "simple",
			in: `({QUERY :commandType 1 :utilityStmt <> :rtable ({RANGETBLENTRY :alias <> :eref {ALIAS :aliasname t :colnames ("id" "x")} :relid 16384}) ` +
				`:targetList ({TARGETENTRY :expr {VAR :varno 1 :varattno 1} :resno 1 :resname id :ressortgroupref 0 :resorigtbl 16384 :resorigcol 1 :resjunk false} ` +
				`{TARGETENTRY :expr {VAR :varno 1 :varattno 2} :resno 2 :resname x :ressortgroupref 0 :resorigtbl 16384 :resorigcol 2 :resjunk false}) :override 0})`,
			want: []target{{1, 16384, 1}, {2, 16384, 2}},
		},
		{
			// A CTE's query comes first and has its own target list.
			name: "nested target lists are skipped",
			in: `({QUERY :cteList ({COMMONTABLEEXPR :ctename c :ctequery {QUERY :targetList ({TARGETENTRY :expr <> :resno 1 :resname a :resorigtbl 99 :resorigcol 9 :resjunk false})}}) ` +
				`:rtable ({RANGETBLENTRY :subquery {QUERY :targetList ({TARGETENTRY :resno 1 :resname b :resorigtbl 98 :resorigcol 8 :resjunk false})}}) ` +
				`:targetList ({TARGETENTRY :expr {SUBLINK :subselect {QUERY :targetList ({TARGETENTRY :resno 1 :resorigtbl 97 :resorigcol 7 :resjunk false})}} :resno 1 :resname one :resorigtbl 0 :resorigcol 0 :resjunk false} ` +
				`{TARGETENTRY :expr {VAR :varno 3} :resno 2 :resname id :resorigtbl 500 :resorigcol 3 :resjunk false})})`,
			want: []target{{1, 0, 0}, {2, 500, 3}},
		},
		{
			// Names are one token with white space, parentheses, braces and
			// backslashes escaped, and a leading '"' or '<' too; a leading
			// ':' is not escaped at all (as PostgreSQL 15 writes them).
			name: "odd column names",
			in: `({QUERY :targetList ({TARGETENTRY :expr <> :resno 1 :resname :targetList :resorigtbl 7 :resorigcol 1 :resjunk false} ` +
				`{TARGETENTRY :expr <> :resno 2 :resname we\{ird\)\ na\\me :resorigtbl 7 :resorigcol 2 :resjunk false} ` +
				`{TARGETENTRY :expr <> :resno 3 :resname \"q"uoted\( :resorigtbl 7 :resorigcol 3 :resjunk false} ` +
				`{TARGETENTRY :expr <> :resno 4 :resname \<> :resorigtbl 7 :resorigcol 4 :resjunk false})})`,
			want: []target{{1, 7, 1}, {2, 7, 2}, {3, 7, 3}, {4, 7, 4}},
		},
		{
			// Const values are several tokens: length, then bytes in brackets.
			name: "constants",
			in: `({QUERY :targetList ({TARGETENTRY :expr {CONST :consttype 23 :constlen 4 :constbyval true :constisnull false :location 9 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]} ` +
				`:resno 1 :resname one :resorigtbl 0 :resorigcol 0 :resjunk false} {TARGETENTRY :expr {CONST :constvalue <>} :resno 2 :resname n :resorigtbl 0 :resorigcol 0 :resjunk false})})`,
			want: []target{{1, 0, 0}, {2, 0, 0}},
		},
		{
			name: "junk entries are not view columns",
			in: `({QUERY :targetList ({TARGETENTRY :expr <> :resno 1 :resname a :resorigtbl 5 :resorigcol 1 :resjunk false} ` +
				`{TARGETENTRY :expr <> :resno 2 :resname <> :resorigtbl 5 :resorigcol 2 :resjunk true})})`,
			want: []target{{1, 5, 1}},
		},
		{name: "empty target list", in: `({QUERY :targetList <> :override 0})`},
		{name: "not a query", in: `({SELECT :targetList <>})`, wantErr: true},
		{name: "truncated", in: `({QUERY :rtable ({RANGETBLENTRY :alias `, wantErr: true},
		{name: "no target list", in: `({QUERY :rtable <>})`, wantErr: true},
		{name: "bad number", in: `({QUERY :targetList ({TARGETENTRY :resno x})})`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseTargetList(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestResolveOrigin(t *testing.T) {
	t.Parallel()
	// View 30 shows view 20's column 2, which shows table 10's column 5.
	views := map[uint32][]target{
		20: {{1, 10, 1}, {2, 10, 5}},
		30: {{1, 20, 2}, {2, 0, 0}},
	}
	tests := []struct {
		from   colRef
		want   colRef
		wantOK bool
	}{
		{colRef{20, 2}, colRef{10, 5}, true},
		{colRef{10, 3}, colRef{10, 3}, true},
		{colRef{0, 0}, colRef{0, 0}, false},
		{colRef{20, 9}, colRef{20, 9}, false}, // no such view column
	}
	for _, tt := range tests {
		got, ok := resolveOrigin(views, tt.from)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("resolveOrigin(%v) = %v, %v; want %v, %v", tt.from, got, ok, tt.want, tt.wantOK)
		}
	}
	// A cycle cannot exist in a real catalog; it must still end.
	cyclic := map[uint32][]target{40: {{1, 41, 1}}, 41: {{1, 40, 1}}}
	if _, ok := resolveOrigin(cyclic, colRef{40, 1}); ok {
		t.Error("cycle resolved")
	}
}

func TestProduct(t *testing.T) {
	t.Parallel()
	got := product([][]string{{"a", "b"}, {"x"}, {"1", "2"}})
	want := [][]string{{"a", "x", "1"}, {"a", "x", "2"}, {"b", "x", "1"}, {"b", "x", "2"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := product(nil); got != nil {
		t.Errorf("product(nil) = %q, want nil", got)
	}
}
