package generator

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// checkCatalogNames refuses catalogs whose names would not make distinct,
// valid directories.
func checkCatalogNames(cats []*catviews.Catalog) error {
	seen := map[string]bool{}
	for _, c := range cats {
		if err := catviews.CheckName(c.Name); err != nil {
			return err
		}
		if seen[c.Name] {
			return fmt.Errorf("catalog name %q given twice", c.Name)
		}
		seen[c.Name] = true
	}
	return nil
}

// renderCatalogs writes every file of each catalog (one catalog at a
// time, its files on all workers), hashing them in batches as the
// release graphs are, and records them and the catalogs in m. Files of
// the same bytes are stored once (catalogDedup).
//
// A package whose input digest (packageInputs) the previous generation
// lists unchanged (reuse, nil for a full run) has its files taken over
// from there (previousGeneration.take) instead of rendered; a file that
// cannot be is rendered with its package's, as in a full run, and only
// the files not taken over are kept of that rendering.
func renderCatalogs(ctx context.Context, cats []*catviews.Catalog, st writer.Staging, m *manifest.Manifest, workers int, gz *copier,
	reuse *previousGeneration, stats *Stats) error {
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	if stats == nil {
		stats = &Stats{}
	}
	if gz != nil {
		r0, c0 := gz.reused.Load(), gz.compressed.Load()
		defer func() {
			stats.SegmentsReused += int(gz.reused.Load() - r0)
			stats.SegmentsCompressed += int(gz.compressed.Load() - c0)
		}()
	}
	if gz != nil {
		gz.byInputs = reuse != nil
	}
	dedup := newCatalogDedup(st, reuse)
	distinct := map[string]bool{}
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b *catviews.Catalog) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range cats {
		var (
			mu    sync.Mutex
			files []*treeFile
		)
		batches := make([]fileBatch, workers)
		for w := range batches {
			batches[w] = fileBatch{maxFiles: 48, maxBytes: 4 << 20, gzip: gz}
		}
		// The packages' digests and the check of the unchanged ones'
		// files in the previous tree (prep) run while the catalog's
		// first worker makes the blobs' files: each package's task waits
		// for them (taken.whole), and so does every file emitted.
		var (
			inputs map[string]string
			ids    *blobIdentities
			taken  *takenPackages
		)
		prep := make(chan struct{})
		var prepErr error
		clear(dedup.hashed)
		go func() {
			defer close(prep)
			if inputs, ids, prepErr = packageInputs(ctx, c, gz != nil, workers); prepErr != nil {
				return
			}
			if taken, prepErr = takePackages(ctx, c, inputs, reuse, gz != nil, workers, stats); prepErr != nil {
				return
			}
			dedup.ourCopies = false
			for pkg, digest := range inputs {
				if reuse.packageUnchanged(c.Name, pkg, digest) {
					dedup.ourCopies = true
					break
				}
			}
			for _, tf := range taken.files {
				files = append(files, tf)
			}
		}()
		whole := func(pkg string) bool {
			<-prep
			return prepErr == nil && taken.whole(pkg)
		}
		var rendered int
		err := c.RenderExcept(ctx, workers, whole, func(ctx context.Context, w int, f catviews.File) error {
			if <-prep; prepErr != nil {
				return prepErr
			}
			if tf, ok := taken.files[f.Path]; ok {
				if taken.needCopy[f.Path] {
					return batches[w].compressCopy(ctx, st, tf, f.Data)
				}
				return nil
			}
			// A metas file of an unchanged package's blobs alone (not of
			// a package key no package of the model has, which no digest
			// covers) is taken over unhashed, as the package's files are.
			if digest, ok := inputs[f.MetasPackage]; ok && reuse.packageUnchanged(c.Name, f.MetasPackage, digest) {
				tf := &treeFile{name: f.Path}
				linked, needCopy, err := reuse.take(ctx, tf, gz != nil)
				if err != nil {
					return err
				}
				if linked {
					mu.Lock()
					files = append(files, tf)
					stats.CatalogFilesTaken++
					mu.Unlock()
					if needCopy {
						return batches[w].compressCopy(ctx, st, tf, f.Data)
					}
					return nil
				}
			}
			tf := &treeFile{name: f.Path, cuts: f.Cuts, info: manifest.File{SHA256: f.SHA256}}
			if gz != nil && f.Cuts != nil {
				if in := ids.partInputs(c.Config.Metas, f.Blobs, f.Cuts); len(in) == len(f.Cuts)+1 {
					gz.segmentInputs.Store(f.Path, in)
				}
			}
			mu.Lock()
			files = append(files, tf)
			rendered++
			mu.Unlock()
			if batches[w].add(tf, f.Data) {
				return dedup.flush(ctx, &batches[w])
			}
			return nil
		})
		<-prep
		if err == nil {
			err = prepErr
		}
		if err == nil {
			err = parallel.Run(ctx, workers, len(batches), func(ctx context.Context, _, i int) error {
				return dedup.flush(ctx, &batches[i])
			})
		}
		if err == nil {
			err = dedup.link(ctx, files)
		}
		if err != nil {
			return err
		}
		stats.CatalogFilesRendered += rendered
		n := 0
		record := func(name string, info manifest.File) error {
			if _, dup := m.Files[name]; dup {
				return fmt.Errorf("catalog %s: file %s written twice", c.Name, name)
			}
			if strings.HasPrefix(name, catviews.Dir(c.Name)) {
				n++
			}
			m.Files[name] = info
			m.Counts.Files++
			m.Counts.Bytes += info.Size
			// Counted by content, whatever was carried over or linked, so
			// that index.json does not depend on the previous tree.
			if !distinct[info.SHA256] {
				distinct[info.SHA256] = true
				m.Counts.DistinctFiles++
				m.Counts.DistinctBytes += info.Size
			}
			return nil
		}
		var (
			segmented     map[string][][2]int64
			segmentInputs map[string][]string
		)
		for _, f := range files {
			if err := record(f.name, f.info); err != nil {
				return err
			}
			if gzName, gzInfo, ok := copyInfo(f); ok {
				if err := record(gzName, gzInfo); err != nil {
					return err
				}
				if segs := copySegments(f); segs != nil {
					if segmented == nil {
						segmented = map[string][][2]int64{}
					}
					segmented[gzName] = segs
					if in := gz.partInputs(f); len(in) == len(segs) {
						if segmentInputs == nil {
							segmentInputs = map[string][]string{}
						}
						segmentInputs[gzName] = in
					}
				}
			}
		}
		counts := c.Counts()
		m.Catalogs = append(m.Catalogs, manifest.Catalog{
			Name: c.Name, Source: c.Source, Kind: string(c.Info.Kind),
			Resolved: c.Info.Resolved, Digest: c.Info.Digest, Platform: c.Info.Platform,
			ContentDigest: c.ContentDigest(),
			Priority:      c.Priority,
			Path:          catviews.Dir(c.Name) + catviews.SummaryFile,
			Counts: manifest.CatalogCounts{Packages: counts.Packages, Channels: counts.Channels, Bundles: counts.Bundles,
				Files: n, SkippedPackages: counts.SkippedPackages},
			Packages:          c.PackageNames(),
			PackageInputs:     inputs,
			GzipSegments:      segmented,
			GzipSegmentInputs: segmentInputs,
		})
	}
	return nil
}

