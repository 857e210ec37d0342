// Package precompress makes the gzip copies generate writes beside the
// files a server answers with (FILE.gz beside FILE), so that servers and
// CDNs answer clients that accept gzip without compressing at run time.
//
// The copies are deterministic: best compression, a fixed header (no name,
// no modification time, OS byte 255 "unknown", and a comment naming the
// compressor, Identity). compress/gzip gives the same bytes for the same
// input, level and Go version; another Go version may give other bytes
// (the same content), so a tree's .gz digests are those of the Go upgraph
// was built with, which the comment names. A regeneration carries a copy
// over from the tree it replaces, instead of compressing again, only when
// the copy names the same compressor and its file is unchanged (Matches).
package precompress

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"strings"
	"sync"
)

// Suffix is appended to a file's name to name its gzip copy.
const Suffix = ".gz"

// Encoding is the Content-Encoding of the copies, and the value of
// index.json's "precompressed" for a tree that has them.
const Encoding = "gzip"

// Level is the compression level of every copy.
const Level = gzip.BestCompression

// unknownOS is the header's OS byte: RFC 1952's 255, "unknown", whatever
// system the tree was generated on.
const unknownOS = 255

// Identity is the comment of every copy's header: the compressor and its
// level, whose output is deterministic for a given input.
var Identity = "upgraph compress/gzip " + runtime.Version() + " level 9"

// header is the first bytes of every copy (RFC 1952): magic, CM 8, FLG
// FCOMMENT, MTIME 0, XFL 2 (best compression), OS, then the comment.
var header = append(append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 2, unknownOS}, Identity...), 0)

// Matches reports whether gz is the copy Gzip makes of data, as far as
// can be told without compressing data again: the header names this
// compressor, and the trailer holds data's CRC-32 and size. It is what a
// regeneration checks before carrying a copy over with its unchanged
// file; the deflate stream itself is trusted, as written by the same
// compressor.
func Matches(gz, data []byte) bool {
	if len(gz) < len(header)+8 || !bytes.HasPrefix(gz, header) {
		return false
	}
	trailer := gz[len(gz)-8:]
	return binary.LittleEndian.Uint32(trailer) == crc32.ChecksumIEEE(data) &&
		binary.LittleEndian.Uint32(trailer[4:]) == uint32(len(data))
}

// CatalogMin is the smallest catalog file that gets a copy: catalogd's
// compression middleware leaves smaller answers uncompressed, and so do
// servers answering its API from a tree's copies.
const CatalogMin = 1024

// Wanted reports whether the file of the tree at name (slash-separated),
// of size bytes, gets a gzip copy: every graph (graph/…, the empty graph
// included), whatever its size, so that a CDN function can pick FILE.gz
// from the path alone, without knowing which copies exist; and every
// catalog file (operators/…) of at least CatalogMin bytes. Tree files
// served less often (index.json, the viewer, schemas, signatures) get
// none.
func Wanted(name string, size int) bool {
	switch {
	case strings.HasSuffix(name, Suffix):
		return false
	case strings.HasPrefix(name, "graph/"):
		return true
	}
	return strings.HasPrefix(name, "operators/") && size >= CatalogMin
}

// Name is the name of name's gzip copy.
func Name(name string) string { return name + Suffix }

// compressor is a gzip writer with its output buffer, reused: a writer at
// best compression allocates about a megabyte of state.
type compressor struct {
	out bytes.Buffer
	zw  *gzip.Writer
}

// Compressors hands out compressors; its zero value is ready to use.
type Compressors struct{ pool sync.Pool }

// Gzip appends the gzip copy of data to dst and returns it. It is safe
// for concurrent use.
func (c *Compressors) Gzip(dst, data []byte) []byte {
	z, _ := c.pool.Get().(*compressor)
	if z == nil {
		z = &compressor{}
		z.zw, _ = gzip.NewWriterLevel(&z.out, Level) // Level is valid
	}
	defer c.pool.Put(z)
	z.out.Reset()
	z.zw.Reset(&z.out)
	// Reset clears the header; every field is the zero value but the OS
	// and the comment.
	z.zw.Header = gzip.Header{OS: unknownOS, Comment: Identity}
	z.zw.Write(data) // a bytes.Buffer does not fail
	z.zw.Close()
	return append(dst, z.out.Bytes()...)
}

var shared Compressors

// Gzip is Compressors.Gzip on a package-wide pool.
func Gzip(data []byte) []byte { return shared.Gzip(nil, data) }
