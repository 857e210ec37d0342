package generator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
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
)

// RenderOptions select and place the output.
type RenderOptions struct {
	// Channels limits the channels rendered (nil: all).
	Channels *regexp.Regexp
	// Arches limits the architectures rendered (nil: all found).
	Arches      []string
	Store       writer.Store
	GeneratedAt time.Time
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
	m := &manifest.Manifest{
		Format:      manifest.Format,
		Generator:   "upgraph",
		GeneratedAt: opts.GeneratedAt.UTC().Format(time.RFC3339),
		Inputs: manifest.Inputs{
			GraphData: manifest.GraphDataInput{Version: b.GraphData.SchemaVersion.String(), Digest: b.GraphData.Digest},
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
	if err := renderAll(ctx, b, channels, arches, staging, m, opts.Workers); err != nil {
		_ = staging.Abort()
		return nil, err
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
	return m, nil
}

func selectOutputs(b *Built, opts RenderOptions, log *slog.Logger) (channels, arches []string) {
	for _, c := range b.GraphData.ChannelNames() {
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

// renderAll renders jobs on a bounded pool. Each worker has its own
// Renderer so node encodings are reused without locking.
func renderAll(ctx context.Context, b *Built, channels, arches []string, st writer.Staging, m *manifest.Manifest, workers int) error {
	if workers <= 0 {
		workers = 2 * runtime.GOMAXPROCS(0)
	}
	ix := policy.NewIndex(b.Graph)
	jobs := make(chan job)
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	put := func(name string, data []byte) error {
		sum := sha256.Sum256(data)
		if err := st.Put(ctx, name, data); err != nil {
			return err
		}
		mu.Lock()
		m.Files[name] = manifest.File{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
		m.Counts.Bytes += int64(len(data))
		mu.Unlock()
		return nil
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := views.NewRenderer(b.Graph)
			for j := range jobs {
				entry, err := renderJob(ix, r, j, put)
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				m.Graphs = append(m.Graphs, entry)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, c := range channels {
		for _, a := range arches {
			select {
			case jobs <- job{c, a}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	slices.SortFunc(m.Graphs, func(x, y manifest.Graph) int {
		if x.Channel != y.Channel {
			return cmpString(x.Channel, y.Channel)
		}
		return cmpString(x.Arch, y.Arch)
	})
	m.Counts.Graphs = len(m.Graphs)
	for _, g := range m.Graphs {
		m.Counts.VersionGraphs += len(g.Versions)
	}
	m.Counts.Files = len(m.Files) + 1 // index.json itself
	return nil
}

func renderJob(ix *policy.Index, r *views.Renderer, j job, put func(string, []byte) error) (manifest.Graph, error) {
	v := ix.View(j.channel, j.arch)
	entry := manifest.Graph{
		Channel: j.channel, Arch: j.arch, Path: manifest.GraphPath(j.arch, j.channel),
		Nodes: len(v.Nodes), Edges: len(v.Edges), ConditionalEdges: len(v.ConditionalPairs),
		Versions: v.Versions,
	}
	seen := make(map[string]int, len(v.Versions))
	for p, s := range v.Versions {
		if q, dup := seen[s]; dup {
			g := ix.Graph()
			return entry, fmt.Errorf("channel %s, arch %s: releases %s and %s are both served as version %s",
				j.channel, j.arch, g.Node(v.Nodes[q]).Version, g.Node(v.Nodes[p]).Version, s)
		}
		seen[s] = p
	}
	if err := put(entry.Path, r.Channel(v)); err != nil {
		return entry, err
	}
	dir := path.Join("graph", j.arch, j.channel)
	err := r.Versions(v, func(pv views.Version) error {
		return put(path.Join(dir, views.FileName(pv.Version)), pv.Body)
	})
	return entry, err
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
