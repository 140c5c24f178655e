package stream

import "sync/atomic"

// Budget bounds the memory held bodies take across requests
// (server-response-buffers-max-bytes). A body takes from it what it holds
// past its first 64 KiB, which every body may hold, and gives it back
// when it ends; a body that cannot take more streams.
type Budget struct {
	max, used atomic.Int64
}

// SetMax sets the budget's bound; 0 (a Config without its defaults)
// keeps the bound it has.
func (b *Budget) SetMax(n int) {
	if n > 0 {
		b.max.Store(int64(n))
	}
}

// take has a body holding *held bytes of the budget hold n bytes of
// body, and reports whether the budget allows it: every body may hold
// its first Chunk.
func (b *Budget) take(held *int, n int) bool {
	if b == nil {
		return true
	}
	more := n - Chunk - *held
	if more <= 0 {
		return true
	}
	max := b.max.Load()
	if max <= 0 {
		return true // no bound set: a Server built without New's defaults
	}
	if b.used.Add(int64(more)) > max {
		b.used.Add(-int64(more))
		return false
	}
	*held += more
	return true
}

// give gives back what a body held.
func (b *Budget) give(held *int) {
	if b != nil && *held > 0 {
		b.used.Add(-int64(*held))
		*held = 0
	}
}
