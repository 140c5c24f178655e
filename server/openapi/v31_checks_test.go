package openapi

import (
	"encoding/json"
	"testing"
)

// TestCheckKeywords: the checks JSON Schema can state become keywords,
// as pg_get_expr prints them; those it cannot, or could only state by
// refusing values PostgreSQL accepts, give none and are not "all said".
func TestCheckKeywords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, base, expr string
		nondeterministic bool
		want             string // the keywords as JSON
		all              bool
	}{
		{"positive", "integer", "(VALUE > 0)", false, `{"exclusiveMinimum":0}`, true},
		{"constant first", "integer", "(0 < VALUE)", false, `{"exclusiveMinimum":0}`, true},
		{"between", "integer", "((VALUE >= 0) AND (VALUE <= 16777215))", false, `{"minimum":0,"maximum":16777215}`, true},
		{"negative quoted", "bigint", "((VALUE <= 10) AND (VALUE > '-10'::integer))", false, `{"exclusiveMinimum":-10,"maximum":10}`, true},
		{"wider constant", "integer", "((VALUE >= '-5'::integer) AND (VALUE < '3000000000'::bigint))", false, `{"minimum":-5,"exclusiveMaximum":3000000000}`, true},
		{"numeric cast constants", "numeric", "((VALUE >= (0)::numeric) AND (VALUE <= (100)::numeric))", false, `{"minimum":0,"maximum":100}`, true},
		// Rounded to the scale first: -0.004 passes VALUE >= 0.
		{"numeric with a scale", "numeric(5,2)", "((VALUE >= (0)::numeric) AND (VALUE <= (100)::numeric))", false, `{"minimum":-0.005,"maximum":100.005}`, true},
		{"numeric with a scale, strict", "numeric(5,2)", "((VALUE > (0)::numeric) AND (VALUE < 1.5))", false, `{"minimum":0.005,"maximum":1.495}`, true},
		{"numeric(p) is scale 0", "numeric(4)", "(VALUE >= (1)::numeric)", false, `{"minimum":0.5}`, true},
		{"numeric with a scale, off the grid", "numeric(5,2)", "(VALUE > 0.001)", false, `{}`, false},
		{"numeric with a scale, list", "numeric(5,2)", "(VALUE = ANY (ARRAY[1.5, (2)::numeric]))", false, `{}`, false},
		{"numeric list", "numeric", "(VALUE = ANY (ARRAY[1.5, (2)::numeric]))", false, `{"enum":[1.5,2]}`, true},
		{"integer against a fraction", "integer", "((VALUE)::numeric > 0.5)", false, `{"exclusiveMinimum":0.5}`, true},
		{"domain over domain relabel", "integer", "((VALUE)::integer < 100)", false, `{"exclusiveMaximum":100}`, true},
		{"narrowest of two", "integer", "((VALUE > 1) AND (VALUE > 5) AND (VALUE >= 0))", false, `{"minimum":0,"exclusiveMinimum":5}`, true},
		{"equal", "integer", "(VALUE = 5)", false, `{"enum":[5]}`, true},
		{"integer list", "integer", "(VALUE = ANY (ARRAY[1, 2, 3]))", false, `{"enum":[1,2,3]}`, true},
		{"real strict exact", "real", "(VALUE > (0.5)::double precision)", false, `{"exclusiveMinimum":0.5}`, true},
		{"real inexact", "real", "(VALUE > (0.1)::double precision)", false, `{}`, false},
		{"double inclusive", "double precision", "(VALUE >= (0)::double precision)", false, `{}`, false},
		{"double strict", "double precision", "(VALUE < (1)::double precision)", false, `{"exclusiveMaximum":1}`, true},
		{"float list", "double precision", "(VALUE = ANY (ARRAY[(1)::double precision]))", false, `{}`, false},
		{"char_length between", "text", "((char_length(VALUE) >= 1) AND (char_length(VALUE) <= 20))", false, `{"minLength":1,"maxLength":20}`, true},
		{"varchar length", "character varying(30)", "(length((VALUE)::text) > 2)", false, `{"minLength":3}`, true},
		{"varchar shorter", "character varying(30)", "(char_length((VALUE)::text) <= 25)", false, `{"maxLength":25}`, true},
		// "abc  " is "abc" in a character varying(3).
		{"varchar as long", "character varying(3)", "(char_length((VALUE)::text) <= 3)", false, `{}`, false},
		{"length below", "text", "(char_length(VALUE) < 9)", false, `{"maxLength":8}`, true},
		{"length equal", "text", "(char_length(VALUE) = 2)", false, `{"minLength":2,"maxLength":2}`, true},
		{"length below zero", "text", "(char_length(VALUE) < 0)", false, `{}`, false},
		{"octet length", "text", "(octet_length(VALUE) <= 8)", false, `{}`, false},
		{"bpchar length", "character(5)", "(char_length(VALUE) <= 3)", false, `{}`, false},
		{"pattern", "text", "(VALUE ~ '^[A-Z]{3}[0-9]+$'::text)", false, `{"pattern":"^[A-Z]{3}[0-9]+$"}`, true},
		{"varchar pattern", "character varying", "((VALUE)::text ~ '^[A-Z]+$'::text)", false, `{"pattern":"^[A-Z]+$"}`, true},
		{"varchar(n) pattern", "character varying(6)", "((VALUE)::text ~ '^[A-Z]+$'::text)", false, `{}`, false},
		{"two patterns", "text", "((VALUE ~ '^a'::text) AND (VALUE ~ 'b$'::text))", false, `{"pattern":"^a","allOf":[{"pattern":"b$"}]}`, true},
		{"pattern with quote", "text", "(VALUE ~ '^it''s$'::text)", false, `{"pattern":"^it's$"}`, true},
		{"digit class", "text", `(VALUE ~ '^\d+$'::text)`, false, `{}`, false},
		{"case-insensitive match", "text", "(VALUE ~* '^a'::text)", false, `{}`, false},
		{"pattern, nondeterministic", "text", "(VALUE ~ '^a'::text)", true, `{}`, false},
		{"text list", "text", "(VALUE = ANY (ARRAY['red'::text, 'green'::text, 'blue'::text]))", false, `{"enum":["red","green","blue"]}`, true},
		{"varchar(n) list", "character varying(5)", "((VALUE)::text = ANY ((ARRAY['a'::character varying])::text[]))", false, `{}`, false},
		{"varchar list", "character varying", "((VALUE)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[]))", false, `{"enum":["a","b"]}`, true},
		{"text list, nondeterministic", "text", "(VALUE = ANY (ARRAY['a'::text]))", true, `{}`, false},
		{"lists intersect", "integer", "((VALUE = ANY (ARRAY[1, 2, 3])) AND (VALUE = ANY (ARRAY[2, 3, 4])))", false, `{"enum":[2,3]}`, true},
		{"part of an AND", "integer", "((VALUE > 0) AND ((VALUE % 2) = 0))", false, `{"exclusiveMinimum":0}`, false},
		{"OR", "integer", "((VALUE < 0) OR (VALUE > 10))", false, `{}`, false},
		{"function of value", "text", "(lower(VALUE) = VALUE)", false, `{}`, false},
		{"not equal", "text", "((VALUE)::text <> ''::text)", false, `{}`, false},
		{"is not null", "integer", "(VALUE IS NOT NULL)", false, `{}`, false},
		{"operator of another schema", "integer", "(VALUE OPERATOR(public.>) 0)", false, `{}`, false},
		{"function of another schema", "text", "(public.char_length(VALUE) <= 3)", false, `{}`, false},
		{"cast to a narrower type", "numeric", "((VALUE)::integer > 0)", false, `{}`, false},
		{"escape string", "text", `(VALUE ~ E'^a\\d'::text)`, false, `{}`, false},
		{"ALL", "integer", "(VALUE <> ALL (ARRAY[1, 2]))", false, `{}`, false},
		{"base without keywords", "date", "(VALUE > '2000-01-01'::date)", false, `{}`, false},
		{"text compared by order", "text", "(VALUE > 'a'::text)", false, `{}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := newCheckReader(c.base, c.nondeterministic)
			kw, all := r.read(c.expr)
			s := &jsonSchema{}
			kw.apply(s)
			got, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, c.want) || all != c.all {
				t.Errorf("%s over %s: %s, all said %v; want %s, %v", c.expr, c.base, got, all, c.want, c.all)
			}
		})
	}
}

// TestECMAPattern: a PostgreSQL regular expression is kept only when
// ECMA-262 reads it alike.
func TestECMAPattern(t *testing.T) {
	t.Parallel()
	for re, want := range map[string]string{
		`^[A-Z]{3}[0-9]+$`:         `^[A-Z]{3}[0-9]+$`,
		`^[a-z0-9_-]{1,30}$`:       `^[a-z0-9_-]{1,30}$`,
		`^(ab|cd)?x*$`:             `^(ab|cd)?x*$`,
		`^\.[a-z]{2,}$`:            `^\.[a-z]{2,}$`,
		`^.+@.+$`:                  `^[\s\S]+@[\s\S]+$`,
		`^[éà-ÿ]+$`:                `^[éà-ÿ]+$`,
		`a/b`:                      `a/b`,
		`^.$`:                      "", // one character: a newline, or one a validator without Unicode mode sees as two
		`^\d+$`:                    "",
		`^\w$`:                     "",
		`[^a-z]`:                   "",
		`[[:alpha:]]`:              "",
		`[]a]`:                     "",
		`[a\]]`:                    "",
		`[a-z-0]`:                  "",
		`(?i)abc`:                  "",
		`***:abc`:                  "",
		`(a)\1`:                    "",
		`a{2`:                      "",
		`a}`:                       "",
		`^*`:                       "",
		`a+?`:                      "",
		`\mword`:                   "",
		"^\U0001F600+$":            "",
		`^[a-z]{1,1000}$`:          "",
		`x|`:                       `x|`,
		`\(\)\[\]\{\}\|\*\+\?\^\$`: `\(\)\[\]\{\}\|\*\+\?\^\$`,
	} {
		got, ok := ecmaPattern(re)
		if ok != (want != "") || got != want {
			t.Errorf("ecmaPattern(%q) = %q, %v; want %q", re, got, ok, want)
		}
	}
}

// jsonEqual compares a JSON text with the expected one semantically.
func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(g)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}
