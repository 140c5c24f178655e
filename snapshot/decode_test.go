package snapshot

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// fill sets every exported field reachable from v to a value distinct from
// every other field's (strings and numbers from a counter, bools true,
// slices of two, pointers allocated), so a decoder that reads fields in the
// wrong order or skips one cannot round-trip it.
func fill(v reflect.Value, n *int) {
	switch v.Kind() {
	case reflect.String:
		*n++
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		*n++
		v.SetInt(int64(*n))
	case reflect.Float64:
		*n++
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

func TestDecodeReadsEveryField(t *testing.T) {
	var c Content
	n := 0
	fill(reflect.ValueOf(&c).Elem(), &n)
	if got := roundTrip(t, c); !reflect.DeepEqual(got, c) {
		t.Errorf("content changed in the round trip:\n got %+v\nwant %+v", got, c)
	}
}

// roundTrip encodes c as a snapshot file and decodes it again.
func roundTrip(t *testing.T, c Content) Content {
	t.Helper()
	s, err := New(Header{GeneratorVersion: "test"}, c)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, s); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return got.Content
}

func TestDecodeKeepsNilAndEmptyApart(t *testing.T) {
	c := Content{Relations: []Relation{{Columns: []Column{}, PrimaryKey: nil, UniqueKeys: []UniqueKey{}}}}
	if got := roundTrip(t, c); !reflect.DeepEqual(got, c) {
		t.Errorf("got %#v, want %#v", got, c)
	}
}

// FuzzDecodeContent feeds arbitrary bytes to the hand decoder: it must
// return an error, never panic or read out of bounds, on any input.
func FuzzDecodeContent(f *testing.F) {
	c := sampleContent()
	s, err := New(Header{}, c)
	if err != nil {
		f.Fatal(err)
	}
	body, err := encodeContent(&s.Content)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeContent(data)
	})
}
