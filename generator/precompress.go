package generator

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// copier makes the gzip copies of a generation (RenderOptions.Precompress).
type copier struct {
	gz precompress.Compressors
	// previous is the file table of the generation replaced (nil: none):
	// a copy it lists is carried over, instead of compressed again, when
	// its file is unchanged and it still has the digest listed.
	previous map[string]manifest.File
	// previousSegments are the segments of the previous generation's
	// segmented copies (index.json catalogs[].gzipSegments), by name.
	previousSegments map[string][][2]int64
	// previousSegmentInputs are the digests of their parts
	// (gzipSegmentInputs), by name.
	previousSegmentInputs map[string][]string
	// segmentInputs are the digests of the parts of this generation's
	// segmented files (blobIdentities.partInputs), by the file's name;
	// byInputs (an incremental generation) reuses a previous segment
	// whose part's digest is unchanged without reading the previous
	// file, where a full one compares the parts' bytes.
	segmentInputs sync.Map
	byInputs      bool
	// reused and compressed count the segments of segmented copies
	// (Stats.SegmentsReused, SegmentsCompressed).
	reused, compressed atomic.Int64
}

// newCopier returns the copier of a generation replacing previous (nil:
// none, or unreadable).
func newCopier(previous *manifest.Manifest) *copier {
	c := &copier{}
	if previous != nil && previous.Precompressed == precompress.Encoding {
		c.previous = previous.Files
		for _, cat := range previous.Catalogs {
			for name, segs := range cat.GzipSegments {
				if c.previousSegments == nil {
					c.previousSegments = map[string][][2]int64{}
				}
				c.previousSegments[name] = segs
			}
			for name, inputs := range cat.GzipSegmentInputs {
				if c.previousSegmentInputs == nil {
					c.previousSegmentInputs = map[string][]string{}
				}
				c.previousSegmentInputs[name] = inputs
			}
		}
	}
	return c
}

// pendingCopy is a copy the previous generation has, open, to be carried
// over once its digest is checked (finishCopies).
type pendingCopy struct {
	f        *treeFile
	data     []byte // f's bytes, compressed if the copy is not carried
	old      *writer.PreviousFile
	previous manifest.File
}

// putWithCopy stores f (data) and, when the batch makes copies and f gets
// one (precompress.Wanted), its gzip copy.
func (fb *fileBatch) putWithCopy(ctx context.Context, st writer.Staging, f *treeFile, data []byte) error {
	carrier, _ := st.(writer.Carrier)
	carried := false
	if carrier != nil {
		var err error
		if carried, err = carrier.PutCarried(ctx, f.name, data); err != nil {
			return err
		}
	} else if err := st.Put(ctx, f.name, data); err != nil {
		return err
	}
	return fb.putCopy(ctx, st, f, data, carried)
}

// putCopy stores the gzip copy of f (data), when it gets one, recorded
// as f.gz once finishCopies has hashed it. A file carried over from the
// previous tree carries its copy over too when that copy is the one this
// compressor makes of it (precompress.MatchesFile) and still has the digest
// the previous index.json lists: a regeneration compresses only what
// changed. A copy written now gets its file's modification time.
func (fb *fileBatch) putCopy(ctx context.Context, st writer.Staging, f *treeFile, data []byte, carried bool) error {
	f.gz = nil
	if fb.gzip == nil || !precompress.Wanted(f.name, len(data)) {
		return nil
	}
	name := precompress.Name(f.name)
	matches := func(gz, data []byte) bool { return precompress.MatchesFile(f.name, gz, data) }
	if f.cuts != nil {
		// A segmented copy is carried over with its segments, when they
		// are the parts this generation cuts the file into.
		matches = precompress.MatchesSegmented
		if !sameCuts(fb.gzip.previousSegments[name], f.cuts, len(data)) {
			carried = false
		}
	}
	if carrier, ok := st.(writer.Carrier); ok && carried {
		if prev, listed := fb.gzip.previous[name]; listed {
			// The previous copy is read once, into a buffer of the
			// batch, and kept open: the inode hashed is the one linked.
			n := len(fb.pending)
			var buf []byte
			if n < len(fb.oldBufs) {
				buf = fb.oldBufs[n]
			}
			old, ok, err := carrier.OpenPrevious(ctx, name, buf)
			if err != nil {
				return err
			}
			if ok {
				if n < len(fb.oldBufs) {
					fb.oldBufs[n] = old.Data
				} else {
					fb.oldBufs = append(fb.oldBufs, old.Data)
				}
				if int64(len(old.Data)) == prev.Size && matches(old.Data, data) {
					fb.pending = append(fb.pending, pendingCopy{f: f, data: data, old: old, previous: prev})
					return nil
				}
				old.Close()
			}
		}
	}
	return fb.compressCopy(ctx, st, f, data)
}

