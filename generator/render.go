package generator

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"path"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"time"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/internal/parallel"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/release/views"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
	"github.com/upgraph/upgraph/viewer"
)

// RenderOptions select and place the output.
type RenderOptions struct {
	// Channels limits the channels rendered (nil: all).
	Channels *regexp.Regexp
	// Arches limits the architectures rendered (nil: all found).
	Arches []string
	// Store receives the generation, unless Started is set.
	Store writer.Store
	// Started, when set, is the generation begun by Start (in its own
	// store; Store is not used), which Render commits or aborts.
	Started     *Started
	GeneratedAt time.Time
	// NoViewer leaves the static viewer (index.html, viewer/) out, for
	// trees only ever read through the graph API.
	NoViewer bool
	// Workers bounds rendering and writing concurrency (0: 2 × GOMAXPROCS).
	Workers int
	Logger  *slog.Logger
	// Check, when set, is given the finished manifest before the
	// generation is committed; an error discards the generation (the
	// shrink guard: a generation that would strand clusters is refused
	// while the one it would replace is still in place).
	Check func(next *manifest.Manifest) error
	// Sign, when set, is given index.json's bytes and the manifest once
	// Check passed, and returns files to add to the generation (the TUF
	// metadata of tuf/, by tree path, which index.json does not list),
	// committed with it: signing adds files and changes none.
	Sign func(index []byte, m *manifest.Manifest) (map[string][]byte, error)
	// Catalogs are operator catalogs to publish beside the release graphs,
	// each under operators/<name>/ (docs/operators.md), with distinct
	// names. With catalogs, Render's b may be nil: a tree of catalogs
	// alone.
	Catalogs []*catviews.Catalog
	// Precompress writes a gzip copy (FILE.gz, internal/precompress)
	// beside every graph and catalog file, listed in index.json, for
	// servers and CDNs to answer clients that accept gzip from.
	Precompress bool
	// Rollouts, when set, adds each bucket's copy of the graph files that
	// differ for it and records the rollouts in index.json
	// (renderRollouts, docs/rollouts.md).
	Rollouts *rollout.Plan
	// Full renders every graph, even those whose inputs the generation
	// replaced lists unchanged (incremental.go), comparing every file
	// with the previous one byte for byte instead.
	Full bool
	// Stats, when set, receives what the generation rendered and what it
	// took over from the previous one.
	Stats *Stats
}

// Stats counts a generation's graph files (channel and per-version
// graphs, without gzip copies) by how they were made.
type Stats struct {
	// GraphsTaken are the channel × arch graphs whose inputs were
	// unchanged, GraphsRendered the others.
	GraphsTaken, GraphsRendered int
	// FilesTaken were linked from the previous generation on the word of
	// its index.json; FilesRendered were rendered and hashed (and then
	// stored, carried over or linked to an identical file); FilesLinked
	// have the content of another file of the generation.
	FilesTaken, FilesRendered, FilesLinked int
	// FilesWritten counts every file of the generation written with its
	// bytes (gzip copies, index.json and the files beside the graphs
	// included), as opposed to linked to a file of the previous
	// generation or of this one (writer.WriteCounter; 0 for a store
	// that does not count).
	FilesWritten int
	// PackagesTaken are the catalogs' packages whose inputs were
	// unchanged and whose files were all taken over, PackagesRendered
	// the others; CatalogFilesTaken and CatalogFilesRendered count the
	// catalogs' files (catalog-wide ones rendered every run).
	PackagesTaken, PackagesRendered, CatalogFilesTaken, CatalogFilesRendered int
	// SegmentsReused and SegmentsCompressed count the segments of the
	// segmented gzip copies made (catalogs' large catalog-wide files):
	// copied from the previous copy, or compressed.
	SegmentsReused, SegmentsCompressed int
}

