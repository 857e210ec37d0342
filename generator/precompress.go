package generator

import (
	"context"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/writer"
	"github.com/upgraph/upgraph/internal/precompress"
)

// compressCopies compresses each file of the batch that gets a gzip copy
// (precompress.Wanted), when the batch makes copies, and records the copy
// as the file's gz. It returns the batch's buffers followed by those of
// the copies, in the order of the files, to be hashed together.
func (fb *fileBatch) compressCopies() [][]byte {
	bufs := fb.bufs[:len(fb.files)]
	if fb.gzip == nil {
		return bufs
	}
	all := append(fb.hashed[:0], bufs...)
	n := 0
	for i, f := range fb.files {
		if !precompress.Wanted(f.name) {
			f.gz = nil
			continue
		}
		var dst []byte
		if n < len(fb.gzBufs) {
			dst = fb.gzBufs[n][:0]
		}
		dst = fb.gzip.Gzip(dst, bufs[i])
		if n < len(fb.gzBufs) {
			fb.gzBufs[n] = dst
		} else {
			fb.gzBufs = append(fb.gzBufs, dst)
		}
		n++
		f.gz = &treeFile{name: precompress.Name(f.name)}
		all = append(all, dst)
	}
	fb.hashed = all
	return all
}

// hash records the digest and size of every file of the batch and of
// their copies (compressCopies).
func (fb *fileBatch) hash() {
	all := fb.compressCopies()
	digests := manifest.SHA256s(all)
	k := len(fb.files)
	for i, f := range fb.files {
		f.info = manifest.File{SHA256: digests[i], Size: int64(len(all[i]))}
		if f.gz != nil {
			f.gz.info = manifest.File{SHA256: digests[k], Size: int64(len(all[k]))}
			f.gz.data = all[k]
			k++
		}
	}
}

// putCopy stores f's gzip copy, when it has one, with f's modification
// time (a file carried over from the previous tree keeps its own).
func putCopy(ctx context.Context, st writer.Staging, f *treeFile) error {
	if f.gz == nil {
		return nil
	}
	data := f.gz.data
	f.gz.data = nil // the batch's buffer, reused
	if err := st.Put(ctx, f.gz.name, data); err != nil {
		return err
	}
	if tc, ok := st.(writer.TimeCopier); ok {
		return tc.CopyTime(ctx, f.name, f.gz.name)
	}
	return nil
}

// linkCopy makes f's gzip copy a link to its owner's, as f is to its
// owner: identical files have identical copies.
func linkCopy(ctx context.Context, links writer.Linker, f *treeFile) error {
	if f.owner.gz == nil {
		return nil
	}
	return links.Link(ctx, f.owner.gz.name, precompress.Name(f.name))
}

// recordFile records f (or, linked, its owner's info under f's name) and
// its gzip copy in m's file table.
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
