// Package site serves a generated tree the way a Cincinnati policy-engine
// answers: GET /graph?channel=&arch=&version= maps to a precomputed file.
// Handlers are plain http.Handlers; nothing is computed per request beyond
// parameter validation and a map lookup. Server puts a fast path for graph
// requests in front of net/http (fastserve.go).
package site

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
)

// Generation is one loaded output tree.
type Generation struct {
	Manifest *manifest.Manifest
	// ID identifies the generation (a digest of its index.json).
	ID          string
	GeneratedAt time.Time

	root           *os.Root
	removeSnapshot func() error // nil when serving in place
	// snapshot is the private copy being served, or "" when serving in place.
	snapshot string
	graphs   map[graphKey]*servedGraph
	index    *content // index.json, served to browsers (static.go)
	// catalogs are the tree's operator catalogs, by name (catalogd.go).
	catalogs map[string]*servedCatalog
	// emptyGz tells that the tree has the empty graph's gzip copy.
	emptyGz bool

	// slots holds each distinct content the graphs resolve to, also by
	// digest; the fast path keeps them open for the generation's life, as
	// many as its Handler's fileBudget allows (hard-linked duplicates
	// share one).
	slots    []*contentSlot
	bySHA    map[string]*contentSlot
	sharedMu sync.Mutex // guards nshared, sharedClosed and opening slot files
	nshared  int
	// budget is the serving Handler's, set before g is served.
	budget       *fileBudget
	sharedClosed bool

	// refs counts the requests using g, plus one for whoever owns it
	// (the loader, then the Handler while it serves g); at zero g is
	// closed, and a closed g can no longer be acquired (see acquire).
	refs      atomic.Int64
	closeOnce sync.Once
	closeErr  error
	done      chan struct{}              // closed once Close has finished
	forced    atomic.Pointer[time.Timer] // closes g if its last requests never end (lifetime.go)

	// aheadLeft counts the files the background digest check (verifyAhead)
	// has still to read; -1 when it is not running for this generation.
	aheadLeft atomic.Int64
}

// fileBudget bounds the descriptors the generations a Handler serves keep
// open between requests, together: a retired generation still answering
// (for up to a minute after a swap) holds its share until it closes, and
// the new one takes what is left, so the sum never passes the limit and
// one generation alone may use all of it. Past the budget a file is opened
// for its request and closed after it (as nginx without open_file_cache
// does), which costs an open, a close and their allocations per answer.
type fileBudget struct{ left atomic.Int64 }

func newFileBudget(n int) *fileBudget {
	b := &fileBudget{}
	b.left.Store(int64(n))
	return b
}

// take reserves one descriptor; false when none is left (or b is nil:
// a generation no Handler serves shares none).
func (b *fileBudget) take() bool {
	if b == nil {
		return false
	}
	if b.left.Add(-1) < 0 {
		b.left.Add(1)
		return false
	}
	return true
}

// give returns n descriptors.
func (b *fileBudget) give(n int) {
	if b != nil {
		b.left.Add(int64(n))
	}
}

type graphKey struct{ channel, arch string }

type servedGraph struct {
	file *servedFile // the channel graph
	// byVersion maps a version without build metadata to the per-version
	// file of the first release with that version, in node order: the
	// release a cluster picks as its current one (build metadata is
	// ignored when it compares versions).
	byVersion map[string]*servedFile
}

// servedFile is a file a graph request resolves to, with what answering
// it needs, so a request looks nothing up by path or digest.
type servedFile struct {
	name string
	info manifest.File
	slot *contentSlot
	// gz is the file's gzip copy (FILE.gz, written by generate), answered
	// to clients that accept gzip; nil when the tree has none.
	gz *servedFile
	// variants are the phased-rollout buckets' own copies of the file
	// (manifest.Rollouts.Variants), by bucket; nil without any.
	variants map[int]*servedFile
}

// contentSlot is one distinct content of a generation.
type contentSlot struct {
	digest string
	etag   string
	// name is the file every request for this content opens, whichever
	// name it asked for: its stamp then always describes the same inode.
	name string
	// stamp records the state of name's inode when its bytes were last
	// checked against digest (stamp.go); streamed only while it holds.
	stamp atomic.Pointer[stamp]
	// file is kept open for sendfile, once opened (see openShared).
	file atomic.Pointer[os.File]
}

