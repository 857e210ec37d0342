package declcfg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/upgraph/upgraph/internal/regularfile"
	"github.com/upgraph/upgraph/internal/sha256x16"
)

// Error is a loading error at a position of the catalog: Error() is
// "file:line: message" ("file: message" when it concerns a whole file).
type Error struct {
	Pos Position
	Err error
	// off orders errors of the same file.
	off int
}

func (e *Error) Error() string {
	if e.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Pos.File, e.Pos.Line, e.Err)
	}
	msg := e.Err.Error()
	if strings.HasPrefix(msg, e.Pos.File+": ") { // a refusal of internal/regularfile, naming the file already
		return msg
	}
	return e.Pos.File + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads the file-based catalog rooted at root in fsys ("." for the
// whole of fsys) as operator-registry's declcfg.LoadFS does:
//
//   - every file under the root is read as a JSON or YAML stream
//     (stream.go), whatever its name or extension; the directory layout
//     is free;
//   - files named .indexignore are not read, and their lines are
//     gitignore-style patterns excluding files (ignore.go);
//   - a file (or .indexignore) that is not a regular file, once symbolic
//     links are followed, or is larger than MaxFileBytes is an error
//     naming it, before it is read;
//   - each blob's schema, package and name are its keys matched
//     case-insensitively; keys equal after case folding are an error, and
//     so is a blob without a schema;
//   - olm.package, olm.channel, olm.bundle and olm.deprecations blobs are
//     decoded into their types (and olm.bundle.object properties checked,
//     as operator-registry reads them); any other schema is kept in Others.
//
// Order is deterministic, unlike operator-registry's concurrent loader:
// files in fs.WalkDir order (each directory's entries sorted by name,
// depth first), blobs in file order. Metas holds every blob in that
// order, which is the order catalogd stores and serves them in; the typed
// slices and Others keep it too. Meta.Blob is the blob as catalogd stores
// it (canon.go) without catalogd's trailing newline.
//
// The first error in that order is returned, as an *Error naming the file
// and line. Model rules (a bundle without an olm.package property, an
// unknown default channel, ...) are not checked here.
func Load(ctx context.Context, fsys fs.FS, root string) (*DeclarativeConfig, error) {
	return LoadWith(ctx, fsys, root, Options{})
}

// Options are how a load goes about it; the blobs loaded do not depend
// on them.
type Options struct {
	// Cache, if set, keeps each file's blobs by the digest of its bytes
	// across loads, so that a file decoded before is not decoded again.
	Cache *FileCache
	// maxFileBytes, when not 0, replaces MaxFileBytes (tests).
	maxFileBytes int64
}

// MaxFileBytes bounds one file of a catalog: a larger one is refused,
// naming it, before it is read, as is what is not a regular file under a
// file's name (a named pipe would block the load, a device such as a link
// to /dev/zero would be read without end). The figure: the largest file
// of the shared real catalog (community-operators-prod v4.21) is 2.4 MB
// and the whole catalog 14 MB; the largest public catalog,
// redhat-operator-index, is about 55 MB of FBC in all (bench_test.go
// BenchmarkLoadLarge), so even rendered as one catalog.json (opm render
// of the whole index) it is about 19 times below 1 GiB. The bound also keeps every offset and line of a
// file below math.MaxInt32, which the decoded cache's entries assume
// (filecache.go parseEntry). A load holds its files' bytes in memory
// anyway: the bound limits what one file may make it hold.
const MaxFileBytes = 1 << 30

func (o Options) fileLimit() int64 {
	if o.maxFileBytes != 0 {
		return o.maxFileBytes
	}
	return MaxFileBytes
}

// LoadWith is Load with opts.
func LoadWith(ctx context.Context, fsys fs.FS, root string, opts Options) (*DeclarativeConfig, error) {
	if fsys == nil {
		return nil, errors.New("no file-based catalog file system")
	}
	if root != "" && root != "." {
		sub, err := fs.Sub(fsys, root)
		if err != nil {
			return nil, err
		}
		fsys = sub
	}
	limit := opts.fileLimit()
	files, err := catalogFiles(fsys, limit)
	if err != nil {
		return nil, err
	}
	return loadFiles(ctx, files, readFrom(fsys, limit), opts)
}

// LoadFS is Load of the whole of fsys.
func LoadFS(ctx context.Context, fsys fs.FS) (*DeclarativeConfig, error) {
	return Load(ctx, fsys, ".")
}

// LoadFile reads a single catalog file (a JSON stream or YAML documents)
// of fsys; positions name the file as name.
func LoadFile(ctx context.Context, fsys fs.FS, name string) (*DeclarativeConfig, error) {
	return LoadFileWith(ctx, fsys, name, Options{})
}

// LoadFileWith is LoadFile with opts.
func LoadFileWith(ctx context.Context, fsys fs.FS, name string, opts Options) (*DeclarativeConfig, error) {
	// Not listed: one stat says what name is before it is opened.
	return loadFiles(ctx, []catalogFile{{name: name}}, readFrom(fsys, opts.fileLimit()), opts)
}

// LoadReader reads a single catalog file from r; positions name it name.
func LoadReader(ctx context.Context, r io.Reader, name string) (*DeclarativeConfig, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Pos: Position{File: name}, Err: err}
	}
	return loadFiles(ctx, []catalogFile{{name: name}}, func(catalogFile) ([]byte, error) { return data, nil }, Options{})
}

