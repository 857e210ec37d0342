package generator

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// renderFormat names how graph files are rendered from a view
// (release/views, graph.AppendNode, graph.AppendRisks). It is part of
// every graph's input digest, so a generation never takes over files a
// different rendering wrote: change it whenever the same view would be
// rendered to other bytes (TestRenderFormatPinned fails then).
const renderFormat = "upgraph graph rendering 1"

// Incremental generation (docs/incremental.md). Each channel × arch graph
// of index.json records the digest of what it and its per-version graphs
// are rendered from: its view of the final graph (releases as served with
// their payload and metadata, edges, conditional edges with their risks,
// by position), the rendering format and, with gzip copies, the
// compressor. Everything global (graph-data, other channels, edges
// computed across channels) reaches a graph only through its view, so a
// graph whose digest the previous generation lists unchanged has the
// files the previous generation holds for it, byte for byte: they are
// linked from there, on the word of the previous index.json, instead of
// rendered, hashed and compared. The rest of the generation (signatures,
// the viewer, schemas, catalogs, rollouts and index.json itself) is made
// as in a full run.

// inputDigests computes the input digest of each view of one graph.
type inputDigests struct {
	prefix []byte
	// nodes[i] digests node i's payload and metadata but its
	// architecture, which is what a view serves of it besides its
	// served version.
	nodes [][sha256.Size]byte
}

func newInputDigests(g *graph.Graph, precompressed bool) *inputDigests {
	d := &inputDigests{nodes: make([][sha256.Size]byte, g.Len())}
	d.prefix = appendString(nil, renderFormat)
	if precompressed {
		d.prefix = appendString(d.prefix, precompress.Identity)
	} else {
		d.prefix = appendString(d.prefix, "")
	}
	var b []byte
	for i := range d.nodes {
		n := g.Node(i)
		b = appendString(b[:0], n.Payload)
		for _, k := range slices.Sorted(maps.Keys(n.Metadata)) {
			if k != graph.KeyArch {
				b = appendString(appendString(b, k), n.Metadata[k])
			}
		}
		d.nodes[i] = sha256.Sum256(b)
	}
	return d
}

// appendString appends s, length first, so that no two sequences of
// strings share an encoding.
func appendString(b []byte, s string) []byte {
	return append(binary.LittleEndian.AppendUint64(b, uint64(len(s))), s...)
}

// inputScratch is one worker's buffer and risk digests.
type inputScratch struct {
	buf   []byte
	risks map[risksID][sha256.Size]byte
}

// risksID identifies a risk list of the graph: views share its slices.
type risksID struct {
	first *graph.Risk
	n     int
}

// view returns the input digest of v ("sha256:<hex>").
func (d *inputDigests) view(s *inputScratch, v *policy.ChannelView) string {
	b := append(s.buf[:0], d.prefix...)
	b = appendString(appendString(b, v.Channel), v.Arch)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v.Nodes)))
	for p, i := range v.Nodes {
		b = append(b, d.nodes[i][:]...)
		b = appendString(b, v.Versions[p])
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v.Edges)))
	for _, e := range v.Edges {
		b = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, uint32(e[0])), uint32(e[1]))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v.Conditional)))
	for _, cg := range v.Conditional {
		b = binary.LittleEndian.AppendUint64(b, uint64(cg.Edges))
		rd := s.risksDigest(cg.Risks)
		b = append(b, rd[:]...)
	}
	for _, pairs := range [][]policy.ConditionalPair{v.ConditionalPairs, v.ConditionalBySource} {
		b = binary.LittleEndian.AppendUint64(b, uint64(len(pairs)))
		for _, cp := range pairs {
			b = binary.LittleEndian.AppendUint32(b, uint32(cp.From))
			b = binary.LittleEndian.AppendUint32(b, uint32(cp.To))
			b = binary.LittleEndian.AppendUint32(b, uint32(cp.Group))
		}
	}
	s.buf = b
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// risksDigest digests a risk list as it is served.
func (s *inputScratch) risksDigest(risks []graph.Risk) [sha256.Size]byte {
	if len(risks) == 0 {
		return sha256.Sum256(graph.AppendRisks(nil, risks))
	}
	id := risksID{&risks[0], len(risks)}
	if sum, ok := s.risks[id]; ok {
		return sum
	}
	if s.risks == nil {
		s.risks = map[risksID][sha256.Size]byte{}
	}
	sum := sha256.Sum256(graph.AppendRisks(nil, risks))
	s.risks[id] = sum
	return sum
}