// Render writes every selected channel × arch graph, each with its
// per-version graphs, every file of each catalog, and index.json, then
// commits the generation. On any error the generation is discarded. b
// is nil for a tree of catalogs alone.
func Render(ctx context.Context, b *Built, opts RenderOptions) (*manifest.Manifest, error) {
	// A refusal below leaves a started generation aborted (after it is
	// taken, this does nothing).
	defer opts.Started.Abort()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if b == nil && len(opts.Catalogs) == 0 {
		return nil, fmt.Errorf("nothing to render: no release graph and no catalog")
	}
	if err := checkCatalogNames(opts.Catalogs); err != nil {
		return nil, err
	}
	channels, arches := []string{}, []string{}
	var gdInput manifest.GraphDataInput
	var relInput manifest.ReleasesInput
	if b != nil {
		channels, arches = selectOutputs(b, opts, log)
		if b.GraphData != nil {
			gdInput = manifest.GraphDataInput{Version: b.GraphData.SchemaVersion.String(), Digest: b.GraphData.Digest}
		}
		relInput = manifest.ReleasesInput{Kind: b.ReleasesKind, Digest: b.ReleasesDigest}
	}
	m := &manifest.Manifest{
		Format:      manifest.Format,
		Generator:   "upgraph",
		GeneratedAt: opts.GeneratedAt.UTC().Format(time.RFC3339),
		Inputs: manifest.Inputs{
			GraphData: gdInput,
			Releases:  relInput,
		},
		Arches:   arches,
		Channels: channels,
		Graphs:   []manifest.Graph{},
		Files:    map[string]manifest.File{},
	}

	if b != nil {
		for _, n := range b.Graph.Nodes() {
			if n.Abstract {
				m.Counts.AbstractReleases++
			} else {
				m.Counts.Releases++
			}
		}
		m.Counts.Edges = b.Graph.EdgeCount()
		for _, ce := range b.Graph.Conditional {
			m.Counts.ConditionalEdges += len(ce.Edges)
		}
	}

	staging, previous, err := begin(ctx, opts, log)
	if err != nil {
		return nil, err
	}
	if previous != nil {
		// The generation lists about as many files as the one it
		// replaces: no growing of the table as they are recorded.
		m.Files = make(map[string]manifest.File, len(previous.Files))
	}
	var gz *copier
	if opts.Precompress {
		gz = newCopier(previous)
		m.Precompressed = precompress.Encoding
	}
	var reuse *previousGeneration
	if !opts.Full {
		if reuse, err = newPreviousGeneration(ctx, staging, previous); err != nil {
			_ = staging.Abort()
			return nil, err
		}
	}
	start := time.Now()
	renderCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var served []bool
	waitLinks := func() error { return nil }
	if b != nil {
		stats := opts.Stats
		if stats == nil {
			stats = &Stats{}
		}
		served, waitLinks, err = renderAll(renderCtx, b, channels, arches, staging, m, opts.Workers, gz, reuse, stats)
		if err != nil {
			_ = staging.Abort()
			return nil, err
		}
		log.Debug("rendered", "files", m.Counts.Files, "distinctFiles", m.Counts.DistinctFiles, "duration", time.Since(start),
			"graphsTaken", stats.GraphsTaken, "graphsRendered", stats.GraphsRendered, "filesTaken", stats.FilesTaken, "filesRendered", stats.FilesRendered)
		if opts.Rollouts != nil {
			if err = renderRollouts(renderCtx, b, opts.Rollouts, channels, arches, staging, m, gz); err != nil {
				cancel()
				_ = waitLinks()
				_ = staging.Abort()
				return nil, err
			}
			log.Debug("rollouts rendered", "variantFiles", m.Rollouts.VariantFiles, "sharedFiles", m.Rollouts.SharedFiles)
		}
	} else {
		m.Counts.Files = 1 // index.json
	}
	if len(opts.Catalogs) > 0 {
		start := time.Now()
		err = renderCatalogs(renderCtx, opts.Catalogs, staging, m, opts.Workers, gz, reuse, opts.Stats)
		if err != nil {
			cancel()
			_ = waitLinks()
			_ = staging.Abort()
			return nil, err
		}
		log.Debug("catalogs rendered", "catalogs", len(opts.Catalogs), "duration", time.Since(start))
	}
	start = time.Now()
	// The duplicate files are being linked meanwhile; the index is written
	// and the tree committed once they all are.
	index, err := finishIndex(ctx, b, served, staging, m, opts, gz, log)
	if err != nil {
		cancel() // the links are of no use any more
	}
	if linkErr := waitLinks(); err == nil {
		err = linkErr
	}
	if err == nil && opts.Check != nil {
		err = opts.Check(m)
	}
	if err == nil && opts.Sign != nil {
		err = putSigned(ctx, staging, index, m, opts.Sign)
	}
	if err == nil {
		err = staging.Put(ctx, manifest.FileName, index)
	}
	if wc, ok := staging.(writer.WriteCounter); ok && opts.Stats != nil {
		opts.Stats.FilesWritten = wc.FilesWritten()
	}
	if err == nil {
		err = staging.Commit(ctx)
	}
	if err != nil {
		_ = staging.Abort()
		return nil, err
	}
	log.Debug("committed", "duration", time.Since(start))
	return m, nil
}

