// Package precompress makes the gzip copies generate writes beside the
// files a server answers with (FILE.gz beside FILE), so that servers and
// CDNs answer clients that accept gzip without compressing at run time.
//
// The copies are deterministic: best compression, a fixed header (no name,
// no comment, no modification time, OS byte 255 "unknown"). compress/gzip
// gives the same bytes for the same input, level and Go version; another
// Go version may give other bytes (the same content), so a tree's .gz
// digests are those of the Go upgraph was built with.
package precompress

import (
	"bytes"
	"compress/gzip"
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

// Wanted reports whether the file of the tree at name (slash-separated)
// gets a gzip copy: every graph (graph/…, the empty graph included) and
// every catalog file (operators/…), whatever its size, so that a CDN
// function can pick FILE.gz from the path alone, without knowing which
// copies exist. Tree files served less often (index.json, the viewer,
// schemas, signatures) get none.
func Wanted(name string) bool {
	if strings.HasSuffix(name, Suffix) {
		return false
	}
	return strings.HasPrefix(name, "graph/") || strings.HasPrefix(name, "operators/")
}

// Name is the name of name's gzip copy.
func Name(name string) string { return name + Suffix }

// Plain is the name of the file a gzip copy name is of, and whether name
// names a copy at all.
func Plain(name string) (string, bool) {
	p, ok := strings.CutSuffix(name, Suffix)
	return p, ok && Wanted(p)
}

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
	// Reset clears the header; every field is the zero value but the OS.
	z.zw.Header = gzip.Header{OS: unknownOS}
	z.zw.Write(data) // a bytes.Buffer does not fail
	z.zw.Close()
	return append(dst, z.out.Bytes()...)
}

var shared Compressors

// Gzip is Compressors.Gzip on a package-wide pool.
func Gzip(data []byte) []byte { return shared.Gzip(nil, data) }
