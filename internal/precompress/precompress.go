// Package precompress makes the gzip copies generate writes beside the
// files a server answers with (FILE.gz beside FILE), so that servers and
// CDNs answer clients that accept gzip without compressing at run time.
//
// The copies are deterministic: a fixed header (no name, no modification
// time, OS byte 255 "unknown", and a comment naming the compressor) and
// compressors whose output depends on the input alone. compress/gzip at
// best compression (level 9) makes every copy but a large channel
// graph's; a channel graph of LargeGraph bytes and more is compressed by
// klauspost/compress at level 6, whose copies of such graphs are smaller
// in total than level 9's, for a tenth of the CPU time (their repetitive
// JSON keeps level 9's long hash chains busy; BenchmarkGzip). compress/gzip gives
// the same bytes for the same input, level and Go version; another Go
// version may give other bytes (the same content), so its comment names
// the Go version. klauspost/compress's output depends on its version
// (its encoder is pure Go), which its comment names. Identity names both
// and the files each compresses. A regeneration carries a copy over from
// the tree it replaces, instead of compressing again, only when the copy
// names the compressor that would make it now and its file is unchanged
// (MatchesFile).
package precompress

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	kpgzip "github.com/klauspost/compress/gzip"
)

// Suffix is appended to a file's name to name its gzip copy.
const Suffix = ".gz"

// Encoding is the Content-Encoding of the copies, and the value of
// index.json's "precompressed" for a tree that has them.
const Encoding = "gzip"

// Level is the compression level of the copies compress/gzip makes.
const Level = gzip.BestCompression

// LargeGraph is the size from which a channel graph's copy is made by
// klauspost/compress at LargeLevel. Measured on a real-scale tree
// (BenchmarkGzip and a file-by-file comparison): the copies of the 263
// channel graphs of 64 KiB and more are 3.4 % smaller in total than
// compress/gzip level 9's (13 of them up to 1.8 % larger) for a tenth of
// its CPU time. Per-version graphs stay at level 9: level 6 makes those
// of 64 KiB and more 0.2-1.9 % larger (for a quarter to a half of the
// CPU), and copies are made once to be downloaded many times; below 64
// KiB level 6 costs up to 2.3 % more bytes for little time.
const LargeGraph = 64 << 10

// LargeLevel is klauspost/compress's level for large graphs.
const LargeLevel = 6

// KlauspostVersion is the version of github.com/klauspost/compress
// upgraph is built with, which large graphs' copies name: its output may
// change with it. TestKlauspostVersion checks it against go.mod.
const KlauspostVersion = "v1.20.3"

// unknownOS is the header's OS byte: RFC 1952's 255, "unknown", whatever
// system the tree was generated on.
const unknownOS = 255

// gzipComment is the comment of the header of every copy compress/gzip
// makes: the compressor, its version and level, whose output is
// deterministic for a given input.
var gzipComment = "upgraph compress/gzip " + runtime.Version() + " level 9"

// largeComment is the comment of the header of a large graph's copy
// (LargeGraph): klauspost/compress, its version and level.
const largeComment = "upgraph klauspost/compress/gzip " + KlauspostVersion + " level 6"

// Identity names how every copy is compressed: both compressors and the
// files each makes copies of. What a generation renders depends on it,
// as its copies do (a regeneration's input digests include it).
var Identity = gzipComment + "; channel graphs of " + strconv.Itoa(LargeGraph) + " bytes and more: " + largeComment

// header is the first bytes of every copy compress/gzip makes (RFC
// 1952): magic, CM 8, FLG FCOMMENT, MTIME 0, XFL 2 (best compression),
// OS, then the comment; largeHeader those of a large graph's copy, with
// XFL 0 (neither fastest nor best, klauspost/compress writes at level 6).
var (
	header      = append(append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 2, unknownOS}, gzipComment...), 0)
	largeHeader = append(append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 0, unknownOS}, largeComment...), 0)
)

// Matches reports whether gz is the copy Gzip makes of data, as far as
// can be told without compressing data again: the header names
// compress/gzip at level 9, and the trailer holds data's CRC-32 and
// size. It is what a regeneration checks before carrying a copy over
// with its unchanged file; the deflate stream itself is trusted, as
// written by the same compressor.
func Matches(gz, data []byte) bool { return matches(header, gz, data) }

// MatchesFile is Matches for the copy GzipFile makes of the file name
// (slash-separated), of bytes data: a large graph's copy names
// klauspost/compress.
func MatchesFile(name string, gz, data []byte) bool {
	if isLargeGraph(name, len(data)) {
		return matches(largeHeader, gz, data)
	}
	return matches(header, gz, data)
}

