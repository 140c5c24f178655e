package tstypes

import (
	"maps"
	"slices"
	"strings"

	"github.com/svc-dev/svc/snapshot"
)

// inputs are the arguments a caller passes: in, inout and variadic.
func inputs(f *snapshot.Function) []snapshot.Argument {
	var out []snapshot.Argument
	for _, a := range f.Arguments {
		if a.Mode == snapshot.ArgIn || a.Mode == snapshot.ArgInOut || a.Mode == snapshot.ArgVariadic {
			out = append(out, a)
		}
	}
	return out
}

// bodyTypes are the types of the one unnamed argument a call may pass the
// whole body as.
var bodyTypes = map[string]bool{"json": true, "jsonb": true, "text": true}

// callable reports whether rpc() can call f by its arguments' names, the
// functions Supabase's generator writes: no arguments, all named, unnamed
// ones only where they have a default and are of a body type, or one
// unnamed argument of a body type or of a relation's row type (a computed
// field or relationship).
func (g *generator) callable(f *snapshot.Function) bool {
	in := inputs(f)
	named, unnamedDefaults := true, true
	for _, a := range in {
		if a.Name == "" {
			named = false
			if !a.HasDefault || !bodyTypes[a.Type] {
				unnamedDefaults = false
			}
		}
	}
	if named || unnamedDefaults {
		return true
	}
	if len(in) != 1 {
		return false
	}
	if bodyTypes[in[0].Type] {
		return true
	}
	q, ok := parseQualified(in[0].Type)
	return ok && g.snap.Relation(q) != nil
}

// collectFunctions picks the written schemas' functions rpc() can call
// and, under a role, it may execute.
func (g *generator) collectFunctions() {
	g.functions = map[string][]*snapshot.Function{}
	for i := range g.snap.Content.Functions {
		f := &g.snap.Content.Functions[i]
		if !g.schemas[f.Schema] || !g.callable(f) || (g.access != nil && !g.access.Execute(f)) {
			continue
		}
		g.functions[f.Schema] = append(g.functions[f.Schema], f)
	}
}

// signature is one overload as written: its Args, Returns and, for a
// function returning rows of a relation, SetofOptions.
type signature struct{ args, returns, setof string }

// writeFunctions writes schema s's Functions: an object type per
// function, a union of them for overloads, ordered by their Args.
func (g *generator) writeFunctions(w *writer, s string) {
	w.open("Functions: {")
	overloads := map[string][]*snapshot.Function{}
	for _, f := range g.functions[s] {
		overloads[f.Name] = append(overloads[f.Name], f)
	}
	byName := map[string][]signature{}
	for name, fs := range overloads {
		for _, f := range fs {
			sig := g.signature(f)
			if why := ambiguous(f, fs); why != "" {
				sig.returns, sig.setof = "{ error: true } & "+jsString(why), ""
			}
			byName[name] = append(byName[name], sig)
		}
	}
	if len(byName) == 0 {
		w.line("[_ in never]: never")
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		sigs := byName[name]
		slices.SortFunc(sigs, func(a, b signature) int {
			if c := strings.Compare(a.args, b.args); c != 0 {
				return c
			}
			return strings.Compare(a.returns, b.returns)
		})
		if len(sigs) == 1 {
			w.open(key(name) + ": {")
			writeSignature(w, sigs[0])
			w.close("}")
			continue
		}
		w.open(key(name) + ":")
		for _, sig := range sigs {
			// A member's fields line up past its "| {".
			w.line("| {")
			w.depth += 2
			writeSignature(w, sig)
			w.depth--
			w.line("}")
			w.depth--
		}
		w.depth--
	}
	w.close("}")
}

func writeSignature(w *writer, sig signature) {
	w.line("Args: " + sig.args)
	w.line("Returns: " + sig.returns)
	if sig.setof != "" {
		w.line("SetofOptions: " + sig.setof)
	}
}

// signature types f's arguments and result. Arguments are by name
// (sorted), a default making one optional; none is
// Record<PropertyKey, never>, which rpc() takes without arguments.
func (g *generator) signature(f *snapshot.Function) signature {
	in := inputs(f)
	args := "Record<PropertyKey, never>"
	if len(in) > 0 {
		slices.SortStableFunc(in, func(a, b snapshot.Argument) int { return strings.Compare(a.Name, b.Name) })
		parts := make([]string, len(in))
		for i, a := range in {
			k := key(a.Name)
			if a.HasDefault {
				k += "?"
			}
			parts[i] = k + ": " + g.tsType(a.Type)
		}
		args = "{ " + strings.Join(parts, "; ") + " }"
	}
	returns := g.returnType(f)
	if rel, ok := rowArgument(g.snap, in); ok && g.returnsRelation(f) == nil {
		// A computed field: svc-serve selects it as a column of rel, and
		// rpc() cannot pass it an unnamed row, so a call is made a type
		// error that says so, as Supabase's generator does.
		returns = "{ error: true } & " + jsString(f.QualifiedName.String()+" takes an unnamed row of "+rel.String()+
			": select it as a column of "+rel.Name+", rpc() cannot call it")
		return signature{args: args, returns: returns}
	}
	set := f.Returns == snapshot.ReturnsSetOfComposite || f.Returns == snapshot.ReturnsSetOfScalar
	target := g.returnsRows(f)
	many := f.Rows > 1
	// A set estimated at one row (ROWS 1) and of a relation's rows is
	// one row to postgrest-js, which then reads SetofOptions.
	if set && (many || target == "") {
		returns = arrayOf(returns)
	}
	sig := signature{args: args, returns: returns}
	if target != "" {
		from := "*"
		// A function of one row of a relation (its only argument) is a
		// computed relationship or field, embedded from that relation.
		if len(f.Arguments) == 1 {
			if q, ok := parseQualified(f.Arguments[0].Type); ok && g.snap.Relation(q) != nil {
				from = q.Name
			}
		}
		sig.setof = "{ from: " + jsString(from) + "; to: " + jsString(target) +
			"; isOneToOne: " + boolString(!many) + "; isSetofReturn: " + boolString(set) + " }"
	}
	return sig
}