// catalogFile is a file to read: its path in the catalog's file system,
// and whether the directory listing gave a regular file, so that reading
// it costs no stat (a symbolic link is looked up first).
type catalogFile struct {
	name          string
	listedRegular bool
}

// readFrom reads catalog files of fsys through internal/regularfile:
// what is not a regular file, or is larger than limit, is refused naming
// the file.
func readFrom(fsys fs.FS, limit int64) func(catalogFile) ([]byte, error) {
	return func(f catalogFile) ([]byte, error) {
		return regularfile.Read(fsys, f.name, f.name, f.listedRegular, limit)
	}
}

// catalogFiles lists the files to read, in walk order; limit bounds the
// .indexignore files read on the way.
func catalogFiles(fsys fs.FS, limit int64) ([]catalogFile, error) {
	m, err := newIgnoreMatcher(fsys, limit)
	if err != nil {
		return nil, err
	}
	var files []catalogFile
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() == indexIgnoreFile || m.match(p, false) {
			return nil
		}
		files = append(files, catalogFile{name: p, listedRegular: d.Type().IsRegular()})
		return nil
	})
	return files, err
}

// fileResult is what one file gave: its blobs, up to its first error.
type fileResult struct {
	metas []Meta
	offs  []int
	err   *Error
}

// loadFiles decodes files (read by read) in parallel, then the blobs of
// known schemas in parallel, and assembles them in order.
func loadFiles(ctx context.Context, files []catalogFile, read func(catalogFile) ([]byte, error), opts Options) (*DeclarativeConfig, error) {
	results := make([]fileResult, len(files))
	// With a cache, each worker reads hashChunk files at a time and
	// hashes them together (sha256x16: two or more streams at once, about
	// twice one stream's speed per core), the digests being the cache's
	// keys.
	perTask := 1
	if opts.Cache != nil {
		perTask = hashChunk
	}
	workers := min(runtime.GOMAXPROCS(0), (len(files)+perTask-1)/perTask)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			a := &arena{}
			var c canonicalizer
			for {
				lo := int(next.Add(int64(perTask))) - perTask
				if lo >= len(files) || ctx.Err() != nil {
					return
				}
				decodeChunk(files[lo:min(lo+perTask, len(files))], results[lo:], read, a, &c, opts.Cache)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts.Cache != nil {
		// Every entry this load used has its time: pruning keeps them.
		opts.Cache.maybePrune(time.Now())
	}

	// Decode the known schemas, all blobs in parallel.
	var all []Meta
	var where []struct{ file, off int }
	var firstErr *Error
	firstFile := len(files)
	for i, r := range results {
		if r.err != nil && firstFile == len(files) {
			firstErr, firstFile = r.err, i
		}
		all = append(all, r.metas...)
		for _, off := range r.offs {
			where = append(where, struct{ file, off int }{i, off})
		}
	}
	typed := make([]any, len(all))
	errs := make([]*Error, len(all))
	const chunk = 64
	next.Store(0)
	for range min(runtime.GOMAXPROCS(0), (len(all)+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(all) || ctx.Err() != nil {
					return
				}
				for k := lo; k < min(lo+chunk, len(all)); k++ {
					typed[k], errs[k] = decodeTyped(&all[k])
					if errs[k] != nil {
						errs[k].off = where[k].off
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The first error in load order: a typed-decoding error of a blob
	// that comes before the first file's decoding error wins.
	for k, e := range errs {
		if e == nil {
			continue
		}
		if w := where[k]; w.file < firstFile || w.file == firstFile && e.off < firstErr.off {
			firstErr = e
		}
		break
	}
	if firstErr != nil {
		return nil, firstErr
	}

	cfg := &DeclarativeConfig{Metas: all}
	for k, t := range typed {
		switch v := t.(type) {
		case Package:
			cfg.Packages = append(cfg.Packages, v)
		case Channel:
			cfg.Channels = append(cfg.Channels, v)
		case Bundle:
			cfg.Bundles = append(cfg.Bundles, v)
		case Deprecation:
			cfg.Deprecations = append(cfg.Deprecations, v)
		default:
			cfg.Others = append(cfg.Others, all[k])
		}
	}
	return cfg, nil
}

// hashChunk is how many files a worker reads and hashes at once when
// loading through a cache.
const hashChunk = 4

// decodeChunk decodes files into results (in the same order), looking
// each up in cache (nil: none) by the SHA-256 of its bytes, hashed for
// all of files at once.
func decodeChunk(files []catalogFile, results []fileResult, read func(catalogFile) ([]byte, error), a *arena, c *canonicalizer, cache *FileCache) {
	if cache == nil {
		for i, f := range files {
			results[i] = decodeOne(f, read, a, c)
		}
		return
	}
	datas := make([][]byte, len(files))
	var msgs [][]byte
	var idx []int
	for i, f := range files {
		data, err := read(f)
		if err != nil {
			results[i] = readError(f.name, err)
			continue
		}
		datas[i] = data
		msgs = append(msgs, data)
		idx = append(idx, i)
	}
	sums := sha256x16.Sum(msgs)
	for k, i := range idx {
		if r, ok := cache.get(files[i].name, sums[k]); ok {
			results[i] = r
			continue
		}
		r := decodeData(files[i].name, datas[i], a, c)
		if r.err == nil {
			cache.put(sums[k], r)
		}
		results[i] = r
	}
}

// decodeOne reads and decodes file f.
func decodeOne(f catalogFile, read func(catalogFile) ([]byte, error), a *arena, c *canonicalizer) fileResult {
	data, err := read(f)
	if err != nil {
		return readError(f.name, err)
	}
	return decodeData(f.name, data, a, c)
}

func readError(name string, err error) fileResult {
	return fileResult{err: &Error{Pos: Position{File: name}, Err: err, off: -1}}
}

// decodeData decodes data, the bytes of file name.
func decodeData(name string, data []byte, a *arena, c *canonicalizer) fileResult {
	d := fileDecoder{file: name, data: data, c: c, arena: a}
	derr := d.decode()
	return fileResult{metas: d.metas, offs: d.offs, err: derr}
}

// decodeTyped decodes a blob of a known schema, as operator-registry's
// fbcBuilder.addMeta does with json.Unmarshal of the re-encoded blob
// (typed.go). It returns nil for other schemas.
func decodeTyped(m *Meta) (any, *Error) {
	fail := func(format string, args ...any) *Error {
		return &Error{Pos: m.Pos, Err: fmt.Errorf(format, args...)}
	}
	switch m.Schema {
	case SchemaPackage:
		p, err := decodePackage(m.Blob)
		if err != nil {
			return nil, fail("parse package: %v", err)
		}
		p.Pos = m.Pos
		return p, nil
	case SchemaChannel:
		ch, err := decodeChannel(m.Blob)
		if err != nil {
			return nil, fail("parse channel: %v", err)
		}
		ch.Pos = m.Pos
		return ch, nil
	case SchemaBundle:
		b, err := decodeBundle(m.Blob)
		if err != nil {
			return nil, fail("parse bundle: %v", err)
		}
		if err := checkBundleObjects(&b); err != nil {
			return nil, fail("read bundle objects: %v", err)
		}
		b.Pos = m.Pos
		return b, nil
	case SchemaDeprecations:
		d, err := decodeDeprecation(m.Blob)
		if err != nil {
			return nil, fail("parse deprecation: %v", err)
		}
		d.Pos = m.Pos
		return d, nil
	}
	return nil, nil
}

// PropertyBundleObject is the property type holding a bundle manifest.
const PropertyBundleObject = "olm.bundle.object"

// checkBundleObjects fails where operator-registry's readBundleObjects
// does: an olm.bundle.object value that is not {"data": base64}, or data
// that does not look like JSON (a "{" after spaces) and is not valid YAML.
func checkBundleObjects(b *Bundle) error {
	for i, p := range b.Properties {
		if p.Type != PropertyBundleObject {
			continue
		}
		data, err := bundleObjectData(p.Value)
		if err != nil {
			return fmt.Errorf("package %q, bundle %q: parse property at index %d as bundle object: %v", b.Package, b.Name, i, err)
		}
		if bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{")) {
			continue
		}
		if _, err := yaml.YAMLToJSON(data); err != nil {
			return fmt.Errorf("package %q, bundle %q: convert bundle object property at index %d to JSON: %v", b.Package, b.Name, i, err)
		}
	}
	return nil
}

// arena hands out blob copies from large shared chunks, so a catalog of
// thousands of blobs costs a few allocations.
type arena struct{ buf []byte }

const arenaChunk = 1 << 20

func (a *arena) copy(b []byte) []byte {
	if len(b) > arenaChunk/4 {
		return bytes.Clone(b)
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}
