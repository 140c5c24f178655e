package dbexec

import "sync"

// Response bodies arrive from PostgreSQL in the driver's read buffer, valid
// only while their row is read, so each is copied once before it is
// written to the client. The copies come from a pool: a page of rows is
// tens of kilobytes, and allocating that afresh for every request is most
// of what the garbage collector would otherwise have to do.

// maxPooledBody bounds the buffers kept for reuse, so one huge response
// does not pin its memory for the life of the process.
const maxPooledBody = 1 << 20

var bodyBuffers = sync.Pool{New: func() any { return new([]byte) }}

// takeBody returns an empty buffer from the pool.
func takeBody() *[]byte {
	b := bodyBuffers.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

// giveBody returns a buffer taken with takeBody. The caller must not use
// the buffer, nor any slice of it, afterwards.
func giveBody(b *[]byte) {
	if b == nil || cap(*b) > maxPooledBody {
		return
	}
	bodyBuffers.Put(b)
}
