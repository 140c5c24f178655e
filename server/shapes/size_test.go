package shapes

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/svc-dev/svc/server/request"
	"github.com/svc-dev/svc/snapshot"
)

// The texts a kept shape holds of a request's headers are counted and
// copied by walking the types that hold them, so a field added to
// request.Preferences or request.Media cannot escape the estimate nor
// keep a request's header alive: each field is set here in turn, and the
// estimate must grow by at least its text, and Detach must copy it. A
// field of a kind Detach does not know (a map, say) fails the test until
// it learns it.
func TestTextsCoverEveryField(t *testing.T) {
	for _, v := range []any{&request.Preferences{}, &request.Media{}} {
		typ := reflect.TypeOf(v).Elem()
		for i := range typ.NumField() {
			f := typ.Field(i)
			t.Run(typ.Name()+"."+f.Name, func(t *testing.T) {
				ptr := reflect.New(typ)
				field := ptr.Elem().Field(i)
				text := strings.Repeat("x", 100)
				var shared func() bool
				switch {
				case f.Type.Kind() == reflect.String:
					field.SetString(text)
					shared = func() bool { return unsafe.StringData(field.String()) == unsafe.StringData(text) }
				case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
					field.Set(reflect.ValueOf([]string{text}).Convert(f.Type))
					shared = func() bool { return unsafe.StringData(field.Index(0).String()) == unsafe.StringData(text) }
				case f.Type.Kind() == reflect.Pointer && isScalar(f.Type.Elem().Kind()):
					field.Set(reflect.New(f.Type.Elem()))
					if n := Texts(ptr.Interface()); n < int(f.Type.Elem().Size()) {
						t.Errorf("a set %s counts %d bytes, less than it points to", f.Name, n)
					}
					return
				case isScalar(f.Type.Kind()):
					return // holds no text
				default:
					t.Fatalf("%s is a %s, which Detach does not know", f.Name, f.Type)
				}
				if n := Texts(ptr.Interface()); n < len(text) {
					t.Errorf("a %d-byte %s counts %d bytes", len(text), f.Name, n)
				}
				Detach(ptr.Interface())
				if shared() {
					t.Errorf("Detach left %s sharing the request's text", f.Name)
				}
			})
		}
	}
}

func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64:
		return true
	}
	return false
}

// Heap counts what a value reaches once, however many times it is
// reached, and leaves out what the snapshot holds.
func TestHeapCountsReachedMemoryOnce(t *testing.T) {
	type node struct {
		Name  string
		Rel   *snapshot.Relation
		Kids  []*node
		Index map[string]*node
		Any   any
	}
	text := strings.Repeat("x", 1000)
	leaf := &node{Name: text}
	alone := Heap(leaf)
	if alone < len(text) {
		t.Fatalf("a node of a %d-byte name counts %d bytes", len(text), alone)
	}
	rel := &snapshot.Relation{Columns: make([]snapshot.Column, 1000)}
	root := &node{Kids: []*node{leaf, leaf}, Index: map[string]*node{"a": leaf}, Any: leaf, Rel: rel}
	n := Heap(root)
	if n < alone || n > alone+2000 {
		t.Errorf("a root reaching one leaf four times, and a snapshot's relation, counts %d bytes; the leaf alone %d", n, alone)
	}
	root.Kids = append(root.Kids, &node{Name: strings.Repeat("y", 1000)})
	if m := Heap(root); m < n+1000 {
		t.Errorf("another leaf of a 1000-byte name grows the count from %d to %d", n, m)
	}
}