// putSigned stores the files sign returns for the generation, each of
// which must be one index.json does not list.
func putSigned(ctx context.Context, st writer.Staging, index []byte, m *manifest.Manifest, sign func([]byte, *manifest.Manifest) (map[string][]byte, error)) error {
	files, err := sign(index, m)
	if err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !manifest.IsMetadata(name) {
			return fmt.Errorf("signing: %s is not a metadata file name under %s/", name, manifest.MetadataDir)
		}
		if err := st.Put(ctx, name, files[name]); err != nil {
			return err
		}
	}
	return nil
}

// finishIndex stores the files beside the graphs (signatures, the empty
// graph, schemas, the viewer), recording them in m, and encodes m.
func finishIndex(ctx context.Context, b *Built, served []bool, staging writer.Staging, m *manifest.Manifest, opts RenderOptions, gz *copier, log *slog.Logger) ([]byte, error) {
	if b != nil {
		if err := putSignatures(ctx, b, served, staging, m, log); err != nil {
			return nil, err
		}
	}
	if _, err := putFile(ctx, staging, m, manifest.EmptyGraphPath, []byte(manifest.EmptyGraph)); err != nil {
		return nil, err
	}
	if gz != nil {
		// The empty graph answers unknown channels, compressed too.
		if _, err := putFile(ctx, staging, m, precompress.Name(manifest.EmptyGraphPath), gz.gz.GzipFile(nil, manifest.EmptyGraphPath, []byte(manifest.EmptyGraph))); err != nil {
			return nil, err
		}
	}
	// The schemas travel with the tree, so consumers of a mirror or a
	// bucket can check what they read without upgraph; the viewer makes
	// any static copy of the tree browsable offline.
	extras := map[string][]byte{}
	if !opts.NoViewer {
		extras = viewer.Files()
		if m.Rollouts == nil {
			for name := range extras {
				if viewer.ForRollouts(name) {
					delete(extras, name)
				}
			}
		}
		// The viewer's table of graphs, so its pickers need not read
		// index.json (megabytes at real scale).
		var err error
		if extras[viewer.SummaryFile], err = viewer.Summary(m); err != nil {
			return nil, err
		}
	}
	for name, data := range schema.Files() {
		// The catalog formats' schemas go with catalogs only, so a tree
		// of release graphs keeps the files it always had.
		if len(m.Catalogs) == 0 && schema.ForCatalogs(name) {
			continue
		}
		if m.Rollouts == nil && schema.ForRollouts(name) {
			continue
		}
		extras[manifest.SchemaDir+name] = data
	}
	for _, name := range slices.Sorted(maps.Keys(extras)) {
		if _, err := putFile(ctx, staging, m, name, extras[name]); err != nil {
			return nil, err
		}
	}
	return m.Encode()
}