// copySegments are the segments of f's gzip copy (its owner's, for a
// linked f), nil for a copy of one stream.
func copySegments(f *treeFile) [][2]int64 {
	if f.owner != nil {
		f = f.owner
	}
	if f.gz == nil {
		return nil
	}
	return f.gz.segments
}

// takenPackages are the files of a catalog taken over from the previous
// generation.
type takenPackages struct {
	// files are the files taken over, by name; needCopy those whose gzip
	// copy is still to be made from their rendering.
	files    map[string]*treeFile
	needCopy map[string]bool
	// wholly are the packages whose files were all taken over, with
	// their copies: they are not rendered.
	wholly map[string]bool
}

// whole reports whether package pkg was wholly taken over.
func (t *takenPackages) whole(pkg string) bool { return t.wholly[pkg] }

// takePackages takes over from reuse the files of each package of c
// whose input digest is unchanged, on up to workers goroutines (one
// check of the previous tree's file each, tens of thousands of them).
func takePackages(ctx context.Context, c *catviews.Catalog, inputs map[string]string, reuse *previousGeneration, copies bool, workers int, stats *Stats) (*takenPackages, error) {
	t := &takenPackages{files: map[string]*treeFile{}, needCopy: map[string]bool{}, wholly: map[string]bool{}}
	type check struct {
		pkg              int // in c.Model.Packages
		linked, needCopy bool
		f                *treeFile
	}
	var checks []check
	for i, p := range c.Model.Packages {
		if !reuse.packageUnchanged(c.Name, p.Name, inputs[p.Name]) {
			continue
		}
		for _, name := range c.PackageFiles(p) {
			checks = append(checks, check{pkg: i, f: &treeFile{name: name}})
		}
	}
	const chunk = 64
	err := parallel.Run(ctx, workers, (len(checks)+chunk-1)/chunk, func(ctx context.Context, _, i int) error {
		for k := i * chunk; k < min(len(checks), (i+1)*chunk); k++ {
			var err error
			checks[k].linked, checks[k].needCopy, err = reuse.take(ctx, checks[k].f, copies)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	whole := make([]bool, len(c.Model.Packages))
	for i, p := range c.Model.Packages {
		whole[i] = reuse.packageUnchanged(c.Name, p.Name, inputs[p.Name])
	}
	for _, k := range checks {
		if !k.linked {
			whole[k.pkg] = false
			continue
		}
		stats.CatalogFilesTaken++
		t.files[k.f.name] = k.f
		if k.needCopy {
			t.needCopy[k.f.name] = true
			whole[k.pkg] = false
		}
	}
	for i, p := range c.Model.Packages {
		if whole[i] {
			t.wholly[p.Name] = true
			stats.PackagesTaken++
		} else {
			stats.PackagesRendered++
		}
	}
	return t, nil
}

// catalogDedup stores each content of a generation's catalog files once
// where the store links files (a directory: hard links): the metas files
// repeat each blob under up to four name= queries, and many answers are
// the same bytes (a bundle alone under its name, with or without its
// schema and package). A file the previous generation holds with the
// same bytes under the same name is carried over first, keeping its
// modification time; only the others are linked to the first of their
// bytes written in this generation, whose modification time is now: a
// link to an older file would give a changed answer an older
// Last-Modified, and clients holding the previous answer a 304.
type catalogDedup struct {
	st    writer.Staging
	links writer.Linker // nil: every file is put
	reuse writer.Reuser // nil: nothing to carry over
	// putNew writes a file without comparing it with the previous
	// generation's (nil: every file is put).
	putNew writer.NewPutter
	// listed, in an incremental run, carries over unread a file the
	// previous index.json lists with the same digest and size
	// (previousGeneration.carryListed); nil in a full run, which
	// compares every byte (reuse).
	listed *previousGeneration
	// ourCopies: the previous generation's copies are this compressor's
	// (one of the catalog's package digests, which name the compressor,
	// is unchanged), so a copy it lists of a file carried over unread is
	// linked unread too (carryListedCopy).
	ourCopies bool

	mu     sync.Mutex
	owners map[string]*treeFile // digest → the file put with those bytes
	// hashed are the digests of the catalog's files by their bytes'
	// place in memory: the metas files whose blobs are one run of
	// all.jsonl are slices of its buffer (catalog/metas Files), and a
	// blob's four name answers, its package's file and often the
	// package × schema file are the same slice, hashed once. Reset for
	// each catalog, whose buffers it keeps alive.
	hashed map[span]string
}

// span is where a file's bytes are in memory: two files of the same span
// have the same bytes (rendered files are not modified).
type span struct {
	start *byte
	n     int
}

// hash sets the digest and size of each file of a batch (bufs its
// bytes), hashing each span once.
func (d *catalogDedup) hash(files []*treeFile, bufs [][]byte) {
	spans := make([]span, len(bufs))
	todo := make([]int, len(bufs)) // the index in unique of each file's span, -1 when hashed before
	var unique [][]byte
	index := map[span]int{}
	d.mu.Lock()
	for i, b := range bufs {
		files[i].info.Size = int64(len(b))
		spans[i] = span{unsafe.SliceData(b), len(b)}
		if files[i].info.SHA256 != "" { // known (all.jsonl's: the content digest)
			todo[i] = -1
			if len(b) > 0 {
				d.hashed[spans[i]] = files[i].info.SHA256
			}
			continue
		}
		if digest, ok := d.hashed[spans[i]]; ok {
			files[i].info.SHA256, todo[i] = digest, -1
			continue
		}
		k, ok := index[spans[i]]
		if !ok {
			k = len(unique)
			index[spans[i]] = k
			unique = append(unique, b)
		}
		todo[i] = k
	}
	d.mu.Unlock()
	digests := manifest.SHA256s(unique)
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, k := range todo {
		if k < 0 {
			continue
		}
		files[i].info.SHA256 = digests[k]
		if spans[i].n > 0 {
			d.hashed[spans[i]] = digests[k]
		}
	}
}

func newCatalogDedup(st writer.Staging, listed *previousGeneration) *catalogDedup {
	d := &catalogDedup{st: st, owners: map[string]*treeFile{}, listed: listed, hashed: map[span]string{}}
	d.links, _ = st.(writer.Linker)
	d.reuse, _ = st.(writer.Reuser)
	d.putNew, _ = st.(writer.NewPutter)
	return d
}

// flush hashes the batch, then carries over, links (later, in link) or
// puts each file, and empties the batch.
func (d *catalogDedup) flush(ctx context.Context, fb *fileBatch) error {
	defer fb.closePending() // after an error
	bufs := fb.bufs[:len(fb.files)]
	d.hash(fb.files, bufs)
	for i, f := range fb.files {
		if d.links != nil {
			carried, err := d.listed.carryListed(ctx, f.name, f.info)
			if err != nil {
				return err
			}
			if carried {
				linked, err := d.carryListedCopy(ctx, fb, f, len(bufs[i]))
				if err != nil {
					return err
				}
				if !linked {
					if err := fb.putCopy(ctx, d.st, f, bufs[i], true); err != nil {
						return err
					}
				}
				continue
			}
			if d.reuse != nil && !d.listed.listsOther(f.name, f.info) {
				reused, err := d.reuse.Reuse(ctx, f.name, bufs[i])
				if err != nil {
					return err
				}
				if reused {
					if err := fb.putCopy(ctx, d.st, f, bufs[i], true); err != nil {
						return err
					}
					continue
				}
			}
			d.mu.Lock()
			owner := d.owners[f.info.SHA256]
			if owner == nil {
				d.owners[f.info.SHA256] = f
			}
			d.mu.Unlock()
			if owner != nil {
				f.owner = owner
				continue
			}
		}
		// A file the previous index.json lists with other bytes is
		// written without reading the previous one back (PutNew).
		if d.putNew != nil && d.listed.listsOther(f.name, f.info) {
			if err := d.putNew.PutNew(ctx, f.name, bufs[i]); err != nil {
				return err
			}
		} else if err := d.st.Put(ctx, f.name, bufs[i]); err != nil {
			return err
		}
		if err := fb.putCopy(ctx, d.st, f, bufs[i], false); err != nil {
			return err
		}
	}
	if err := fb.finishCopies(ctx, d.st); err != nil {
		return err
	}
	fb.files, fb.bytes = fb.files[:0], 0
	return nil
}

// carryListedCopy links, unread, the copy the previous generation lists
// of f (size bytes), a file carryListed carried over, when its copies are
// this compressor's (ourCopies) and a segmented one has the segments
// f is cut into now; it reports whether it did (false: nothing was,
// and f gets no copy when it should have none).
func (d *catalogDedup) carryListedCopy(ctx context.Context, fb *fileBatch, f *treeFile, size int) (bool, error) {
	f.gz = nil
	if fb.gzip == nil || !precompress.Wanted(f.name, size) {
		return true, nil // no copy wanted
	}
	if !d.ourCopies {
		return false, nil
	}
	name := precompress.Name(f.name)
	info, ok := d.listed.files[name]
	var segs [][2]int64
	if f.cuts != nil {
		segs = fb.gzip.previousSegments[name]
		ok = ok && sameCuts(segs, f.cuts, size)
	}
	if !ok {
		return false, nil
	}
	linked, err := d.listed.linker.LinkPrevious(ctx, name, info.Size, d.listed.indexTime)
	if err != nil || !linked {
		return false, err
	}
	f.gz = &treeFile{name: name, info: info, segments: segs}
	return true, nil
}

// carryListed links name, unread, from the previous generation when its
// index.json lists it with the digest and size of info (the bytes just
// rendered and hashed), and it is a regular file there of that size not
// modified since (the trust previousGeneration.take gives a package's
// files): an incremental run does not read back and compare the
// catalog-wide files that did not change. It reports whether it did.
func (p *previousGeneration) carryListed(ctx context.Context, name string, info manifest.File) (bool, error) {
	if p == nil {
		return false, nil
	}
	if prev, ok := p.files[name]; !ok || prev != info {
		return false, nil
	}
	return p.linker.LinkPrevious(ctx, name, info.Size, p.indexTime)
}

// listsOther reports whether the previous index.json lists name with
// other bytes than info's: then the previous file, if it is what that
// index.json says, does not hold these bytes, and an incremental run does
// not read it back to compare (all.jsonl, metas/schema/S.jsonl: whole
// megabytes, which one changed bundle changes). A file changed in place
// since is written anew, as one that differs is: the bytes are the same.
// A full run (p nil) compares every file.
func (p *previousGeneration) listsOther(name string, info manifest.File) bool {
	if p == nil {
		return false
	}
	prev, ok := p.files[name]
	return ok && prev.SHA256 != info.SHA256
}

// link makes the files flush left to link, once every file is put.
func (d *catalogDedup) link(ctx context.Context, files []*treeFile) error {
	for _, f := range files {
		if f.owner != nil {
			if err := d.links.Link(ctx, f.owner.name, f.name); err != nil {
				return err
			}
			if err := linkCopy(ctx, d.links, f); err != nil {
				return err
			}
		}
	}
	return nil
}
