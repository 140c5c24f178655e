package snapshot

import (
	"maps"
	"slices"
	"strings"
)

// functions compares functions by name. Overloads are matched by their
// input argument types; when a name keeps one overload that changed
// arguments, that is a signature change rather than a removal and an
// addition.
func (d *differ) functions(old, new []Function) {
	group := func(fs []Function) map[QualifiedName][]*Function {
		m := map[QualifiedName][]*Function{}
		for i := range fs {
			m[fs[i].QualifiedName] = append(m[fs[i].QualifiedName], &fs[i])
		}
		return m
	}
	before, after := group(old), group(new)
	names := slices.Collect(maps.Keys(before))
	for name := range after {
		if _, ok := before[name]; !ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		d.overloads(before[name], after[name])
	}
}

// overloads compares the overloads of one function name.
func (d *differ) overloads(old, new []*Function) {
	var gone []*Function
	added := slices.Clone(new)
	for _, o := range old {
		i := slices.IndexFunc(added, func(n *Function) bool { return inputTypes(n) == inputTypes(o) })
		if i < 0 {
			gone = append(gone, o)
			continue
		}
		d.function(o, added[i])
		added = slices.Delete(added, i, i+1)
	}
	if len(gone) == 1 && len(added) == 1 {
		d.function(gone[0], added[0])
		return
	}
	for _, o := range gone {
		d.add(Change{Kind: FunctionRemoved, Object: functionObject(o), Old: returnWords(o), Breaking: true,
			Reason: "its route is gone"})
	}
	for _, n := range added {
		d.add(Change{Kind: FunctionAdded, Object: functionObject(n), New: returnWords(n)})
	}
}

// function compares two versions of one overload. Object names the old one.
func (d *differ) function(o, n *Function) {
	object := functionObject(o)
	if os, ns := signatureWords(o), signatureWords(n); os != ns {
		c := Change{Kind: FunctionSignatureChanged, Object: object, Old: os, New: ns}
		if reason := signatureBreaks(o, n); reason != "" {
			c.Breaking, c.Reason = true, reason
		}
		d.add(c)
	}
	if or, nr := returnWords(o), returnWords(n); or != nr {
		d.add(Change{Kind: FunctionReturnChanged, Object: object, Old: or, New: nr, Breaking: true,
			Reason: "responses have another shape"})
	}
	if o.Volatility != n.Volatility {
		c := Change{Kind: FunctionVolatilityChanged, Object: object, Old: string(o.Volatility), New: string(n.Volatility)}
		if n.Volatility == Volatile {
			c.Breaking, c.Reason = true, "GET and HEAD may no longer call it"
		}
		d.add(c)
	}
	d.grants(object, o.Grants, n.Grants)
}

// signatureBreaks says why calls that worked against o may fail against n,
// or returns "" when n only adds optional arguments or defaults. Callers
// pass arguments by name, so order matters only for variadic ones.
func signatureBreaks(o, n *Function) string {
	after := map[string]*Argument{}
	for i := range n.Arguments {
		if a := &n.Arguments[i]; isInput(a.Mode) {
			after[a.Name] = a
		}
	}
	var problems []string
	for i := range o.Arguments {
		a := &o.Arguments[i]
		if !isInput(a.Mode) {
			continue
		}
		b, ok := after[a.Name]
		switch {
		case !ok:
			problems = append(problems, "argument "+argName(a)+" removed")
		case b.Type != a.Type || b.Mode != a.Mode:
			problems = append(problems, "argument "+argName(a)+" changed")
		case a.HasDefault && !b.HasDefault:
			problems = append(problems, "argument "+argName(a)+" lost its default")
		}
		delete(after, a.Name)
	}
	for i := range n.Arguments {
		if a := &n.Arguments[i]; isInput(a.Mode) && !a.HasDefault && after[a.Name] != nil {
			problems = append(problems, "required argument "+argName(a)+" added")
		}
	}
	if len(problems) == 0 && o.Variadic != n.Variadic {
		problems = append(problems, "variadic changed")
	}
	return strings.Join(problems, ", ")
}

func isInput(m ArgMode) bool { return m == ArgIn || m == ArgInOut || m == ArgVariadic }

func argName(a *Argument) string {
	if a.Name == "" {
		return "(unnamed " + a.Type + ")"
	}
	return a.Name
}

// functionObject names an overload by its input types, as PostgreSQL does.
func functionObject(f *Function) string {
	return f.QualifiedName.String() + "(" + inputTypes(f) + ")"
}

func inputTypes(f *Function) string {
	var types []string
	for _, a := range f.Arguments {
		if isInput(a.Mode) {
			types = append(types, a.Type)
		}
	}
	return strings.Join(types, ", ")
}

// signatureWords renders the input arguments: "(a integer, b text default)".
func signatureWords(f *Function) string {
	var args []string
	for _, a := range f.Arguments {
		if !isInput(a.Mode) {
			continue
		}
		w := strings.TrimSpace(a.Name + " " + a.Type)
		if a.Mode != ArgIn {
			w = string(a.Mode) + " " + w
		}
		if a.HasDefault {
			w += " default"
		}
		args = append(args, w)
	}
	return "(" + strings.Join(args, ", ") + ")"
}

// returnWords renders the result: its shape, type and output columns.
func returnWords(f *Function) string {
	w := "returns " + strings.ReplaceAll(string(f.Returns), "_", " ")
	if f.Returns != ReturnsVoid {
		w += " " + f.ReturnType.String()
	}
	var outs []string
	for _, a := range f.Arguments {
		if a.Mode == ArgOut || a.Mode == ArgInOut || a.Mode == ArgTable {
			outs = append(outs, strings.TrimSpace(a.Name+" "+a.Type))
		}
	}
	if len(outs) > 0 {
		w += " (" + strings.Join(outs, ", ") + ")"
	}
	return w
}