// compressCopy compresses data, f's bytes, and stores the copy.
func (fb *fileBatch) compressCopy(ctx context.Context, st writer.Staging, f *treeFile, data []byte) error {
	name := precompress.Name(f.name)
	var dst []byte
	if n := len(fb.copies); n < len(fb.gzBufs) {
		dst = fb.gzBufs[n][:0]
	}
	var (
		gz       []byte
		segments [][2]int64
	)
	if f.cuts != nil {
		reuse, err := fb.gzip.segmentReuse(ctx, st, f.name)
		if err != nil {
			return err
		}
		var segs []precompress.Segment
		reused := 0
		gz, segs = precompress.GzipSegmented(dst, data, f.cuts, func(part []byte) []byte {
			if reuse == nil {
				return nil
			}
			b := reuse(part)
			if b != nil {
				reused++
			}
			return b
		})
		fb.gzip.reused.Add(int64(reused))
		fb.gzip.compressed.Add(int64(len(segs) - reused))
		segments = make([][2]int64, len(segs))
		for i, s := range segs {
			segments[i] = [2]int64{s.Size, s.Compressed}
		}
	} else {
		gz = fb.gzip.gz.GzipFile(dst, f.name, data)
	}
	if n := len(fb.copies); n < len(fb.gzBufs) {
		fb.gzBufs[n] = gz
	} else {
		fb.gzBufs = append(fb.gzBufs, gz)
	}
	f.gz = &treeFile{name: name, data: gz, segments: segments}
	fb.copies = append(fb.copies, f.gz)
	if err := st.Put(ctx, name, gz); err != nil {
		return err
	}
	if tc, ok := st.(writer.TimeCopier); ok {
		return tc.CopyTime(ctx, f.name, name)
	}
	return nil
}

// finishCopies carries over the pending copies whose digest is the one
// listed (compressing the others), then records the digest and size of
// every copy of the batch, hashed together (manifest.SHA256s), and
// forgets their bytes.
func (fb *fileBatch) finishCopies(ctx context.Context, st writer.Staging) error {
	if len(fb.pending) > 0 {
		bufs := fb.hashed[:0]
		for _, p := range fb.pending {
			bufs = append(bufs, p.old.Data)
		}
		digests := manifest.SHA256s(bufs)
		for i, p := range fb.pending {
			// The inode linked is the one read and hashed.
			carried := digests[i] == p.previous.SHA256 && p.old.Link()
			p.old.Close()
			if carried {
				gzName := precompress.Name(p.f.name)
				p.f.gz = &treeFile{name: gzName, info: p.previous}
				if p.f.cuts != nil {
					p.f.gz.segments = fb.gzip.previousSegments[gzName]
				}
				continue
			}
			if err := fb.compressCopy(ctx, st, p.f, p.data); err != nil {
				return err
			}
		}
		clear(bufs)
		fb.hashed = bufs[:0]
		clear(fb.pending)
		fb.pending = fb.pending[:0]
	}
	if len(fb.copies) == 0 {
		return nil
	}
	bufs := fb.hashed[:0]
	for _, c := range fb.copies {
		bufs = append(bufs, c.data)
	}
	for i, digest := range manifest.SHA256s(bufs) {
		c := fb.copies[i]
		c.info = manifest.File{SHA256: digest, Size: int64(len(c.data))}
		c.data = nil
	}
	clear(bufs)
	fb.hashed = bufs[:0]
	clear(fb.copies)
	fb.copies = fb.copies[:0]
	return nil
}

// closePending closes the previous copies still open, when a batch ends
// in an error before finishCopies.
func (fb *fileBatch) closePending() {
	for _, p := range fb.pending {
		p.old.Close()
	}
	clear(fb.pending)
	fb.pending = fb.pending[:0]
}

// linkCopy makes f's gzip copy a link to its owner's, as f is to its
// owner: identical files have identical copies.
func linkCopy(ctx context.Context, links writer.Linker, f *treeFile) error {
	if f.owner.gz == nil {
		return nil
	}
	return links.Link(ctx, f.owner.gz.name, precompress.Name(f.name))
}

// sameCuts reports whether segs, a segmented copy's segments, are the
// parts of a file of size bytes cut at cuts.
func sameCuts(segs [][2]int64, cuts []int, size int) bool {
	if len(segs) != len(cuts)+1 {
		return false
	}
	at := int64(0)
	for i, s := range segs {
		at += s[0]
		if i < len(cuts) && at != int64(cuts[i]) {
			return false
		}
	}
	return at == int64(size)
}

