// Command footprint reads a callgrind profile taken with --dump-instr=yes
// over a known number of requests and reports the code a request runs
// through: the instructions executed on at least half of the requests, and
// the 64-byte lines of code they fall in, by package and by function.
//
//	footprint -requests 2000 callgrind.out.1
//	footprint -requests 2000 -base old.out -base-requests 1900 new.out
//
// With -base it compares two profiles, the base's and the one named, say
// of a change and of the code before it: the lines each has, and the
// functions whose lines differ most.
//
// On the benchmark's machine a request's CPU follows the lines of code it
// touches far more than the instructions it executes: the kernel's network
// path between two requests leaves little of a server's code in the nearer
// caches, so each line scattered through the program is fetched again
// (docs/benchmarks.md, "Where a request's CPU goes"). Outside Go's
// runtime, whose count moves with how often the collector ran, the count
// stays within a few lines from one run of a build to the next, where a
// CPU reading moves by a percent or two, so it tells a cut's direction at
// once; whether it is worth the CPU is still for the load benchmark to
// say.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	requests := flag.Int("requests", 0, "requests the profile covers")
	share := flag.Float64("min", 0.5, "least executions per request for an instruction to count")
	top := flag.Int("top", 25, "packages and functions listed")
	base := flag.String("base", "", "a profile to compare with")
	baseRequests := flag.Int("base-requests", 0, "requests the base profile covers")
	flag.Parse()
	if *requests <= 0 || flag.NArg() != 1 || (*base != "") != (*baseRequests > 0) {
		log.Fatal("usage: footprint -requests N [-base OLD -base-requests M] callgrind.out")
	}
	p := load(flag.Arg(0))
	fp := p.hot(float64(*requests) * *share)
	if *base == "" {
		report(os.Stdout, fp, *requests, p.total, *top)
		return
	}
	old := load(*base).hot(float64(*baseRequests) * *share)
	compare(os.Stdout, old, fp, *top)
}

func load(path string) *profile {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	p, err := parse(f)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	return p
}

// profile is what a callgrind profile says of each instruction: how many
// times it ran and the function it belongs to.
type profile struct {
	runs  map[uint64]int64
	fn    map[uint64]string
	total int64 // instructions executed, calls' costs not counted twice
}

// parse reads a profile in callgrind's format with instruction positions
// (positions: instr line), its names and positions compressed or not.
func parse(r io.Reader) (*profile, error) {
	p := &profile{runs: map[uint64]int64{}, fn: map[uint64]string{}}
	names := map[string]string{}
	var fn string
	var addr uint64
	calls := int64(-1) // the count of the call whose cost line comes next
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case strings.HasPrefix(line, "positions:"):
			if f := strings.Fields(line[len("positions:"):]); len(f) == 0 || f[0] != "instr" {
				return nil, fmt.Errorf("%q: a profile taken without --dump-instr=yes gives no instruction's address", line)
			}
		case strings.HasPrefix(line, "fn="):
			fn = name(names, line[3:])
		case strings.HasPrefix(line, "cfn="):
			name(names, line[4:])
		case strings.HasPrefix(line, "calls="):
			n, err := strconv.ParseInt(strings.Fields(line[6:])[0], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			calls = n
		case strings.IndexByte("0123456789+-*", line[0]) >= 0:
			fields := strings.Fields(line)
			a, err := position(fields[0], addr)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			addr = a
			var n int64
			if calls >= 0 {
				// A call's line costs what the call did; the call
				// instruction itself ran once per call.
				n, calls = calls, -1
			} else if len(fields) > 2 {
				if n, err = strconv.ParseInt(fields[2], 10, 64); err != nil {
					return nil, fmt.Errorf("%q: %w", line, err)
				}
				p.total += n
			}
			p.runs[addr] += n
			p.fn[addr] = fn
		}
	}
	return p, sc.Err()
}

// name resolves a compressed name, "(id) name" defining id and "(id)"
// using it.
func name(names map[string]string, s string) string {
	if !strings.HasPrefix(s, "(") {
		return s
	}
	id, rest, _ := strings.Cut(s[1:], ")")
	if rest = strings.TrimSpace(rest); rest != "" {
		names[id] = rest
	}
	return names[id]
}

