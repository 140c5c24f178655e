package dbexec

import (
	"encoding/binary"
	"testing"
)

// message frames body as a backend message of type typ.
func message(typ byte, body []byte) []byte {
	m := make([]byte, 5+len(body))
	m[0] = typ
	binary.BigEndian.PutUint32(m[1:], uint32(4+len(body)))
	copy(m[5:], body)
	return m
}

func TestFramingFollowsMessagesAcrossAnySplit(t *testing.T) {
	var stream []byte
	stream = append(stream, message('1', nil)...)
	stream = append(stream, message('D', make([]byte, 300))...)
	stream = append(stream, message('C', []byte("SELECT 1\x00"))...)
	stream = append(stream, message('Z', []byte("I"))...)
	// rest after each prefix of the stream, from the layout: within a
	// body it counts down, elsewhere it is 0.
	want := make([]int, len(stream)+1)
	for off := 0; off < len(stream); {
		n := int(binary.BigEndian.Uint32(stream[off+1:])) - 4
		for i := 0; i <= n; i++ {
			want[off+5+i] = n - i
		}
		off += 5 + n
	}
	for cut := 0; cut <= len(stream); cut++ {
		var f framing
		if !f.scan(stream[:cut]) {
			t.Fatalf("cut %d: framing lost", cut)
		}
		if f.rest != want[cut] {
			t.Fatalf("cut %d: rest = %d, want %d", cut, f.rest, want[cut])
		}
		if !f.scan(stream[cut:]) || f.rest != 0 || f.got != 0 {
			t.Fatalf("cut %d: after the whole stream rest = %d, got = %d, want 0, 0", cut, f.rest, f.got)
		}
	}
}

func TestFramingRejectsImpossibleLength(t *testing.T) {
	var f framing
	if f.scan([]byte{'D', 0, 0, 0, 3}) {
		t.Fatal("a length below 4 was accepted")
	}
}
