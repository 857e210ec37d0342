package precompress

import "bytes"

// SegmentsOf returns the compressed bytes of each segment of gz, a
// segmented copy whose segments were segs, without its content: nil when
// gz is not such a copy (not of this compressor and segmenting, or
// segments not adding up to it). Which part each segment compresses is
// the caller's to know (a regeneration that can tell the parts that did
// not change without reading the previous content); the compressed bytes
// themselves are trusted, as SegmentedReuse trusts them: callers check
// gz's digest first.
func SegmentsOf(gz []byte, segs []Segment) [][]byte {
	if !bytes.HasPrefix(gz, segmentedHeader) || len(gz) < len(segmentedHeader)+len(finalBlock)+8 {
		return nil
	}
	out := make([][]byte, len(segs))
	off := int64(len(segmentedHeader))
	for i, s := range segs {
		if s.Size < 0 || s.Compressed <= 0 || off+s.Compressed > int64(len(gz)) {
			return nil
		}
		out[i] = gz[off : off+s.Compressed : off+s.Compressed]
		off += s.Compressed
	}
	if off != int64(len(gz)-len(finalBlock)-8) || !bytes.Equal(gz[off:off+int64(len(finalBlock))], finalBlock) {
		return nil
	}
	return out
}