// Load opens the tree at dir and checks that every file its index names
// exists with the recorded size, so a half-copied or corrupt tree is
// refused before it is served. The generation is served from a snapshot
// of the tree (see snapshot) where the file system allows one, so it
// outlives the directory being replaced; otherwise from dir itself. The
// caller owns the generation: it hands it to a Handler (SetGeneration or
// Offer), which closes it once retired, or closes it.
func Load(dir string, log *slog.Logger) (*Generation, error) {
	t, err := tree.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	index, m := t.Index(), t.Manifest()
	t.Close()
	// Checked before the snapshot links them: a name reaching outside
	// the tree would have it make directories there.
	for name := range m.Files {
		if !fs.ValidPath(name) || !(strings.HasPrefix(name, "graph/") || strings.HasPrefix(name, "signatures/") || strings.HasPrefix(name, manifest.SchemaDir) ||
			strings.HasPrefix(name, OperatorsDir) || strings.HasPrefix(name, manifest.RolloutDir) || treeFile(name)) {
			return nil, fmt.Errorf("%s: index.json names %q, which is not a file of a tree", dir, name)
		}
	}
	from, remove := dir, func() error { return nil }
	if snap, rm, err := snapshot(dir, index, m); err == nil {
		from, remove = snap, rm
	} else if log != nil {
		log.Warn("serving the tree in place: files not yet cached will fail if it is replaced", "dir", dir, "reason", err)
	}
	root, err := os.OpenRoot(from)
	if err != nil {
		remove()
		return nil, err
	}
	g, err := load(root, m, index)
	if err != nil {
		root.Close()
		remove()
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	g.removeSnapshot = remove
	if from != dir {
		g.snapshot = from
	}
	return g, nil
}

// open opens a file for streaming. In a snapshot every name is a hard link
// this process made from a name the manifest validated, and nothing else
// writes there, so one plain open is safe; os.Root resolves each path
// component with its own system call, which costs a fifth of the CPU of
// a request under load. In place, the tree is resolved through the root.
func (g *Generation) open(name string) (*os.File, error) {
	if g.snapshot != "" {
		return os.Open(filepath.Join(g.snapshot, filepath.FromSlash(name)))
	}
	return g.root.Open(name)
}

func load(root *os.Root, m *manifest.Manifest, index []byte) (*Generation, error) {
	g := &Generation{Manifest: m, ID: manifest.Digest(index), root: root, graphs: map[graphKey]*servedGraph{}, index: newContent(index),
		catalogs: catalogsOf(m), bySHA: map[string]*contentSlot{}, done: make(chan struct{})}
	g.aheadLeft.Store(-1)
	g.refs.Store(1) // the loader's
	var err error
	if g.GeneratedAt, err = time.Parse(time.RFC3339, m.GeneratedAt); err != nil {
		return nil, fmt.Errorf("index.json: generatedAt: %w", err)
	}
	for name, f := range m.Files {
		st, err := root.Stat(name)
		if err != nil {
			return nil, fmt.Errorf("index.json names %s: %w", name, err)
		}
		if st.Size() != f.Size || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s has %d bytes, index.json says %d", name, st.Size(), f.Size)
		}
	}
	file := func(name string) *servedFile {
		f := m.Files[name]
		slot, ok := g.bySHA[f.SHA256]
		if !ok {
			slot = &contentSlot{digest: f.SHA256, etag: etagOf(f.SHA256), name: name}
			g.bySHA[f.SHA256] = slot
			g.slots = append(g.slots, slot)
		}
		return &servedFile{name: name, info: f, slot: slot}
	}
	_, g.emptyGz = m.Files[precompress.Name(manifest.EmptyGraphPath)]
	served := func(name string) *servedFile {
		f := file(name)
		if _, ok := m.Files[precompress.Name(name)]; ok {
			f.gz = file(precompress.Name(name))
		}
		return f
	}
	if m.Rollouts != nil {
		var err error
		if served, err = withVariants(m, served); err != nil {
			return nil, err
		}
	}
	for _, mg := range m.Graphs {
		if _, ok := m.Files[mg.Path]; !ok {
			return nil, fmt.Errorf("index.json: graph %s/%s: %s is not among the files", mg.Channel, mg.Arch, mg.Path)
		}
		sg := &servedGraph{file: served(mg.Path), byVersion: make(map[string]*servedFile, len(mg.Versions))}
		dir := path.Join("graph", mg.Arch, mg.Channel)
		for _, v := range mg.Versions {
			pv, err := version.Parse(v)
			if err != nil {
				return nil, fmt.Errorf("index.json: graph %s/%s: %w", mg.Channel, mg.Arch, err)
			}
			file := path.Join(dir, manifest.VersionFileName(v))
			if _, ok := m.Files[file]; !ok {
				return nil, fmt.Errorf("index.json: graph %s/%s: %s is not among the files", mg.Channel, mg.Arch, file)
			}
			if _, taken := sg.byVersion[pv.Key()]; !taken {
				sg.byVersion[pv.Key()] = served(file)
			}
		}
		g.graphs[graphKey{mg.Channel, mg.Arch}] = sg
	}
	return g, nil
}