// segmentReuse returns what GzipSegmented may reuse of the previous
// generation's segmented copy of the file name: nil when it has none,
// or when the copy read is not the one its index.json lists (size and
// digest) or not of the file's previous bytes (precompress.SegmentedReuse).
// Both are read whole; nothing is linked. In an incremental generation
// (byInputs), when both generations name the parts (segmentInputs), the
// copy alone is read and a part reuses the segment of the previous part
// of the same digest and size (byPartInputs).
func (c *copier) segmentReuse(ctx context.Context, st writer.Staging, name string) (func([]byte) []byte, error) {
	gzName := precompress.Name(name)
	segs, ok := c.previousSegments[gzName]
	listed, gzListed := c.previous[name], c.previous[gzName]
	carrier, isCarrier := st.(writer.Carrier)
	if !ok || !isCarrier || listed.SHA256 == "" || gzListed.SHA256 == "" {
		return nil, nil
	}
	if reuse, ok, err := c.byPartInputs(ctx, carrier, name, segs, gzListed); ok || err != nil {
		return reuse, err
	}
	read := func(name string, size int64) ([]byte, error) {
		f, ok, err := carrier.OpenPrevious(ctx, name, nil)
		if err != nil || !ok {
			return nil, err
		}
		f.Close()
		if int64(len(f.Data)) != size {
			return nil, nil
		}
		return f.Data, nil
	}
	gz, err := read(gzName, gzListed.Size)
	if err != nil || gz == nil || manifest.SHA256(gz) != gzListed.SHA256 {
		return nil, err
	}
	raw, err := read(name, listed.Size)
	if err != nil || raw == nil {
		return nil, err
	}
	table := make([]precompress.Segment, len(segs))
	for i, s := range segs {
		table[i] = precompress.Segment{Size: s[0], Compressed: s[1]}
	}
	return precompress.SegmentedReuse(gz, raw, table), nil
}

// copyInfo is the name and record of f's gzip copy (its owner's, for a
// linked f), ok false when it has none.
func copyInfo(f *treeFile) (name string, info manifest.File, ok bool) {
	src := f
	if f.owner != nil {
		src = f.owner
	}
	if src.gz == nil {
		return "", manifest.File{}, false
	}
	return precompress.Name(f.name), src.gz.info, true
}

// byPartInputs is segmentReuse by the digests of the parts (ok false:
// not in an incremental generation, or a generation does not name the
// parts): the previous copy is read (checked against the size and digest
// listed, gzListed), not the previous file. The function returned must
// be called for the parts in order, as GzipSegmented does.
func (c *copier) byPartInputs(ctx context.Context, carrier writer.Carrier, name string, segs [][2]int64, gzListed manifest.File) (func([]byte) []byte, bool, error) {
	gzName := precompress.Name(name)
	prevInputs := c.previousSegmentInputs[gzName]
	v, ok := c.segmentInputs.Load(name)
	if !c.byInputs || !ok || len(prevInputs) != len(segs) {
		return nil, false, nil
	}
	inputs := v.([]string)
	f, ok, err := carrier.OpenPrevious(ctx, gzName, nil)
	if err != nil || !ok {
		return nil, true, err
	}
	f.Close()
	if int64(len(f.Data)) != gzListed.Size || manifest.SHA256(f.Data) != gzListed.SHA256 {
		return nil, true, nil
	}
	table := make([]precompress.Segment, len(segs))
	for i, s := range segs {
		table[i] = precompress.Segment{Size: s[0], Compressed: s[1]}
	}
	compressed := precompress.SegmentsOf(f.Data, table)
	if compressed == nil {
		return nil, true, nil
	}
	type segment struct {
		size int64
		gz   []byte
	}
	previous := make(map[string]segment, len(segs))
	for i, in := range prevInputs {
		if in != "" {
			previous[in] = segment{segs[i][0], compressed[i]}
		}
	}
	part := 0
	return func(data []byte) []byte {
		i := part
		part++
		if i >= len(inputs) || inputs[i] == "" {
			return nil
		}
		if s, ok := previous[inputs[i]]; ok && s.size == int64(len(data)) {
			return s.gz
		}
		return nil
	}, true, nil
}

// partInputs are the digests of the parts of the segmented copy of f
// (its owner's, for a linked f), nil when they are unknown.
func (c *copier) partInputs(f *treeFile) []string {
	if f.owner != nil {
		f = f.owner
	}
	if v, ok := c.segmentInputs.Load(f.name); ok {
		return v.([]string)
	}
	return nil
}
