package shapes

import (
	"reflect"
	"strings"
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
// every string of a slice and what a pointer points to. It walks the
// struct's fields rather than naming them, so that a field added to it
// cannot escape the estimate; it runs once per shape kept.
func Texts(v any) int { return texts(reflect.ValueOf(v).Elem()) }

func texts(v reflect.Value) int {
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Slice:
		n := 0
		for i := range v.Len() {
			n += int(v.Type().Elem().Size()) + texts(v.Index(i))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return 0
		}
		return int(v.Type().Elem().Size()) + texts(v.Elem())
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += texts(v.Field(i))
		}
		return n
	}
	return 0
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