func selectOutputs(b *Built, opts RenderOptions, log *slog.Logger) (channels, arches []string) {
	for _, c := range b.Channels {
		if opts.Channels != nil && !opts.Channels.MatchString(c) {
			continue
		}
		if !policy.ChannelPattern.MatchString(c) {
			log.Warn("channel name cannot be requested by clients; not rendered", "channel", c, "pattern", policy.ChannelPattern.String())
			continue
		}
		channels = append(channels, c)
	}
	arches = opts.Arches
	if arches == nil {
		arches = b.Graph.Arches()
	}
	arches = slices.Clone(arches)
	slices.Sort(arches)
	arches = slices.Compact(arches)
	kept := arches[:0]
	for _, a := range arches {
		if policy.ArchPattern.MatchString(a) {
			kept = append(kept, a)
		} else {
			log.Warn("architecture cannot be requested by clients; not rendered", "arch", a)
		}
	}
	return channels, kept
}

type job struct{ channel, arch string }

// treeFile is one file of the tree. A file whose content an earlier one
// already has is linked to it (owner) rather than rendered again.
type treeFile struct {
	name  string
	owner *treeFile // nil: rendered, info is its own
	info  manifest.File
	// gz is the file's gzip copy (RenderOptions.Precompress), nil when it
	// has none or is linked (its owner's is); data holds the copy's bytes
	// between hashing and storing.
	gz   *treeFile
	data []byte
	// cuts are where the segments of the file's gzip copy start (a
	// catalog's large catalog-wide files, catalog/metas Segments): nil
	// for a copy of one stream; segments are a segmented copy's.
	cuts     []int
	segments [][2]int64
}

// contentOwners maps a content key (views.Layout) to the first file
// claiming it.
type contentOwners struct {
	mu     sync.Mutex
	owners map[string]*treeFile
}

// claim returns the file already owning key, or records f as its owner
// and returns nil.
func (c *contentOwners) claim(key string, f *treeFile) *treeFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o, ok := c.owners[key]; ok {
		return o
	}
	c.owners[key] = f
	return nil
}