func matches(header, gz, data []byte) bool {
	if len(gz) < len(header)+8 || !bytes.HasPrefix(gz, header) {
		return false
	}
	trailer := gz[len(gz)-8:]
	return binary.LittleEndian.Uint32(trailer) == crc32.ChecksumIEEE(data) &&
		binary.LittleEndian.Uint32(trailer[4:]) == uint32(len(data))
}

// Comment is the header comment of the copy of the file name of size
// bytes: the compressor that makes it.
func Comment(name string, size int) string {
	if isLargeGraph(name, size) {
		return largeComment
	}
	return gzipComment
}

// isLargeGraph reports whether the file name of size bytes is a channel
// graph whose copy klauspost/compress makes (LargeGraph).
func isLargeGraph(name string, size int) bool {
	return size >= LargeGraph && isChannelGraph(name)
}

// isChannelGraph reports whether name is a channel × arch graph,
// graph/ARCH/CHANNEL.json, or a rollout bucket's copy of one; a
// per-version graph is one directory deeper.
func isChannelGraph(name string) bool {
	if rest, ok := strings.CutPrefix(name, "rollout/"); ok && isRolloutGraph(name) {
		_, name, _ = strings.Cut(rest, "/")
	}
	return strings.HasPrefix(name, "graph/") && strings.Count(name, "/") == 2
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
	case strings.HasPrefix(name, "graph/"), isRolloutGraph(name):
		return true
	}
	return strings.HasPrefix(name, "operators/") && size >= CatalogMin
}

// isRolloutGraph reports whether name is a phased-rollout bucket's copy of
// a graph (rollout/<k>/graph/…): a bucket's answers get copies as the
// files they replace do.
func isRolloutGraph(name string) bool {
	rest, ok := strings.CutPrefix(name, "rollout/")
	if !ok {
		return false
	}
	k, rest, ok := strings.Cut(rest, "/")
	return ok && k != "" && strings.Trim(k, "0123456789") == "" && strings.HasPrefix(rest, "graph/")
}

// Name is the name of name's gzip copy.
func Name(name string) string { return name + Suffix }

// compressor is a gzip writer of compress/gzip at Level with its output
// buffer, reused: a writer at best compression allocates about a
// megabyte of state.
type compressor struct {
	out bytes.Buffer
	zw  *gzip.Writer
}

// largeCompressor is klauspost/compress's gzip writer at LargeLevel, with
// its output buffer, reused.
type largeCompressor struct {
	out bytes.Buffer
	zw  *kpgzip.Writer
}

// Compressors hands out compressors; its zero value is ready to use.
type Compressors struct{ pool, large sync.Pool }

// Gzip appends the copy compress/gzip makes of data (every copy but a
// large graph's) to dst and returns it. It is safe for concurrent use.
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
	z.zw.Header = gzip.Header{OS: unknownOS, Comment: gzipComment}
	z.zw.Write(data) // a bytes.Buffer does not fail
	z.zw.Close()
	return append(dst, z.out.Bytes()...)
}

// gzipLarge appends the copy of a large channel graph, data, to dst and
// returns it: klauspost/compress's at LargeLevel.
func (c *Compressors) gzipLarge(dst, data []byte) []byte {
	z, _ := c.large.Get().(*largeCompressor)
	if z == nil {
		z = &largeCompressor{}
		z.zw, _ = kpgzip.NewWriterLevel(&z.out, LargeLevel) // LargeLevel is valid
	}
	defer c.large.Put(z)
	z.out.Reset()
	z.zw.Reset(&z.out)
	// Reset sets OS 255 and leaves the modification time zero, which
	// klauspost/compress writes as the zero time's Unix seconds: it is
	// set to the epoch, written as 0.
	z.zw.Header = kpgzip.Header{OS: unknownOS, Comment: largeComment, ModTime: time.Unix(0, 0)}
	z.zw.Write(data) // a bytes.Buffer does not fail
	z.zw.Close()
	return append(dst, z.out.Bytes()...)
}

// GzipFile appends the copy of the file name (slash-separated) of bytes
// data to dst and returns it: klauspost/compress's for a channel graph
// of LargeGraph bytes and more, Gzip's for any other file. It is safe
// for concurrent use.
func (c *Compressors) GzipFile(dst []byte, name string, data []byte) []byte {
	if isLargeGraph(name, len(data)) {
		return c.gzipLarge(dst, data)
	}
	return c.Gzip(dst, data)
}

var shared Compressors

// Gzip is Compressors.Gzip on a package-wide pool.
func Gzip(data []byte) []byte { return shared.Gzip(nil, data) }

// GzipFile is Compressors.GzipFile on a package-wide pool.
func GzipFile(name string, data []byte) []byte { return shared.GzipFile(nil, name, data) }