// previousGeneration is what an incremental generation takes over from
// the one it replaces.
type previousGeneration struct {
	linker writer.PreviousLinker
	// inputs are its graphs' input digests, by graph path.
	inputs map[string]string
	// packageInputs are its catalogs' packages' input digests, by
	// catalog and package.
	packageInputs map[string]map[string]string
	files         map[string]manifest.File
	// indexTime is the modification time of its index.json: a file
	// modified after it was changed in place, and is not taken over.
	indexTime time.Time
}

// readPrevious reads the index.json of the generation st replaces,
// through st (the tree it links from, not the path, which another
// program could have swapped meanwhile). It returns nil when there is no
// previous generation or it cannot be read, with the reason logged.
func readPrevious(ctx context.Context, st writer.Staging, log *slog.Logger) *manifest.Manifest {
	carrier, ok := st.(writer.Carrier)
	if !ok || carrier.PreviousDir() == "" {
		return nil
	}
	f, ok, err := carrier.OpenPrevious(ctx, manifest.FileName, nil)
	if err != nil || !ok {
		log.Debug("no previous generation to reuse", "dir", carrier.PreviousDir(), "error", err)
		return nil
	}
	defer f.Close()
	m, err := manifest.Parse(f.Data)
	if err != nil {
		log.Debug("previous generation's index.json unreadable: every graph is rendered", "dir", carrier.PreviousDir(), "error", err)
		return nil
	}
	return m
}

// newPreviousGeneration returns what st can take over from prev, nil when
// nothing: no previous generation, or a store that cannot link from it.
func newPreviousGeneration(ctx context.Context, st writer.Staging, prev *manifest.Manifest) (*previousGeneration, error) {
	linker, ok := st.(writer.PreviousLinker)
	if prev == nil || !ok {
		return nil, nil
	}
	indexTime, ok, err := linker.PreviousModTime(ctx, manifest.FileName)
	if err != nil || !ok {
		return nil, err
	}
	p := &previousGeneration{linker: linker, inputs: map[string]string{}, packageInputs: map[string]map[string]string{},
		files: prev.Files, indexTime: indexTime}
	for _, g := range prev.Graphs {
		if g.Inputs != "" {
			p.inputs[g.Path] = g.Inputs
		}
	}
	for _, c := range prev.Catalogs {
		if len(c.PackageInputs) > 0 {
			p.packageInputs[c.Name] = c.PackageInputs
		}
	}
	if len(p.inputs) == 0 && len(p.packageInputs) == 0 {
		return nil, nil
	}
	return p, nil
}

// unchanged reports whether the previous generation has the graph at
// path rendered from the same inputs.
func (p *previousGeneration) unchanged(path, inputs string) bool {
	return p != nil && p.inputs[path] == inputs
}

// packageUnchanged reports whether the previous generation has package
// pkg of catalog cat rendered from the same inputs.
func (p *previousGeneration) packageUnchanged(cat, pkg, inputs string) bool {
	return p != nil && p.packageInputs[cat][pkg] == inputs
}

// take links f, and its gzip copy when the generation makes copies, from
// the previous generation, recording them as its index.json lists them.
// It reports whether f was linked (false: nothing was) and, if so,
// whether its copy still has to be made (the previous one missing or
// not of the size listed).
func (p *previousGeneration) take(ctx context.Context, f *treeFile, copies bool) (linked, needCopy bool, err error) {
	info, ok := p.files[f.name]
	if !ok {
		return false, false, nil
	}
	copies = copies && precompress.Wanted(f.name, int(info.Size))
	gzName := precompress.Name(f.name)
	gzInfo, hasCopy := p.files[gzName]
	if copies && !hasCopy {
		return false, false, nil
	}
	if linked, err = p.linker.LinkPrevious(ctx, f.name, info.Size, p.indexTime); err != nil || !linked {
		return false, false, err
	}
	f.info, f.gz = info, nil
	if !copies {
		return true, false, nil
	}
	gzLinked, err := p.linker.LinkPrevious(ctx, gzName, gzInfo.Size, p.indexTime)
	if err != nil {
		return true, false, err
	}
	if !gzLinked {
		return true, true, nil
	}
	f.gz = &treeFile{name: gzName, info: gzInfo}
	return true, false, nil
}