// position reads an instruction position: absolute, relative to the last
// (+n, -n), or the same (*), in decimal or 0x hexadecimal.
func position(s string, last uint64) (uint64, error) {
	if s == "*" {
		return last, nil
	}
	sign := s[0]
	if sign == '+' || sign == '-' {
		s = s[1:]
	}
	n, err := strconv.ParseUint(s, 0, 64)
	switch {
	case err != nil:
		return 0, err
	case sign == '+':
		return last + n, nil
	case sign == '-':
		return last - n, nil
	}
	return n, nil
}

// footprint is the code a request runs through.
type footprint struct {
	instrs int
	lines  int
	byPkg  map[string]float64 // lines, a line shared by k functions counting 1/k to each
	byFn   map[string]float64
}

// hot is the footprint of the instructions that ran at least least times.
func (p *profile) hot(least float64) footprint {
	fns := map[uint64]map[string]bool{}
	fp := footprint{byPkg: map[string]float64{}, byFn: map[string]float64{}}
	for a, n := range p.runs {
		if float64(n) < least {
			continue
		}
		fp.instrs++
		l := a >> 6
		if fns[l] == nil {
			fns[l] = map[string]bool{}
		}
		fns[l][strings.TrimSuffix(p.fn[a], "'2")] = true
	}
	fp.lines = len(fns)
	for _, set := range fns {
		for f := range set {
			fp.byFn[f] += 1 / float64(len(set))
			fp.byPkg[pkgOf(f)] += 1 / float64(len(set))
		}
	}
	return fp
}

// outsideRuntime is the lines of fp outside Go's runtime. The runtime's
// count moves from one profile to the next with how often the collector
// ran in it (its loops run many times a collection), where the rest's
// stays put.
func (fp footprint) outsideRuntime() float64 {
	n := float64(fp.lines)
	for pkg, l := range fp.byPkg {
		if pkg == "runtime" || strings.HasPrefix(pkg, "internal/runtime/") {
			n -= l
		}
	}
	return n
}

// pkgOf is the package of a Go function's symbol: its path up to the dot
// after the last slash ("runtime" for an assembly routine's bare name).
func pkgOf(fn string) string {
	if fn == "" {
		return "(unknown)"
	}
	slash := strings.LastIndexByte(fn, '/')
	if dot := strings.IndexByte(fn[slash+1:], '.'); dot >= 0 {
		return fn[:slash+1+dot]
	}
	return "runtime"
}

func report(w io.Writer, fp footprint, requests int, total int64, top int) {
	fmt.Fprintf(w, "requests %d, instructions per request %d\n", requests, total/int64(requests))
	fmt.Fprintf(w, "hot instructions %d in %d lines of code (%.1f KiB), %.0f outside the runtime\n",
		fp.instrs, fp.lines, float64(fp.lines)/16, fp.outsideRuntime())
	for _, t := range []struct {
		title string
		m     map[string]float64
	}{{"lines by package", fp.byPkg}, {"lines by function", fp.byFn}} {
		fmt.Fprintf(w, "\n%s:\n", t.title)
		for _, k := range largest(t.m, top) {
			fmt.Fprintf(w, "%7.1f  %s\n", t.m[k], k)
		}
	}
}

// compare writes the lines of old and of new, and the functions whose
// lines differ most between them, most lines gained first, then most lost.
func compare(w io.Writer, old, new footprint, top int) {
	fmt.Fprintf(w, "lines of code: base %d, this %d (%+d); outside the runtime: base %.0f, this %.0f (%+.0f)\n",
		old.lines, new.lines, new.lines-old.lines, old.outsideRuntime(), new.outsideRuntime(), new.outsideRuntime()-old.outsideRuntime())
	delta := map[string]float64{}
	for f, n := range new.byFn {
		delta[f] += n
	}
	for f, n := range old.byFn {
		delta[f] -= n
	}
	gained, lost := map[string]float64{}, map[string]float64{}
	for f, d := range delta {
		switch {
		case d > 0:
			gained[f] = d
		case d < 0:
			lost[f] = -d
		}
	}
	for _, t := range []struct {
		title string
		sign  float64
		m     map[string]float64
	}{{"gained", 1, gained}, {"lost", -1, lost}} {
		fmt.Fprintf(w, "\nlines %s, by function:\n", t.title)
		for _, k := range largest(t.m, top) {
			fmt.Fprintf(w, "%+7.1f  %s\n", t.sign*t.m[k], k)
		}
	}
}

// largest returns m's n keys of the largest values, largest first.
func largest(m map[string]float64, n int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys[:min(n, len(keys))]
}
