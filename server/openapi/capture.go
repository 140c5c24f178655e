package openapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"

	"github.com/svc-dev/svc/snapshot"
)

// Doc is a document as the Cache answers one request for it: whole
// (Body), compressed, or to be built as it is written.
type Doc struct {
	// Body is the whole document, when the cache holds it whole.
	Body []byte
	// Size is the document's length in bytes, or -1 when it is built as
	// it is written and known only at its end.
	Size int64
	// zipped is the document gzip-compressed, when kept so.
	zipped []byte
	// What a build as it is written needs.
	cache  *Cache
	snap   *snapshot.Snapshot
	opts   Options
	layout *layout
}

// kept reports whether d holds the document's bytes.
func (d *Doc) kept() bool { return d.Body != nil || d.zipped != nil }

// held is the memory d's bytes take.
func (d *Doc) held() int64 { return int64(len(d.Body) + len(d.zipped)) }

// Write writes the document to w: the bytes kept, decompressed as they
// are written when kept compressed, or a build, in its turn among the
// builds written to clients (ctx bounds the wait), that holds one path or
// schema at a time. A failure of w ends it with w's error; the document is then
// incomplete, which the caller must not let pass for a whole one.
func (d Doc) Write(ctx context.Context, w io.Writer) error {
	switch {
	case d.Body != nil:
		_, err := w.Write(d.Body)
		return err
	case d.zipped != nil:
		zr, err := gzip.NewReader(bytes.NewReader(d.zipped))
		if err != nil {
			return err
		}
		buf := make([]byte, streamBuffer)
		for {
			n, err := zr.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return werr
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	c := d.cache
	select {
	case c.streams <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.streams }()
	c.builds.Add(1)
	return write(w, d.snap, d.opts, d.layout)
}

// A capture is where a document built for the cache is written: whole
// up to captureRaw (and the cache's bound), then gzip-compressed, until
// the compressed document passes the bound. It holds at most the bound
// (and captureRaw), whatever the document's size.
type capture struct {
	max int64
	// n counts the document's bytes.
	n   int64
	raw []byte
	zw  *gzip.Writer
	z   bytes.Buffer
}

// captureRaw is what a capture holds uncompressed: most documents are
// smaller, and are kept as they were written, never compressed.
const captureRaw = 1 << 20

// errCaptureFull ends a build for the cache of a document that would not
// fit it even compressed.
var errCaptureFull = errors.New("openapi: the document is larger than the cache may hold, even compressed")

func newCapture(max int64) *capture { return &capture{max: max} }

func (c *capture) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.zw == nil {
		if int64(len(c.raw)+len(p)) <= min(c.max, captureRaw) {
			c.raw = append(c.raw, p...)
			return len(p), nil
		}
		c.zw, _ = gzip.NewWriterLevel(&c.z, gzip.BestSpeed) // a valid level: no error
		if _, err := c.zw.Write(c.raw); err != nil {
			return 0, err
		}
		c.raw = nil
	}
	if _, err := c.zw.Write(p); err != nil {
		return 0, err
	}
	if int64(c.z.Len()) > c.max {
		return 0, errCaptureFull
	}
	return len(p), nil
}

// doc is the document captured, as the cache keeps it: whole when it
// fits the bound (decompressed once here), else compressed, else
// nothing (too large: built for each request).
func (c *capture) doc() (Doc, error) {
	if c.zw == nil {
		return Doc{Body: bytes.Clone(c.raw), Size: c.n}, nil
	}
	if err := c.zw.Close(); err != nil {
		return Doc{}, err
	}
	if int64(c.z.Len()) > c.max {
		return Doc{}, nil
	}
	if c.n > c.max {
		return Doc{zipped: bytes.Clone(c.z.Bytes()), Size: c.n}, nil
	}
	body := make([]byte, c.n)
	zr, err := gzip.NewReader(&c.z)
	if err != nil {
		return Doc{}, err
	}
	if _, err := io.ReadFull(zr, body); err != nil {
		return Doc{}, err
	}
	return Doc{Body: body, Size: c.n}, nil
}
