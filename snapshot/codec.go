package snapshot

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

// FormatVersion is the snapshot layout this build writes and the only one it
// reads. Bump it whenever Content or Header change shape or meaning: a
// reader must not take an older snapshot's field for what it now says.
//
// Version 2: a column's Default also holds its identity sequence's next
// value and its domain's default (version 1 left them out, so a write
// with missing=default stored null there).
// Version 3: relations carry their computed fields, and only the casts
// that are domain representations are kept.
// Version 4: media type handlers: the aggregates that render rows for a
// media type, and the media type of functions returning one.
// Version 5: the domains the API shows, with their base type, NOT NULL
// and CHECK constraints.
// Version 6: the enums and composite types of the exposed schemas, which
// the TypeScript types of typed clients name, which direction of a
// relationship holds the foreign key, and which columns of a view take
// no write.
const FormatVersion = 6

// magic opens every snapshot file so that a wrong file is named as such
// before any msgpack decoding is tried. A big-endian uint16 format version
// follows it, outside the msgpack header, so that a reader can refuse a
// future layout even when that layout's header no longer decodes.
var magic = []byte("SVCSNAP\x00")

// Header describes a snapshot without its content.
type Header struct {
	FormatVersion    int       `msgpack:"format_version" json:"format_version"`
	GeneratorVersion string    `msgpack:"generator_version" json:"generator_version"`
	CreatedAt        time.Time `msgpack:"created_at" json:"created_at"`
	PGVersion        string    `msgpack:"pg_version" json:"pg_version"`
	PGVersionNum     int       `msgpack:"pg_version_num" json:"pg_version_num"`
	Schemas          []string  `msgpack:"schemas" json:"schemas"`
	ExtraSearchPath  []string  `msgpack:"extra_search_path" json:"extra_search_path"`
	// Fingerprint is the hex sha256 of the encoded Content: equal for two
	// dumps of an unchanged schema, different after any change.
	Fingerprint string `msgpack:"fingerprint" json:"fingerprint"`
}

// Snapshot is a decoded, indexed schema snapshot. Treat it as immutable once
// built: servers share one value between all requests.
type Snapshot struct {
	Header  Header  `json:"header"`
	Content Content `json:"content"`
	idx     index
}

// New returns a snapshot of content with its fingerprint computed and its
// index built.
func New(h Header, c Content) (*Snapshot, error) {
	body, err := encodeContent(&c)
	if err != nil {
		return nil, err
	}
	h.FormatVersion = FormatVersion
	h.Fingerprint = fingerprint(body)
	s := &Snapshot{Header: h, Content: c}
	s.buildIndex()
	return s, nil
}

func encodeContent(c *Content) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	// Type, schema and role names repeat across thousands of columns and
	// relationships; interning writes each once and lets the decoder share
	// one string per value instead of allocating it per occurrence.
	enc.UseInternedStrings(true)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("encode snapshot content: %w", err)
	}
	return buf.Bytes(), nil
}

func fingerprint(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// Encode writes s in the snapshot file format.
func Encode(w io.Writer, s *Snapshot) error {
	body, err := encodeContent(&s.Content)
	if err != nil {
		return err
	}
	h := s.Header
	h.FormatVersion = FormatVersion
	h.Fingerprint = fingerprint(body)
	head, err := msgpack.Marshal(&h)
	if err != nil {
		return fmt.Errorf("encode snapshot header: %w", err)
	}
	version := binary.BigEndian.AppendUint16(nil, FormatVersion)
	for _, part := range [][]byte{magic, version, head, body} {
		if _, err := w.Write(part); err != nil {
			return err
		}
	}
	return nil
}

// Decode reads a snapshot, checks its format version and fingerprint, and
// builds its index.
func Decode(r io.Reader) (*Snapshot, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	return decode(data)
}

// ReadFile decodes the snapshot at path; errors name the file.
func ReadFile(path string) (*Snapshot, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		var s *Snapshot
		if s, err = decode(data); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("snapshot %s: %w", path, err)
}

// decode reads a whole snapshot file's bytes. The snapshot's strings point
// into data (see decodeContent), so data must not be changed afterwards.
func decode(data []byte) (*Snapshot, error) {
	rest, ok := bytes.CutPrefix(data, magic)
	if !ok {
		return nil, errors.New("not an SVC snapshot (the file does not start with the snapshot signature)")
	}
	if len(rest) < 2 {
		return nil, errors.New("damaged snapshot: the file ends before its format version")
	}
	if version := binary.BigEndian.Uint16(rest); version != FormatVersion {
		return nil, fmt.Errorf("snapshot format version %d is not supported: this build reads version %d only (regenerate it with a matching svc-introspect)", version, FormatVersion)
	}
	br := bytes.NewReader(rest[2:])
	var h Header
	if err := msgpack.NewDecoder(br).Decode(&h); err != nil {
		return nil, fmt.Errorf("damaged snapshot header: %w", err)
	}
	h.CreatedAt = h.CreatedAt.UTC() // msgpack decodes times as local; dumps are stamped in UTC
	body := rest[len(rest)-br.Len():]
	if fp := fingerprint(body); fp != h.Fingerprint {
		return nil, fmt.Errorf("damaged snapshot: content fingerprint %.12s does not match the header's %.12s (truncated or altered file)", fp, h.Fingerprint)
	}
	content, err := decodeContent(body)
	if err != nil {
		return nil, fmt.Errorf("damaged snapshot content: %w", err)
	}
	s := &Snapshot{Header: h, Content: content}
	s.buildIndex()
	return s, nil
}

// WriteFile writes s to path atomically (temporary file in the same
// directory, then rename), so a server reloading concurrently never reads a
// half-written snapshot. It returns the number of bytes written.
func WriteFile(path string, s *Snapshot) (int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	w := bufio.NewWriter(tmp)
	if err := Encode(w, s); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	// CreateTemp makes the file private; a snapshot is read by servers
	// that often run as another user than the tool that wrote it.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	info, err := tmp.Stat()
	if err != nil {
		tmp.Close()
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return 0, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return info.Size(), nil
}

// SVCVersion is the version of SVC this build is; svc-introspect writes it
// into the header as GeneratorVersion.
const SVCVersion = "0.1.0-dev"