// openShared returns an open file of f's content for reading with
// explicit offsets (its offset is shared), and what to call when done
// with it.
func (g *Generation) openShared(f *servedFile) (*os.File, func(), error) {
	if file := f.slot.file.Load(); file != nil {
		return file, noop, nil
	}
	file, err := g.open(f.slot.name)
	if err != nil {
		return nil, nil, err
	}
	g.sharedMu.Lock()
	defer g.sharedMu.Unlock()
	if prev := f.slot.file.Load(); prev != nil {
		file.Close()
		return prev, noop, nil
	}
	if g.sharedClosed || !g.budget.take() {
		return file, func() { file.Close() }, nil
	}
	f.slot.file.Store(file)
	g.nshared++
	return file, noop, nil
}

func noop() {}

// Close releases the tree's descriptors and removes its snapshot, at
// once: a Handler closes the generations it retires itself, when their
// last request ends (SetGeneration), so Close is for a generation never
// handed to one, or for exit. Later calls return the first one's result.
func (g *Generation) Close() error {
	g.closeOnce.Do(func() {
		// Far below zero: requests still holding g release without
		// reaching zero again, and none can acquire it.
		g.refs.Store(math.MinInt64 / 2)
		if t := g.forced.Load(); t != nil {
			t.Stop()
		}
		g.sharedMu.Lock()
		g.sharedClosed = true
		for _, slot := range g.slots {
			// Cleared, so a request still resolving against this generation
			// opens the file again (and fails cleanly once the root is closed)
			// instead of being handed a closed descriptor.
			if f := slot.file.Swap(nil); f != nil {
				f.Close()
			}
		}
		g.budget.give(g.nshared)
		g.nshared = 0
		g.sharedMu.Unlock()
		g.closeErr = g.root.Close()
		if g.removeSnapshot != nil {
			g.closeErr = errors.Join(g.closeErr, g.removeSnapshot())
		}
		close(g.done)
	})
	return g.closeErr
}

// acquire takes a reference for a request; false once g is closed.
func (g *Generation) acquire() bool {
	for {
		n := g.refs.Load()
		if n <= 0 {
			return false
		}
		if g.refs.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// release drops a reference. The last one closes g in the background:
// removing a snapshot of thousands of files is no work for the request
// that happened to finish last.
func (g *Generation) release() {
	if g.refs.Add(-1) == 0 {
		go g.Close()
	}
}

// closed reports whether Close has finished.
func (g *Generation) closed() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

// lookup resolves a validated request to a file of the tree; ok is false
// for a channel × arch the tree does not have.
func (g *Generation) lookup(channel, arch, ver string) (f *servedFile, known bool, versionFound bool) {
	sg, ok := g.graphs[graphKey{channel, arch}]
	if !ok {
		return nil, false, false
	}
	if ver != "" {
		// The keys are valid versions without build metadata, so a
		// request for one of them as it is needs no parsing.
		if f, ok := sg.byVersion[ver]; ok {
			return f, true, true
		}
		if v, err := version.Parse(ver); err == nil {
			if f, ok := sg.byVersion[v.Key()]; ok {
				return f, true, true
			}
		}
	}
	return sg.file, true, false
}

// read returns a file's content, checked against its recorded size and
// digest (a *changedError when it does not match).
func (g *Generation) read(name string) ([]byte, manifest.File, error) {
	f, ok := g.Manifest.Files[name]
	if !ok {
		return nil, f, fs.ErrNotExist
	}
	data, err := fs.ReadFile(g.root.FS(), name)
	if err != nil {
		return nil, f, err
	}
	if int64(len(data)) != f.Size || manifest.SHA256(data) != f.SHA256 {
		return nil, f, &changedError{name: name, size: int64(len(data)), want: f.Size}
	}
	return data, f, nil
}