// ambiguous says why no call of f can be told from one of another of
// its overloads, or "": svc-serve, as PostgREST, chooses an overload by
// the names of the arguments a call gives, so overloads taking the same
// names with the same defaults (clash(x integer), clash(x text)), or one
// taking none beside one taking a single unnamed argument with a
// default, are refused when called. Supabase's generator makes such
// calls type errors; so do these types, in their own words. Overloads
// that some call tells apart (add(a, b = 1) and add(a, b): a call giving
// only a) are kept, though a call giving both is refused.
func ambiguous(f *snapshot.Function, overloads []*snapshot.Function) string {
	names := func(g *snapshot.Function) (all, required []string) {
		for _, a := range inputs(g) {
			all = append(all, a.Name)
			if !a.HasDefault {
				required = append(required, a.Name)
			}
		}
		slices.Sort(all)
		slices.Sort(required)
		return all, required
	}
	mine, mineRequired := names(f)
	for _, o := range overloads {
		if o == f {
			continue
		}
		theirs, theirsRequired := names(o)
		in := inputs(o)
		same := len(mine) > 0 && !slices.Contains(mine, "") && slices.Equal(mine, theirs) && slices.Equal(mineRequired, theirsRequired)
		emptyArg := len(mine) == 0 && len(in) == 1 && in[0].Name == "" && in[0].HasDefault
		if same || emptyArg {
			return "svc-serve cannot choose between the overloads of " + f.QualifiedName.String() +
				" taking arguments (" + strings.Join(mine, ", ") + "): rename the arguments or the functions"
		}
	}
	return ""
}

// rowArgument reports whether in is a single unnamed argument of a
// relation's row type, and names the relation.
func rowArgument(snap *snapshot.Snapshot, in []snapshot.Argument) (snapshot.QualifiedName, bool) {
	if len(in) != 1 || in[0].Name != "" {
		return snapshot.QualifiedName{}, false
	}
	q, ok := parseQualified(in[0].Type)
	return q, ok && snap.Relation(q) != nil
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// returnsRows names what f returns rows of, for SetofOptions: a written
// relation, or a composite type of a schema written, as Supabase's
// generator names it; "" for anything else.
func (g *generator) returnsRows(f *snapshot.Function) string {
	if o := g.returnsRelation(f); o != nil {
		return o.Name
	}
	if f.Returns == snapshot.ReturnsComposite || f.Returns == snapshot.ReturnsSetOfComposite {
		if t := g.composites[f.ReturnType]; t != nil && g.schemas[t.Schema] {
			return t.Name
		}
	}
	return ""
}

// returnsRelation returns the written relation whose rows f returns, or
// nil.
func (g *generator) returnsRelation(f *snapshot.Function) *outRelation {
	if f.Returns != snapshot.ReturnsComposite && f.Returns != snapshot.ReturnsSetOfComposite {
		return nil
	}
	if r := g.snap.Relation(f.ReturnType); r != nil {
		return g.relation(r)
	}
	return nil
}

// returnType is what one call of f gives (one row of a set): its TABLE,
// OUT or INOUT columns as an object, a relation's row inline, else its
// return type. A set is made an array by the caller.
func (g *generator) returnType(f *snapshot.Function) string {
	if f.Returns == snapshot.ReturnsVoid {
		return "undefined"
	}
	if f.Media != nil {
		// Its value is a body in its media type, not JSON.
		return "unknown"
	}
	var cols []snapshot.Argument
	for _, a := range f.Arguments {
		if a.Mode == snapshot.ArgTable || a.Mode == snapshot.ArgOut || a.Mode == snapshot.ArgInOut {
			cols = append(cols, a)
		}
	}
	if len(cols) > 0 && (f.Returns == snapshot.ReturnsComposite || f.Returns == snapshot.ReturnsSetOfComposite) {
		slices.SortStableFunc(cols, func(a, b snapshot.Argument) int { return strings.Compare(a.Name, b.Name) })
		parts := make([]string, len(cols))
		for i, a := range cols {
			parts[i] = key(a.Name) + ": " + g.tsType(a.Type)
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	if o := g.returnsRelation(f); o != nil {
		var parts []string
		for _, c := range columns(o.Relation) {
			if g.may(o.Relation, c, snapshot.PrivSelect) {
				parts = append(parts, key(c.Name)+": "+withNull(g.tsType(columnType(c)), g.holdsNull(o.Relation, c)))
			}
		}
		return "{ " + strings.Join(parts, "; ") + " }"
	}
	if f.ReturnsRecord || f.Returns == snapshot.ReturnsComposite || f.Returns == snapshot.ReturnsSetOfComposite {
		if t := g.composites[f.ReturnType]; t != nil && g.schemas[t.Schema] {
			return g.userType(f.ReturnType)
		}
		// A record, or a composite type of a schema not written.
		return "Record<string, unknown>"
	}
	return g.catalogType(f.ReturnType)
}
