package bundle

import (
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
)

var (
	hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// signatureFile is the layout clusters read signature stores in.
	signatureFile = regexp.MustCompile(`^signatures/sha256=[0-9a-f]{64}/signature-[1-9][0-9]*$`)
)

// ManifestProblems finds what makes index.json disagree with itself or
// with the layout a server relies on: files it cannot serve, graphs whose
// files are not listed, listed graph files no graph accounts for, and
// counts that do not add up. Files are checked against it elsewhere
// (Verify, and the readers of trees that live elsewhere).
func ManifestProblems(m *manifest.Manifest) []Problem {
	var ps problems
	bad := func(format string, args ...any) { ps.add(manifest.FileName, format, args...) }
	if _, err := time.Parse(time.RFC3339, m.GeneratedAt); err != nil {
		bad("generatedAt %q is not an RFC 3339 time", m.GeneratedAt)
	}
	var bytes int64
	signatures := 0
	for _, name := range slices.Sorted(maps.Keys(m.Files)) {
		f := m.Files[name]
		bytes += f.Size
		// Other top-level directories (schema/) are checked like any file;
		// graph/ and signatures/ are what servers map requests to.
		switch {
		case !fs.ValidPath(name) || strings.Contains(name, `\`) || name == manifest.FileName:
			bad("lists %q, which cannot be a file of a tree", name)
		case strings.HasPrefix(name, "graph/") && !strings.HasSuffix(name, ".json") &&
			!(m.Precompressed != "" && strings.HasSuffix(name, ".json"+precompress.Suffix)):
			bad("lists %q, which is not a graph file (graph/….json, or its copy graph/….json.gz in a precompressed tree)", name)
		case strings.HasPrefix(name, "signatures/") && !signatureFile.MatchString(name):
			bad("lists %q, which is not a signature file (signatures/sha256=<hex>/signature-<N>)", name)
		}
		if signatureFile.MatchString(name) {
			signatures++
		}
		if !hexSHA256.MatchString(f.SHA256) || f.Size < 0 {
			bad("%s: sha256 %q, size %d: want 64 lower-case hex digits and a size ≥ 0", name, f.SHA256, f.Size)
		}
	}
	if f, ok := m.Files[manifest.EmptyGraphPath]; !ok || f.SHA256 != manifest.SHA256([]byte(manifest.EmptyGraph)) {
		bad("%s is missing or is not the empty graph", manifest.EmptyGraphPath)
	}

	accounted := map[string]bool{manifest.EmptyGraphPath: true}
	seen := map[[2]string]bool{}
	channels, arches := setOf(m.Channels), setOf(m.Arches)
	versionGraphs := 0
	for _, g := range m.Graphs {
		id := g.Channel + "/" + g.Arch
		if seen[[2]string{g.Channel, g.Arch}] {
			bad("graph %s is listed twice", id)
		}
		seen[[2]string{g.Channel, g.Arch}] = true
		if !channels[g.Channel] {
			bad("graph %s: channel %q is not one of the %d channels", id, g.Channel, len(channels))
		}
		if !arches[g.Arch] {
			bad("graph %s: arch %q is not one of the %d arches", id, g.Arch, len(arches))
		}
		if g.Path != manifest.GraphPath(g.Arch, g.Channel) {
			bad("graph %s: path %q, want %q", id, g.Path, manifest.GraphPath(g.Arch, g.Channel))
		}
		if _, ok := m.Files[g.Path]; !ok {
			bad("graph %s: %s is not among the files", id, g.Path)
		}
		accounted[g.Path] = true
		if g.Nodes != len(g.Versions) {
			bad("graph %s: %d nodes but %d versions", id, g.Nodes, len(g.Versions))
		}
		versionGraphs += len(g.Versions)
		dir := path.Join("graph", g.Arch, g.Channel)
		for _, v := range g.Versions {
			if _, err := version.Parse(v); err != nil {
				bad("graph %s: version %q: %v", id, v, err)
				continue
			}
			file := path.Join(dir, manifest.VersionFileName(v))
			if accounted[file] {
				bad("graph %s: version %s is listed twice", id, v)
			}
			accounted[file] = true
			if _, ok := m.Files[file]; !ok {
				bad("graph %s: %s is not among the files", id, file)
			}
		}
	}
	// Every channel × arch has its graph. The pairs are walked only until
	// maxNamed missing ones are found, and the others counted: a tree
	// lists a graph for each pair, so the walk is linear in the graphs
	// listed, while channels × arches of an index.json listing few graphs
	// could be the square of its size.
	if missingGraphs := len(channels)*len(arches) - countIn(seen, channels, arches); missingGraphs > 0 {
		named := 0
		chList, archList := distinct(m.Channels), distinct(m.Arches)
	pairs:
		for _, c := range chList {
			for _, a := range archList {
				if !seen[[2]string{c, a}] {
					if named == maxNamed {
						break pairs
					}
					bad("no graph for channel %s, arch %s", c, a)
					named++
				}
			}
		}
		if missingGraphs > named {
			bad("no graph for %d more channel and arch pairs", missingGraphs-named)
		}
	}
	for name := range m.Files {
		plain, isCopy := strings.CutSuffix(name, precompress.Suffix)
		switch {
		case !strings.HasPrefix(name, "graph/") || accounted[name]:
		case isCopy && m.Precompressed != "" && accounted[plain]:
			// The gzip copy of a graph file (generate's precompression).
		default:
			bad("lists %s, which belongs to no graph", name)
		}
	}

	c := m.Counts
	if c.Graphs != len(m.Graphs) || c.VersionGraphs != versionGraphs || c.Files != len(m.Files)+1 || c.Bytes != bytes {
		bad("counts say %d graphs, %d version graphs, %d files, %d bytes; the lists say %d, %d, %d, %d",
			c.Graphs, c.VersionGraphs, c.Files, c.Bytes, len(m.Graphs), versionGraphs, len(m.Files)+1, bytes)
	}
	if c.Signatures != signatures {
		bad("counts say %d signatures, the files list %d", c.Signatures, signatures)
	}
	if c.DistinctFiles > len(m.Files) || c.DistinctBytes > c.Bytes || (len(m.Files) > 0 && c.DistinctFiles < 1) {
		bad("counts say %d distinct files of %d bytes, out of %d files of %d bytes", c.DistinctFiles, c.DistinctBytes, len(m.Files), c.Bytes)
	}
	return ps
}

// maxNamed bounds the channel and arch pairs without a graph that are
// named one by one; the rest are counted.
const maxNamed = 10

func setOf(names []string) map[string]bool {
	set := make(map[string]bool, len(names))
	for _, n := range names {
		set[n] = true
	}
	return set
}

// distinct is names without repetitions, in order.
func distinct(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// countIn counts the pairs of seen in channels × arches.
func countIn(seen map[[2]string]bool, channels, arches map[string]bool) int {
	n := 0
	for p := range seen {
		if channels[p[0]] && arches[p[1]] {
			n++
		}
	}
	return n
}
