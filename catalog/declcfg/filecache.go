package declcfg

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/upgraph/upgraph/internal/atomicfile"
	"github.com/upgraph/upgraph/internal/cacheprune"
)

// FileCache keeps what decoding each catalog file gave (its blobs' keys,
// lines and canonical bytes), by the SHA-256 of the file's bytes, in a
// directory, so that a load meets the files it decoded before (a catalog
// regenerated after one bundle changed) and reads their blobs back
// instead of decoding their YAML or JSON again. The decoded form depends
// on a file's bytes alone, not its name, so an entry is the same whatever
// file or catalog the bytes come from; positions name the file being
// loaded. Only files that decode without an error are kept. An entry
// that does not read back whole (its checksum, sizes and counts) is a
// miss, and the file is decoded and its entry written again.
//
// Entries are immutable, written to a temporary file beside them and
// renamed into place, so concurrent loads and a killed one leave either
// no entry or a whole one (one entry, about the file's size in compact
// JSON, per content).
//
// The cache is bounded (filecache_prune.go): an entry's modification
// time is when it was last used (written, or read back: a read refreshes
// it when it is more than refreshAfter old, so that a load does not write
// a time per file), and a load at most once every pruneEvery removes the
// entries not used for Retention, then the least recently used beyond
// MaxBytes, and the temporary files of killed runs. A catalog regenerated
// on a schedule thus keeps the entries of the files it reads and loses
// those of the contents that changed, a week later by default.
type FileCache struct {
	// Dir holds the entries, under Dir/<decodedFormat>/.
	Dir string
	// Retention is how long an entry no load used is kept
	// (DefaultRetention when 0).
	Retention time.Duration
	// MaxBytes caps the entries' total size: beyond it the least recently
	// used are removed (DefaultMaxBytes when 0).
	MaxBytes int64
}

// decodedFormat versions the entries: the layout below and what decoding
// makes of a file's bytes (stream.go, canon.go, yamlsubset.go). Change it
// whenever the same bytes would decode to other blobs, keys, lines or
// offsets, so that entries of the old decoding are never read.
const decodedFormat = "decoded-v1"

// entryMagic starts every entry.
const entryMagic = "upgraph decoded catalog file\n"

// path is the entry of a file whose bytes hash to sum.
func (c *FileCache) path(sum [sha256.Size]byte) string {
	h := hex.EncodeToString(sum[:])
	return filepath.Join(c.Dir, decodedFormat, h[:2], h)
}

// get returns the blobs of the file name whose bytes hash to sum, as
// decodeData would make them, or false.
//
// An entry removed meanwhile (by another run's pruning) is a miss. One
// used for the first time in refreshAfter gets the time of this use, so
// that pruning keeps it; a cache that cannot be written (read-only, or
// the entry just removed) costs only the entry's removal later.
func (c *FileCache) get(name string, sum [sha256.Size]byte) (fileResult, bool) {
	p := c.path(sum)
	data, mod, err := cacheprune.ReadEntry(p, math.MaxInt32)
	if err != nil {
		return fileResult{}, false
	}
	r, err := parseEntry(name, data)
	if err != nil {
		return fileResult{}, false
	}
	cacheprune.Used(p, mod, time.Now(), refreshAfter)
	return r, true
}

// put records r, the blobs of a file whose bytes hash to sum, replacing
// a damaged entry. A cache that cannot be written costs only time: the
// error is dropped.
func (c *FileCache) put(sum [sha256.Size]byte, r fileResult) {
	p := c.path(sum)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	_ = atomicfile.Write(p, ".tmp-*", appendEntry(nil, r))
}

// An entry is entryMagic, the number of blobs, for each its line, offset
// in the file, schema, package and name (lengths and integers as
// uvarints), then every blob's size and bytes, and the CRC-32 (IEEE,
// little endian) of everything before it.
func appendEntry(b []byte, r fileResult) []byte {
	b = append(b, entryMagic...)
	b = binary.AppendUvarint(b, uint64(len(r.metas)))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	for i, m := range r.metas {
		b = binary.AppendUvarint(b, uint64(m.Pos.Line))
		b = binary.AppendUvarint(b, uint64(r.offs[i]))
		str(m.Schema)
		str(m.Package)
		str(m.Name)
	}
	for _, m := range r.metas {
		b = binary.AppendUvarint(b, uint64(len(m.Blob)))
		b = append(b, m.Blob...)
	}
	return appendChecksum(b)
}

// appendChecksum ends an entry.
func appendChecksum(b []byte) []byte {
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

var errBadEntry = errors.New("damaged decoded catalog file entry")

// parseEntry reads an entry back; the blobs share data's bytes.
func parseEntry(name string, data []byte) (fileResult, error) {
	if len(data) < len(entryMagic)+4 || !bytes.HasPrefix(data, []byte(entryMagic)) {
		return fileResult{}, errBadEntry
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return fileResult{}, errBadEntry
	}
	rest := body[len(entryMagic):]
	bad := false
	number := func() int {
		v, n := binary.Uvarint(rest)
		// Lines and offsets are of a file read whole; sizes are also
		// checked against what is left.
		if n <= 0 || v > math.MaxInt32 {
			bad = true
			return 0
		}
		rest = rest[n:]
		return int(v)
	}
	bytesOf := func() []byte {
		n := number()
		if bad || n > len(rest) {
			bad = true
			return nil
		}
		s := rest[:n:n]
		rest = rest[n:]
		return s
	}
	count := number()
	if bad || count > len(rest) { // every blob takes bytes
		return fileResult{}, errBadEntry
	}
	r := fileResult{metas: make([]Meta, count), offs: make([]int, count)}
	for i := range r.metas {
		m := &r.metas[i]
		m.Pos = Position{File: name, Line: number()}
		r.offs[i] = number()
		m.Schema = string(bytesOf())
		m.Package = string(bytesOf())
		m.Name = string(bytesOf())
	}
	for i := range r.metas {
		r.metas[i].Blob = bytesOf()
	}
	if bad || len(rest) != 0 {
		return fileResult{}, errBadEntry
	}
	return r, nil
}
