package precompress

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"hash/maphash"
	"sync"
)

// Segmented copies. A large file whose content is a concatenation of
// independent parts (a catalog's all.jsonl: one run of blobs per package)
// gets a copy made of independently compressed segments, one per part:
// each segment is a deflate stream of its part alone, compressed from an
// empty window and ended with a sync flush (an empty stored block), so it
// refers to no earlier byte and ends on a byte boundary; the segments
// follow one another in one gzip member (one header, then a final empty
// block, then the CRC-32 and size of the whole content), as pigz
// --independent writes. Any gzip decoder reads it as one stream. A
// regeneration where one part changed compresses that part alone and
// copies the other segments' bytes from the previous copy
// (SegmentedReuse), since a segment's bytes depend on its part's bytes
// only.

// SegmentedIdentity is the header comment of a segmented copy: the
// compressor (compress/gzip), its level and the segmenting, so that a copy made without
// segments, or by another compressor, is never taken for one.
var SegmentedIdentity = gzipComment + " segments"

// segmentedHeader is the first bytes of every segmented copy: header's,
// with SegmentedIdentity as the comment.
var segmentedHeader = append(append([]byte{0x1f, 0x8b, 8, 0x10, 0, 0, 0, 0, 2, unknownOS}, SegmentedIdentity...), 0)

// finalBlock is an empty final deflate block (BFINAL 1, fixed Huffman
// codes, end of block): what ends the member after the last segment.
var finalBlock = []byte{0x03, 0x00}

// Segment is one segment of a segmented copy: the size of its part of
// the content and of its compressed bytes.
type Segment struct {
	Size, Compressed int64
}

// flateWriter is a deflate writer at Level with its output buffer,
// reused.
type flateWriter struct {
	out bytes.Buffer
	zw  *flate.Writer
}

var flateWriters sync.Pool

// compressSegment appends the segment compressing part makes to dst.
func compressSegment(dst, part []byte) []byte {
	z, _ := flateWriters.Get().(*flateWriter)
	if z == nil {
		z = &flateWriter{}
		z.zw, _ = flate.NewWriter(&z.out, Level) // Level is valid
	}
	defer flateWriters.Put(z)
	z.out.Reset()
	z.zw.Reset(&z.out)
	z.zw.Write(part) // a bytes.Buffer does not fail
	z.zw.Flush()     // a sync flush: byte-aligned, ends with 00 00 ff ff
	return append(dst, z.out.Bytes()...)
}

// GzipSegmented appends to dst the segmented copy of data cut at cuts
// (increasing offsets of data, each strictly inside it: the start of
// every segment but the first) and returns it with its segments. For
// each segment, reuse (nil: none) may return the bytes a previous copy
// has for that part (see SegmentedReuse), which are copied instead of
// compressing the part again. The bytes do not depend on which
// segments were reused. Safe for concurrent use.
func GzipSegmented(dst, data []byte, cuts []int, reuse func(part []byte) []byte) ([]byte, []Segment) {
	dst = append(dst, segmentedHeader...)
	segs := make([]Segment, 0, len(cuts)+1)
	start := 0
	for i := 0; i <= len(cuts); i++ {
		end := len(data)
		if i < len(cuts) {
			end = cuts[i]
		}
		part := data[start:end]
		n := len(dst)
		if prev := reuseOf(reuse, part); prev != nil {
			dst = append(dst, prev...)
		} else {
			dst = compressSegment(dst, part)
		}
		segs = append(segs, Segment{Size: int64(len(part)), Compressed: int64(len(dst) - n)})
		start = end
	}
	dst = append(dst, finalBlock...)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(dst, uint32(len(data))), segs
}

func reuseOf(reuse func([]byte) []byte, part []byte) []byte {
	if reuse == nil {
		return nil
	}
	return reuse(part)
}

// SegmentedReuse returns the reuse function of GzipSegmented for a copy
// gz of data, whose segments were segs: a part equal to one of data's
// segments gets that segment's compressed bytes. It returns nil when gz
// is not such a copy (not of this compressor and segmenting, not of
// data's CRC-32 and size, or segments not adding up to both): nothing is
// reused. The compressed bytes themselves are trusted, as Matches
// trusts a whole copy's; callers check gz's digest first.
func SegmentedReuse(gz, data []byte, segs []Segment) func(part []byte) []byte {
	if !bytes.HasPrefix(gz, segmentedHeader) || len(gz) < len(segmentedHeader)+len(finalBlock)+8 {
		return nil
	}
	trailer := gz[len(gz)-8:]
	if binary.LittleEndian.Uint32(trailer[4:]) != uint32(len(data)) || binary.LittleEndian.Uint32(trailer) != crc32.ChecksumIEEE(data) {
		return nil
	}
	// Parts are looked up by size and a hash of their bytes (seeded at
	// random, so that no input makes many parts collide), then compared:
	// the work is linear in the sizes of both files.
	type key struct {
		size int
		hash uint64
	}
	seed := maphash.MakeSeed()
	type span struct{ raw, gz []byte }
	parts := map[key]span{}
	raw, off := int64(0), int64(len(segmentedHeader))
	for _, s := range segs {
		if s.Size < 0 || s.Compressed <= 0 || raw+s.Size > int64(len(data)) || off+s.Compressed > int64(len(gz)) {
			return nil
		}
		sp := span{data[raw : raw+s.Size], gz[off : off+s.Compressed]}
		k := key{len(sp.raw), maphash.Bytes(seed, sp.raw)}
		if _, dup := parts[k]; !dup {
			parts[k] = sp // equal parts have equal segments: one is enough
		}
		raw += s.Size
		off += s.Compressed
	}
	if raw != int64(len(data)) || off != int64(len(gz)-len(finalBlock)-8) || !bytes.Equal(gz[off:off+int64(len(finalBlock))], finalBlock) {
		return nil
	}
	return func(part []byte) []byte {
		if sp, ok := parts[key{len(part), maphash.Bytes(seed, part)}]; ok && bytes.Equal(sp.raw, part) {
			return sp.gz
		}
		return nil
	}
}

// MatchesSegmented is Matches for a segmented copy: its header names
// this compressor and segmenting, its trailer data's CRC-32 and size.
func MatchesSegmented(gz, data []byte) bool {
	if len(gz) < len(segmentedHeader)+8 || !bytes.HasPrefix(gz, segmentedHeader) {
		return false
	}
	trailer := gz[len(gz)-8:]
	return binary.LittleEndian.Uint32(trailer) == crc32.ChecksumIEEE(data) &&
		binary.LittleEndian.Uint32(trailer[4:]) == uint32(len(data))
}
