package mirror

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"slices"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/manifest"
)

// TreeOptions select what FromTree reads.
type TreeOptions struct {
	// Channels selects channels by name (nil: all of the tree's).
	Channels *regexp.Regexp
	// Arches selects architectures (nil: all of the tree's). Naming one
	// the tree does not have is an error rather than an empty graph.
	Arches []string
	// Workers bounds concurrent reads (default 4): an fs.FS over HTTP
	// pays a round trip per file.
	Workers int
	Logger  *slog.Logger
}

// Tree is a generated tree read back as the graph it serves, restricted
// to a selection of its channels and arches: what it takes to render
// that part of the tree again.
type Tree struct {
	// Manifest is the tree's index.json, unfiltered.
	Manifest *manifest.Manifest
	// Graph is the union of the selected channel graphs (see Merge).
	Graph *graph.Graph
	// Channels and Arches are those selected, in the tree's order.
	Channels, Arches []string
}

// FromTree reads a tree's index.json and the selected channel graphs,
// each checked against its size and digest there, and merges them. Only
// channel graphs are read: every per-version graph follows from its
// channel graph, so rendering the union gives them back.
func FromTree(ctx context.Context, fsys fs.FS, opts TreeOptions) (*Tree, error) {
	index, err := fs.ReadFile(fsys, manifest.FileName)
	if err != nil {
		return nil, err
	}
	m, err := manifest.Parse(index)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifest.FileName, err)
	}
	t := &Tree{Manifest: m}
	for _, c := range m.Channels {
		if opts.Channels == nil || opts.Channels.MatchString(c) {
			t.Channels = append(t.Channels, c)
		}
	}
	if len(t.Channels) == 0 {
		return nil, fmt.Errorf("%s: no channel matches %s (the tree has %v)", manifest.FileName, opts.Channels, m.Channels)
	}
	t.Arches = m.Arches
	if opts.Arches != nil {
		t.Arches = nil
		for _, a := range opts.Arches {
			if !slices.Contains(m.Arches, a) {
				return nil, fmt.Errorf("%s: the tree has no arch %q (it has %v)", manifest.FileName, a, m.Arches)
			}
			if !slices.Contains(t.Arches, a) {
				t.Arches = append(t.Arches, a)
			}
		}
	}
	var picked []manifest.Graph
	for _, g := range m.Graphs {
		if slices.Contains(t.Channels, g.Channel) && slices.Contains(t.Arches, g.Arch) {
			picked = append(picked, g)
		}
	}
	if want := len(t.Channels) * len(t.Arches); len(picked) != want {
		return nil, fmt.Errorf("%s lists %d of the %d selected channel × arch graphs", manifest.FileName, len(picked), want)
	}
	merger := NewMerger(opts.Logger)
	err = mergeInOrder(ctx, len(picked), opts.Workers, func(i int) (Answer, error) {
		g := picked[i]
		body, err := ReadChecked(fsys, m, g.Path)
		return Answer{Channel: g.Channel, Arch: g.Arch, Source: g.Path, Body: body}, err
	}, merger.Add)
	if err != nil {
		return nil, err
	}
	if t.Graph, err = merger.Finish(); err != nil {
		return nil, err
	}
	return t, nil
}

// mergeInOrder reads answers on a bounded pool and adds them in order.
// A slot is freed only once its answer is added, so at most workers
// bodies are held at a time, however slow one read is: a real-scale
// tree's channel graphs are gigabytes together.
func mergeInOrder(ctx context.Context, n, workers int, read func(int) (Answer, error), add func(Answer) error) error {
	if workers <= 0 {
		workers = 4
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		a   Answer
		err error
	}
	results := make([]chan result, n)
	for i := range results {
		results[i] = make(chan result, 1) // a read never blocks on an abandoned merge
	}
	slots := make(chan struct{}, workers)
	go func() {
		for i := range n {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				a, err := read(i)
				results[i] <- result{a, err}
			}()
		}
	}()
	for i := range n {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-slots
		if r.err != nil {
			return r.err
		}
		if err := add(r.a); err != nil {
			return err
		}
	}
	return nil
}

// ReadChecked reads a file of a tree and checks it against its size and
// digest in the tree's manifest: a file copied or fetched from elsewhere
// must be the one the manifest describes before anything is built on it.
func ReadChecked(fsys fs.FS, m *manifest.Manifest, name string) ([]byte, error) {
	f, ok := m.Files[name]
	if !ok {
		return nil, fmt.Errorf("%s is not listed in %s", name, manifest.FileName)
	}
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != f.Size {
		return nil, fmt.Errorf("%s has %d bytes, %s says %d", name, len(data), manifest.FileName, f.Size)
	}
	if manifest.SHA256(data) != f.SHA256 {
		return nil, fmt.Errorf("%s does not match its sha256 in %s", name, manifest.FileName)
	}
	return data, nil
}
