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

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/generator/policy"
	"github.com/upgraph/upgraph/generator/views"
	"github.com/upgraph/upgraph/generator/writer"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/site/viewer"
)

// RenderOptions select and place the output.
type RenderOptions struct {
	// Channels limits the channels rendered (nil: all).
	Channels *regexp.Regexp
	// Arches limits the architectures rendered (nil: all found).
	Arches      []string
	Store       writer.Store
	GeneratedAt time.Time
	// NoViewer leaves the static viewer (index.html, viewer/) out, for
	// trees only ever read through the graph API.
	NoViewer bool
	// Workers bounds rendering and writing concurrency (0: 2 × GOMAXPROCS).
	Workers int
	Logger  *slog.Logger
}

// Render writes every selected channel × arch graph, each with its
// per-version graphs, and index.json, then commits the generation. On any
// error the generation is discarded.
func Render(ctx context.Context, b *Built, opts RenderOptions) (*manifest.Manifest, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	channels, arches := selectOutputs(b, opts, log)
	var gdInput manifest.GraphDataInput
	if b.GraphData != nil {
		gdInput = manifest.GraphDataInput{Version: b.GraphData.SchemaVersion.String(), Digest: b.GraphData.Digest}
	}
	m := &manifest.Manifest{
		Format:      manifest.Format,
		Generator:   "upgraph",
		GeneratedAt: opts.GeneratedAt.UTC().Format(time.RFC3339),
		Inputs: manifest.Inputs{
			GraphData: gdInput,
			Releases:  manifest.ReleasesInput{Kind: b.ReleasesKind, Digest: b.ReleasesDigest},
		},
		Arches:   arches,
		Channels: channels,
		Files:    map[string]manifest.File{},
	}
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

	staging, err := opts.Store.Begin(ctx)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	served, err := renderAll(ctx, b, channels, arches, staging, m, opts.Workers)
	if err != nil {
		_ = staging.Abort()
		return nil, err
	}
	log.Debug("rendered", "files", m.Counts.Files, "distinctFiles", m.Counts.DistinctFiles, "duration", time.Since(start))
	start = time.Now()
	if err := putSignatures(ctx, b, served, staging, m, log); err != nil {
		_ = staging.Abort()
		return nil, err
	}
	if _, err := putFile(ctx, staging, m, manifest.EmptyGraphPath, []byte(manifest.EmptyGraph)); err != nil {
		_ = staging.Abort()
		return nil, err
	}
	// The schemas travel with the tree, so consumers of a mirror or a
	// bucket can check what they read without upgraph; the viewer makes
	// any static copy of the tree browsable offline.
	extras := map[string][]byte{}
	if !opts.NoViewer {
		extras = viewer.Files()
		// The viewer's table of graphs, so its pickers need not read
		// index.json (megabytes at real scale).
		if extras[viewer.SummaryFile], err = viewer.Summary(m); err != nil {
			_ = staging.Abort()
			return nil, err
		}
	}
	for name, data := range schema.Files() {
		extras[manifest.SchemaDir+name] = data
	}
	for _, name := range slices.Sorted(maps.Keys(extras)) {
		if _, err := putFile(ctx, staging, m, name, extras[name]); err != nil {
			_ = staging.Abort()
			return nil, err
		}
	}
	index, err := m.Encode()
	if err == nil {
		err = staging.Put(ctx, manifest.FileName, index)
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

// plannedFile is one file of the tree. owner is the index of the planned
// file whose content it shares (itself for the first of its content).
type plannedFile struct {
	name  string
	job   int
	pos   int // node position in the view; -1 for the channel graph
	owner int
}

// renderAll writes the tree in phases so that no worker waits on another:
// views and content keys are computed in parallel, each distinct content
// is assigned to its first file in job order, owners are rendered, hashed
// and written in parallel, and the other files become links to them.
// served[i] tells whether node i is in some rendered graph.
func renderAll(ctx context.Context, b *Built, channels, arches []string, st writer.Staging, m *manifest.Manifest, workers int) (served []bool, err error) {
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
	// Only the keys are kept between phases: holding every view would
	// double peak memory, and recomputing one costs little.
	type jobKeys struct {
		channel  string
		versions []string
		keys     []string
	}
	keys := make([]jobKeys, len(jobs))
	members := make([][]int, len(jobs))
	m.Graphs = make([]manifest.Graph, len(jobs))
	err = parallel(ctx, workers, len(jobs), func(_, i int) error {
		v := ix.View(jobs[i].channel, jobs[i].arch)
		if err := checkUniqueVersions(ix, v); err != nil {
			return err
		}
		l := views.NewLayout(v)
		keys[i] = jobKeys{l.ChannelKey, v.Versions, l.VersionKeys}
		members[i] = v.Nodes
		m.Graphs[i] = manifest.Graph{
			Channel: jobs[i].channel, Arch: jobs[i].arch, Path: manifest.GraphPath(jobs[i].arch, jobs[i].channel),
			Nodes: len(v.Nodes), Edges: len(v.Edges), ConditionalEdges: len(v.ConditionalPairs),
			Versions: v.Versions,
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	served = make([]bool, b.Graph.Len())
	for _, nodes := range members {
		for _, i := range nodes {
			served[i] = true
		}
	}
	members = nil

	links, canLink := st.(writer.Linker)
	var plan []plannedFile
	jobStart := make([]int, len(jobs)+1)
	owners := map[string]int{}
	add := func(name, key string, j, pos int) {
		owner, seen := owners[key]
		if !seen || !canLink {
			owner = len(plan)
			owners[key] = owner
		}
		plan = append(plan, plannedFile{name: name, job: j, pos: pos, owner: owner})
	}
	owned := make([]bool, len(jobs))
	for j, jk := range keys {
		jobStart[j] = len(plan)
		add(manifest.GraphPath(jobs[j].arch, jobs[j].channel), jk.channel, j, -1)
		dir := path.Join("graph", jobs[j].arch, jobs[j].channel)
		for p, v := range jk.versions {
			add(path.Join(dir, views.FileName(v)), jk.keys[p], j, p)
		}
		for k := jobStart[j]; k < len(plan); k++ {
			owned[j] = owned[j] || plan[k].owner == k
		}
	}
	keys = nil
	jobStart[len(jobs)] = len(plan)

	info := make([]manifest.File, len(plan))
	renderers := make([]*views.Renderer, workers)
	for w := range renderers {
		renderers[w] = views.NewRenderer(b.Graph)
	}
	err = parallel(ctx, workers, len(jobs), func(w, j int) error {
		if !owned[j] {
			return nil
		}
		r, l := renderers[w], views.NewLayout(ix.View(jobs[j].channel, jobs[j].arch))
		var buf []byte
		for k := jobStart[j]; k < jobStart[j+1]; k++ {
			f := plan[k]
			if f.owner != k {
				continue
			}
			if f.pos < 0 {
				buf = r.Channel(l.View)
			} else {
				buf = r.Version(buf[:0], l, f.pos)
			}
			info[k] = manifest.File{SHA256: manifest.SHA256(buf), Size: int64(len(buf))}
			if err := st.Put(ctx, f.name, buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = parallel(ctx, workers, len(jobs), func(_, j int) error {
		for k := jobStart[j]; k < jobStart[j+1]; k++ {
			if f := plan[k]; f.owner != k {
				if err := links.Link(ctx, plan[f.owner].name, f.name); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	for k, f := range plan {
		fi := info[f.owner]
		m.Files[f.name] = fi
		m.Counts.Bytes += fi.Size
		if f.owner == k {
			m.Counts.DistinctFiles++
			m.Counts.DistinctBytes += fi.Size
		}
	}
	for _, g := range m.Graphs {
		m.Counts.VersionGraphs += len(g.Versions)
	}
	m.Counts.Graphs = len(m.Graphs)
	m.Counts.Files = len(m.Files) + 1 // index.json itself
	return served, nil
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

// parallel runs fn for i in [0, n) on a bounded pool; worker is the
// pool slot, for per-worker state. The first error cancels the rest.
func parallel(ctx context.Context, workers, n int, fn func(worker, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(w, i); err != nil {
					once.Do(func() { firstErr = err })
					cancel()
				}
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}
