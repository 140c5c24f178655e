package shapes

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/svc-dev/svc/server/query"
	"github.com/svc-dev/svc/snapshot"
)

// What a kept shape costs the heap, estimated for the shape cache's
// server-shape-cache-max-bytes. The estimate counts what grows with the
// request (the statement's text, its arguments, the key, texts taken
// from headers) and a fixed part for the rest; TestShapeBytesCoverHeap
// (package server) measures the heap kept shapes hold and fails when the
// estimate falls below it. It holds because a kept shape shares nothing
// with its request: Statement.Shape copies what the statements keep of
// the URL, and Detach what the shape keeps of the headers, so no kept
// shape keeps a request's text alive beyond what it counts.

// Overhead is what a kept shape costs besides what its Bytes counts: the
// cache's list element and map entry.
const Overhead = 512

// Texts counts the texts v, a pointer to a struct of what a request's
// headers say (request.Preferences, request.Media), holds: every string,
// every slice and what a pointer points to, as Heap counts them, the
// struct's own bytes left to its holder. It walks the struct's fields
// rather than naming them, so that a field added to it cannot escape the
// estimate; it runs once per shape kept.
func Texts(v any) int {
	h := heapWalk{seen: map[uintptr]bool{}}
	return h.refs(reflect.ValueOf(v).Elem())
}

// Detach copies the texts of v, a pointer to a struct Texts counts, so
// that a kept shape does not keep the request's headers alive: every
// string, and every slice of strings, copied; nil stays nil.
func Detach(v any) { detach(reflect.ValueOf(v).Elem()) }

func detach(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(strings.Clone(v.String()))
		}
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() || v.Type().Elem().Kind() != reflect.String {
			return
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).SetString(strings.Clone(v.Index(i).String()))
		}
		v.Set(out)
	case reflect.Struct:
		for i := range v.NumField() {
			detach(v.Field(i))
		}
	}
}

// Heap estimates the heap v, a pointer, reaches beyond what a snapshot
// holds: each struct, slice, map and string, each once, as the allocator
// rounds it (query.Allocated). A pointer to a type of package snapshot is
// not followed: the snapshot in force holds it whether a shape is kept or
// not. It walks the values rather than naming their fields, so that a
// field added to a plan cannot escape the estimate; it runs once per
// shape kept.
func Heap(v any) int {
	h := heapWalk{seen: map[uintptr]bool{}}
	return h.refs(reflect.ValueOf(v))
}

// heapWalk remembers what Heap has counted.
type heapWalk struct{ seen map[uintptr]bool }

// first reports whether the memory at p is met for the first time.
func (h *heapWalk) first(p uintptr) bool {
	if p == 0 || h.seen[p] {
		return false
	}
	h.seen[p] = true
	return true
}

// refs is the heap v reaches, not counting v's own bytes, which its
// holder counts.
func (h *heapWalk) refs(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		if v.Len() == 0 || !h.first(uintptr(unsafe.Pointer(unsafe.StringData(v.String())))) {
			return 0
		}
		return query.Allocated(v.Len())
	case reflect.Slice:
		if v.IsNil() || !h.first(v.Pointer()) {
			return 0
		}
		n := query.Allocated(v.Cap() * int(v.Type().Elem().Size()))
		for i := range v.Len() {
			n += h.refs(v.Index(i))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() || v.Type().Elem().PkgPath() == snapshotPkg || !h.first(v.Pointer()) {
			return 0
		}
		return query.Allocated(int(v.Type().Elem().Size())) + h.refs(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			return h.refs(e)
		}
		return query.Allocated(int(e.Type().Size())) + h.refs(e)
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += h.refs(v.Field(i))
		}
		return n
	case reflect.Array:
		n := 0
		for i := range v.Len() {
			n += h.refs(v.Index(i))
		}
		return n
	case reflect.Map:
		if v.IsNil() || !h.first(v.Pointer()) {
			return 0
		}
		// A map's groups hold eight slots each, at most seven in
		// eight in use, and a control word; its header besides.
		slot := int(v.Type().Key().Size() + v.Type().Elem().Size())
		groups := (v.Len()*8/7)/8 + 1
		n := mapHeader + groups*(8*slot+8)
		for it := v.MapRange(); it.Next(); {
			n += h.refs(it.Key()) + h.refs(it.Value())
		}
		return n
	}
	return 0
}

// mapHeader is a map's own bytes and its directory's.
const mapHeader = 64

// snapshotPkg is the package whose values a snapshot holds.
var snapshotPkg = reflect.TypeFor[snapshot.Relation]().PkgPath()