// renderAll writes the tree in one pass over the channel × arch jobs,
// largest channels first so no worker is left with a big one at the end:
// each job computes its view, claims the content key of each of its
// files, and renders, hashes and stores the files it was first to claim.
// The files whose content another file has are then linked to it, in the
// background: waitLinks returns when they all are (or the first error).
// Which of two identical files is written and which is linked depends on
// scheduling, but not the bytes of the tree or index.json. served[i]
// tells whether node i is in some rendered graph.
//
// A job whose view has the input digest the previous generation records
// for its graph (reuse, nil for a full run) takes its files over from
// there instead of rendering them (previousGeneration.take); the content
// keys are claimed all the same, so the files linked and the counts are
// those of a full run.
func renderAll(ctx context.Context, b *Built, channels, arches []string, st writer.Staging, m *manifest.Manifest, workers int, gz *copier,
	reuse *previousGeneration, stats *Stats) (served []bool, waitLinks func() error, err error) {
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	ix := policy.NewIndex(b.Graph)
	var jobs []job
	for _, c := range channels {
		for _, a := range arches {
			jobs = append(jobs, job{c, a})
		}
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		return ix.Members(jobs[j].channel) - ix.Members(jobs[i].channel)
	})

	links, canLink := st.(writer.Linker)
	owners := contentOwners{owners: map[string]*treeFile{}}
	files := make([][]treeFile, len(jobs))
	members := make([][]int, len(jobs))
	m.Graphs = make([]manifest.Graph, len(jobs))
	renderers := views.NewRenderers(b.Graph, workers)
	digests := newInputDigests(b.Graph, gz != nil)
	scratch := make([]inputScratch, workers)
	taken := make([]bool, len(jobs))
	rendered := make([]int, len(jobs)) // files rendered, per job
	takenFiles := make([]int, len(jobs))
	// Per worker, one batch for channel graphs and one for per-version
	// graphs: a channel graph is up to ten times the size of the largest
	// per-version graph, and among small files its hash lane would be left
	// running alone (see manifest.SHA256s). Batches run across jobs and are
	// flushed once the last job is rendered.
	channelBatches := make([]fileBatch, workers)
	versionBatches := make([]fileBatch, workers)
	for w := range renderers {
		channelBatches[w] = fileBatch{maxFiles: 16, maxBytes: 16 << 20, gzip: gz}
		versionBatches[w] = fileBatch{maxFiles: 48, maxBytes: 4 << 20, gzip: gz}
	}
	err = parallel.Run(ctx, workers, len(jobs), func(ctx context.Context, w, o int) error {
		i := order[o]
		v := ix.View(jobs[i].channel, jobs[i].arch)
		if err := checkUniqueVersions(ix, v); err != nil {
			return err
		}
		l := views.NewLayout(v)
		members[i] = v.Nodes
		m.Graphs[i] = manifest.Graph{
			Channel: jobs[i].channel, Arch: jobs[i].arch, Path: manifest.GraphPath(jobs[i].arch, jobs[i].channel),
			Nodes: len(v.Nodes), Edges: len(v.Edges), ConditionalEdges: len(v.ConditionalPairs),
			Versions: v.Versions, Inputs: digests.view(&scratch[w], v),
		}
		taken[i] = reuse.unchanged(m.Graphs[i].Path, m.Graphs[i].Inputs)
		own := make([]treeFile, 1+len(v.Versions))
		files[i] = own
		own[0].name = m.Graphs[i].Path
		dir := path.Join("graph", jobs[i].arch, jobs[i].channel)
		for p, s := range v.Versions {
			own[1+p].name = path.Join(dir, manifest.VersionFileName(s))
		}
		r := renderers[w]
		for k := range own {
			f := &own[k]
			key := l.ChannelKey
			if k > 0 {
				key = l.VersionKeys[k-1]
			}
			if canLink {
				if f.owner = owners.claim(key, f); f.owner != nil {
					continue
				}
			}
			fb := &versionBatches[w]
			if k == 0 {
				fb = &channelBatches[w]
			}
			if taken[i] {
				linked, needCopy, err := reuse.take(ctx, f, gz != nil)
				if err != nil {
					return err
				}
				if needCopy {
					// The file is the previous one; only its copy is made.
					var buf []byte
					if k == 0 {
						buf = r.Channel(fb.next(), v)
					} else {
						buf = r.Version(fb.next(), l, k-1)
					}
					if err := fb.compressCopy(ctx, st, f, buf); err != nil {
						return err
					}
				}
				if linked {
					takenFiles[i]++
					continue
				}
			}
			rendered[i]++
			var buf []byte
			if k == 0 {
				buf = r.Channel(fb.next(), v)
			} else {
				buf = r.Version(fb.next(), l, k-1)
			}
			if fb.add(f, buf) {
				if err := fb.flush(ctx, st); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil {
		batches := append(channelBatches, versionBatches...)
		err = parallel.Run(ctx, workers, len(batches), func(ctx context.Context, _, i int) error {
			return batches[i].flush(ctx, st)
		})
	}
	if err != nil {
		return nil, nil, err
	}
	linked := make(chan error, 1)
	go func() {
		linked <- parallel.Run(ctx, workers, len(jobs), func(ctx context.Context, _, j int) error {
			for k := range files[j] {
				if f := &files[j][k]; f.owner != nil {
					if err := links.Link(ctx, f.owner.name, f.name); err != nil {
						return err
					}
					if err := linkCopy(ctx, links, f); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}()

	served = make([]bool, b.Graph.Len())
	for _, nodes := range members {
		for _, i := range nodes {
			served[i] = true
		}
	}
	for _, jobFiles := range files {
		for k := range jobFiles {
			f := &jobFiles[k]
			fi := f.info
			gzName, gzInfo, hasCopy := copyInfo(f)
			if f.owner != nil {
				fi = f.owner.info
			} else {
				m.Counts.DistinctFiles++
				m.Counts.DistinctBytes += fi.Size
				if hasCopy {
					m.Counts.DistinctFiles++
					m.Counts.DistinctBytes += gzInfo.Size
				}
			}
			m.Files[f.name] = fi
			m.Counts.Bytes += fi.Size
			if hasCopy {
				m.Files[gzName] = gzInfo
				m.Counts.Bytes += gzInfo.Size
			}
		}
	}
	for _, g := range m.Graphs {
		m.Counts.VersionGraphs += len(g.Versions)
	}
	if stats != nil {
		for i := range jobs {
			if taken[i] {
				stats.GraphsTaken++
			} else {
				stats.GraphsRendered++
			}
			stats.FilesRendered += rendered[i]
			stats.FilesTaken += takenFiles[i]
			for k := range files[i] {
				if files[i][k].owner != nil {
					stats.FilesLinked++
				}
			}
		}
	}
	m.Counts.Graphs = len(m.Graphs)
	m.Counts.Files = len(m.Files) + 1 // index.json itself
	return served, func() error { return <-linked }, nil
}

// fileBatch collects rendered files so they are hashed together (see
// manifest.SHA256s) before being stored. Its buffers are reused from
// batch to batch; a Store does not keep them.
type fileBatch struct {
	// A batch is full at maxFiles files or maxBytes bytes: enough files for
	// the hash lanes to stay busy, few enough bytes that the batch is still
	// in cache when it is hashed and written.
	maxFiles, maxBytes int

	bufs  [][]byte
	files []*treeFile // the file of bufs[i]
	bytes int

	// gzip, when set, makes the files' gzip copies (putCopy) into gzBufs;
	// copies are those put and pending those to carry over since the last
	// finishCopies, and hashed their buffers, all reused.
	gzip           *copier
	gzBufs, hashed [][]byte
	copies         []*treeFile
	pending        []pendingCopy
	// oldBufs hold the previous copies read (pending[i]'s in oldBufs[i]).
	oldBufs [][]byte
}

// next returns an empty buffer to render the next file into.
func (fb *fileBatch) next() []byte {
	if n := len(fb.files); n < len(fb.bufs) {
		return fb.bufs[n][:0]
	}
	return nil
}

// add records the rendered content of f and reports whether the batch is
// full.
func (fb *fileBatch) add(f *treeFile, buf []byte) bool {
	if n := len(fb.files); n < len(fb.bufs) {
		fb.bufs[n] = buf
	} else {
		fb.bufs = append(fb.bufs, buf)
	}
	fb.files = append(fb.files, f)
	fb.bytes += len(buf)
	return len(fb.files) >= fb.maxFiles || fb.bytes >= fb.maxBytes
}

// flush hashes and stores the batch and empties it. Where the staging
// replaces a previous generation and lets its caller compare (a
// writer.Comparer), each file is compared with the previous one of its
// name and size while it is hashed (flushCompared), else stored with Put,
// which compares it again.
func (fb *fileBatch) flush(ctx context.Context, st writer.Staging) error {
	defer fb.closePending() // after an error
	bufs := fb.bufs[:len(fb.files)]
	if cmp, ok := st.(writer.Comparer); ok {
		if carrier, ok := st.(writer.Carrier); ok && carrier.PreviousDir() != "" {
			return fb.flushCompared(ctx, st, cmp, bufs)
		}
	}
	for i, digest := range manifest.SHA256s(bufs) {
		fb.files[i].info = manifest.File{SHA256: digest, Size: int64(len(bufs[i]))}
	}
	for i, f := range fb.files {
		if err := fb.putWithCopy(ctx, st, f, bufs[i]); err != nil {
			return err
		}
	}
	return fb.finish(ctx, st)
}

// finish makes the batch's pending copies and empties it.
func (fb *fileBatch) finish(ctx context.Context, st writer.Staging) error {
	if err := fb.finishCopies(ctx, st); err != nil {
		return err
	}
	fb.files, fb.bytes = fb.files[:0], 0
	return nil
}

// compareBuffers hold the previous files read by flushCompared while they
// are compared: at most two per batch being hashed.
var compareBuffers = sync.Pool{New: func() any { return new([]byte) }}

// flushCompared is flush comparing each file with the previous
// generation's as it is hashed (manifest.SHA256sEqual): the previous file
// of the same name and size is opened and read when its hashing starts,
// compared in the same pass over the rendered bytes, and kept open until
// it is carried over (that inode linked) or, when it differs, the file
// written anew. So each file is read from the previous tree once and the
// rendered bytes are read once for both, where Put would read them again
// to compare.
func (fb *fileBatch) flushCompared(ctx context.Context, st writer.Staging, cmp writer.Comparer, bufs [][]byte) error {
	olds := make([]*writer.PreviousFile, len(bufs))
	lent := make([]*[]byte, len(bufs))
	equal := make([]bool, len(bufs))
	defer func() {
		for _, old := range olds {
			if old != nil {
				old.Close()
			}
		}
	}()
	var openErr error
	digests := manifest.SHA256sEqual(bufs, func(i int) ([]byte, bool) {
		if openErr != nil {
			return nil, false
		}
		bp := compareBuffers.Get().(*[]byte)
		old, ok, err := cmp.OpenPreviousSized(ctx, fb.files[i].name, int64(len(bufs[i])), *bp)
		if err != nil || !ok {
			openErr = err
			compareBuffers.Put(bp)
			return nil, false
		}
		*bp, olds[i], lent[i] = old.Data[:0], old, bp
		return old.Data, true
	}, func(i int, eq bool) {
		equal[i] = eq
		if bp := lent[i]; bp != nil {
			olds[i].Data, lent[i] = nil, nil // the buffer is lent to the next
			compareBuffers.Put(bp)
		}
	})
	if openErr != nil {
		return openErr
	}
	for i, f := range fb.files {
		f.info = manifest.File{SHA256: digests[i], Size: int64(len(bufs[i]))}
		carried := false
		if old := olds[i]; old != nil {
			carried = equal[i] && old.Link()
			old.Close()
			olds[i] = nil
		}
		if !carried {
			if err := cmp.PutNew(ctx, f.name, bufs[i]); err != nil {
				return err
			}
		}
		if err := fb.putCopy(ctx, st, f, bufs[i], carried); err != nil {
			return err
		}
	}
	return fb.finish(ctx, st)
}

// putFile stores a file outside the rendering phases and records it.
func putFile(ctx context.Context, st writer.Staging, m *manifest.Manifest, name string, data []byte) (manifest.File, error) {
	f := manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
	if err := st.Put(ctx, name, data); err != nil {
		return f, err
	}
	m.Files[name] = f
	m.Counts.Files++
	m.Counts.Bytes += f.Size
	m.Counts.DistinctFiles++
	m.Counts.DistinctBytes += f.Size
	return f, nil
}

// checkUniqueVersions rejects a view in which two releases would be served
// under the same version string (their per-version files would collide).
func checkUniqueVersions(ix *policy.Index, v *policy.ChannelView) error {
	seen := make(map[string]int, len(v.Versions))
	for p, s := range v.Versions {
		if q, dup := seen[s]; dup {
			g := ix.Graph()
			return fmt.Errorf("channel %s, arch %s: releases %s and %s are both served as version %s",
				v.Channel, v.Arch, g.Node(v.Nodes[q]).Version, g.Node(v.Nodes[p]).Version, s)
		}
		seen[s] = p
	}
	return nil
}
