package generator_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	upgraph "github.com/upgraph/upgraph"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// edits is the state of the inputs a sequence of random edits changes:
// release metadata documents, graph-data channels and blocked edges
// (with and without risks), and one operator catalog's bundles.
type edits struct {
	rnd      *rand.Rand
	releases map[string]release // by "<version>+<arch>"
	channels map[string][]string
	blocked  map[string]string // blocked-edges file name → YAML
	bundles  []int             // the catalog's bundle versions, ascending
	fixed    fstest.MapFS      // graph-data files no edit touches
	next     int               // the next new patch version
	log      []string
}

type release struct {
	version, arch, payload, url string
	previous                    []string
}

func newEdits(t *testing.T, seed uint64) *edits {
	e := &edits{
		rnd: rand.New(rand.NewPCG(seed, 27)), releases: map[string]release{}, channels: map[string][]string{},
		blocked: map[string]string{}, fixed: fstest.MapFS{}, next: 3, bundles: []int{1, 2, 3},
	}
	// The demo's releases and graph-data to start from.
	for _, arch := range []string{"amd64", "arm64"} {
		for _, minor := range []int{15, 16} {
			for patch := range 3 {
				e.addRelease(fmt.Sprintf("4.%d.%d", minor, patch), arch)
			}
		}
	}
	gd := upgraph.DemoGraphData()
	for _, name := range []string{"version", "raw/metadata.json", "blocked-edges/4.16.1.yaml", "blocked-edges/4.16.2-ExampleEtcdRisk.yaml"} {
		data, err := fs.ReadFile(gd, name)
		if err != nil {
			t.Fatal(err)
		}
		if base, ok := strings.CutPrefix(name, "blocked-edges/"); ok {
			e.blocked[base] = string(data)
		} else {
			e.fixed[name] = &fstest.MapFile{Data: data}
		}
	}
	for _, ch := range []string{"candidate", "fast", "stable"} {
		for _, minor := range []int{15, 16} {
			name := fmt.Sprintf("%s-4.%d", ch, minor)
			for _, r := range e.releases {
				if r.arch == "amd64" && (strings.HasPrefix(r.version, "4.15.") || minor == 16) {
					e.channels[name] = append(e.channels[name], r.version)
				}
			}
		}
	}
	return e
}

// addRelease adds the release version for arch, updating from some of
// the releases before it.
func (e *edits) addRelease(version, arch string) {
	r := release{version: version, arch: arch, payload: fmt.Sprintf("quay.io/r@sha256:%064x", e.rnd.Uint64()),
		url: fmt.Sprintf("https://example.com/errata/%04d", e.rnd.IntN(10000))}
	for _, o := range slices.Sorted(maps.Keys(e.releases)) {
		if p := e.releases[o]; p.arch == arch && versionLess(p.version, version) && e.rnd.IntN(3) > 0 {
			r.previous = append(r.previous, p.version)
		}
	}
	e.releases[version+"+"+arch] = r
}

func versionLess(a, b string) bool {
	var am, ap, bm, bp int
	fmt.Sscanf(a, "4.%d.%d", &am, &ap)
	fmt.Sscanf(b, "4.%d.%d", &bm, &bp)
	return am < bm || am == bm && ap < bp
}

func (e *edits) versions() []string {
	var vs []string
	for _, r := range e.releases {
		if !slices.Contains(vs, r.version) {
			vs = append(vs, r.version)
		}
	}
	slices.SortFunc(vs, func(a, b string) int {
		if versionLess(a, b) {
			return -1
		}
		if versionLess(b, a) {
			return 1
		}
		return 0
	})
	return vs
}

var riskMessage = regexp.MustCompile(`message: risk [0-9]{4}`)

func (e *edits) pick(list []string) string { return list[e.rnd.IntN(len(list))] }

// edit applies one random edit and logs it.
func (e *edits) edit() {
	vs := e.versions()
	switch k := e.rnd.IntN(12); k {
	case 0, 1: // a new release, in some channels
		v := fmt.Sprintf("4.%d.%d", 15+e.rnd.IntN(2), e.next)
		e.next++
		arches := []string{"amd64", "arm64"}[:1+e.rnd.IntN(2)]
		for _, a := range arches {
			e.addRelease(v, a)
		}
		for _, ch := range slices.Sorted(maps.Keys(e.channels)) {
			if e.rnd.IntN(2) == 0 {
				e.channels[ch] = append(e.channels[ch], v)
			}
		}
		e.log = append(e.log, "release "+v+" added")
	case 2: // a release removed
		keys := slices.Sorted(maps.Keys(e.releases))
		if len(keys) > 4 {
			k := e.pick(keys)
			delete(e.releases, k)
			e.log = append(e.log, "release "+k+" removed")
		}
	case 3, 10: // a release's metadata changed (the same size)
		k := e.pick(slices.Sorted(maps.Keys(e.releases)))
		r := e.releases[k]
		r.url = fmt.Sprintf("https://example.com/errata/%04d", e.rnd.IntN(10000))
		e.releases[k] = r
		e.log = append(e.log, "release "+k+" metadata")
	case 4, 5: // a blocked edge, or a risk
		to, from := e.pick(vs), e.pick(vs)
		name := fmt.Sprintf("%s-%d.yaml", to, e.rnd.IntN(100))
		doc := fmt.Sprintf("to: %s\nfrom: %s[+].*\n", to, regexp.QuoteMeta(from))
		if k == 5 {
			doc += fmt.Sprintf("url: https://issues.example.com/%d\nname: Risk%d\nmessage: risk %04d\nmatchingRules:\n- type: Always\n",
				e.rnd.IntN(100), e.rnd.IntN(5), e.rnd.IntN(10000))
		}
		e.blocked[name] = doc
		e.log = append(e.log, "blocked "+name)
	case 11: // a risk's message changed (the same size)
		for _, name := range slices.Sorted(maps.Keys(e.blocked)) {
			if riskMessage.MatchString(e.blocked[name]) {
				e.blocked[name] = riskMessage.ReplaceAllString(e.blocked[name], fmt.Sprintf("message: risk %04d", e.rnd.IntN(10000)))
				e.log = append(e.log, "risk message "+name)
				break
			}
		}
	case 6: // a blocked edge or risk removed
		if len(e.blocked) > 1 { // graph-data needs its blocked-edges directory
			name := e.pick(slices.Sorted(maps.Keys(e.blocked)))
			delete(e.blocked, name)
			e.log = append(e.log, "unblocked "+name)
		}
	case 7: // a release added to or removed from a channel
		ch := e.pick(slices.Sorted(maps.Keys(e.channels)))
		v := e.pick(vs)
		if i := slices.Index(e.channels[ch], v); i >= 0 {
			e.channels[ch] = slices.Delete(e.channels[ch], i, i+1)
			e.log = append(e.log, ch+" -"+v)
		} else {
			e.channels[ch] = append(e.channels[ch], v)
			e.log = append(e.log, ch+" +"+v)
		}
	case 8: // a channel added or removed
		name := fmt.Sprintf("eus-4.%d", 15+e.rnd.IntN(2))
		if _, ok := e.channels[name]; ok {
			delete(e.channels, name)
			e.log = append(e.log, "channel "+name+" removed")
		} else {
			e.channels[name] = slices.Clone(vs[:1+e.rnd.IntN(len(vs))])
			e.log = append(e.log, "channel "+name+" added")
		}
	case 9: // a catalog bundle added or removed
		if len(e.bundles) > 1 && e.rnd.IntN(2) == 0 {
			i := e.rnd.IntN(len(e.bundles))
			e.log = append(e.log, fmt.Sprintf("bundle p.v%d removed", e.bundles[i]))
			e.bundles = slices.Delete(e.bundles, i, i+1)
		} else {
			v := e.bundles[len(e.bundles)-1] + 1
			e.bundles = append(e.bundles, v)
			e.log = append(e.log, fmt.Sprintf("bundle p.v%d added", v))
		}
	}
}

// inputs encodes the state as a release source, graph-data and an FBC
// file.
func (e *edits) inputs() (fstest.MapFS, fstest.MapFS, string) {
	rel := fstest.MapFS{}
	for k, r := range e.releases {
		var prev []string
		for _, p := range r.previous {
			prev = append(prev, `"`+p+`"`)
		}
		rel[k+".json"] = &fstest.MapFile{Data: fmt.Appendf(nil,
			`{"kind":"cincinnati-metadata-v0","version":%q,"previous":[%s],"metadata":{"url":%q},"payload":%q,"arch":%q}`,
			r.version, strings.Join(prev, ","), r.url, r.payload, r.arch)}
	}
	gd := maps.Clone(e.fixed)
	for name, vs := range e.channels {
		doc := "name: " + name + "\nversions:\n"
		for _, v := range vs {
			doc += "- " + v + "\n"
		}
		gd["channels/"+name+".yaml"] = &fstest.MapFile{Data: []byte(doc)}
	}
	for name, doc := range e.blocked {
		gd["blocked-edges/"+name] = &fstest.MapFile{Data: []byte(doc)}
	}
	fbc := `{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n"
	var entries []string
	for i, v := range e.bundles {
		entry := fmt.Sprintf(`{"name":"p.v%d"`, v)
		if i > 0 {
			entry += fmt.Sprintf(`,"replaces":"p.v%d"`, e.bundles[i-1])
		}
		entries = append(entries, entry+"}")
	}
	fbc += `{"schema":"olm.channel","package":"p","name":"stable","entries":[` + strings.Join(entries, ",") + "]}\n"
	for _, v := range e.bundles {
		fbc += fmt.Sprintf(`{"schema":"olm.bundle","package":"p","name":"p.v%d","image":"example.com/p:v%d","properties":[{"type":"olm.package","value":{"packageName":"p","version":"%d.0.0"}}]}`+"\n", v, v, v)
	}
	return rel, gd, fbc
}

// TestIncrementalMatchesFull applies random sequences of edits to
// releases, graph-data and a catalog, regenerating one tree
// incrementally after each, and checks that it is byte for byte (every
// file, index.json included) the tree a full run into a new directory
// makes of the same inputs; with and without gzip copies. Over all
// sequences, graphs must have been both taken over and rendered.
func TestIncrementalMatchesFull(t *testing.T) {
	sequences, steps := 24, 10
	if testing.Short() {
		sequences = 6
	}
	var total generator.Stats
	refused := 0
	for seq := range sequences {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			e := newEdits(t, uint64(seq))
			base := fastTempDir(t)
			src := filepath.Join(base, "catalog")
			if err := os.Mkdir(src, 0o755); err != nil {
				t.Fatal(err)
			}
			inc := filepath.Join(base, "inc")
			precompressed := seq%2 == 0
			var lastFull map[string][]byte
			for step := range steps {
				// Now and then no edit at all: everything is taken over.
				for range e.rnd.IntN(3) {
					e.edit()
				}
				rel, gd, fbc := e.inputs()
				if err := os.WriteFile(filepath.Join(src, "catalog.json"), []byte(fbc), 0o644); err != nil {
					t.Fatal(err)
				}
				render := func(store writer.Store, full bool, stats *generator.Stats) error {
					// Begun while the graph is built, as generate does; a
					// refused build aborts it (the spare kept).
					started := generator.Start(t.Context(), store, generator.StartOptions{Full: full, Precompress: precompressed})
					defer started.Abort()
					b, err := generator.Build(t.Context(), &gensource.MetadataDir{Dir: "rel", FS: rel}, gd,
						generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
					if err != nil {
						return err
					}
					_, err = generator.Render(t.Context(), b, generator.RenderOptions{
						Started: started, GeneratedAt: time.Unix(int64(step), 0),
						Precompress: precompressed, Full: full, Stats: stats,
						Catalogs: []*catviews.Catalog{viewstest.Load(t, "c", "dir:"+src, false)},
					})
					return err
				}
				var stats generator.Stats
				var ok bool
				lastFull, ok = checkStep(t, base, inc, step, e.log, render, &stats, lastFull, sameInputsSameFiles)
				if !ok {
					refused++
					continue
				}
				total.GraphsTaken += stats.GraphsTaken
				total.GraphsRendered += stats.GraphsRendered
				total.FilesTaken += stats.FilesTaken
				total.FilesRendered += stats.FilesRendered
				total.FilesLinked += stats.FilesLinked
			}
		})
	}
	t.Logf("over all steps: %+v, %d refused", total, refused)
	if refused > sequences*steps/10 {
		t.Errorf("%d of %d generations refused: the edits make broken inputs", refused, sequences*steps)
	}
	if total.GraphsTaken == 0 || total.GraphsRendered == 0 || total.FilesTaken == 0 {
		t.Errorf("the edits did not exercise both paths: %+v", total)
	}
}

// checkStep regenerates inc incrementally with render, makes a full run
// of the same inputs into a new directory (not flushed: it is compared,
// not served) and compares the two byte for byte; both must refuse or
// both succeed (ok false: both refused). With the previous step's full
// tree, same checks the digest alone, without the size check that backs
// it up when taking files over: two full runs' graphs or packages of the
// same inputs digest have the same files. It returns this step's full
// tree for the next step.
func checkStep(t *testing.T, base, inc string, step int, log []string,
	render func(writer.Store, bool, *generator.Stats) error, stats *generator.Stats,
	lastFull map[string][]byte, same func(*testing.T, map[string][]byte, map[string][]byte) string,
) (map[string][]byte, bool) {
	t.Helper()
	incErr := render(writer.DirStore{Dir: inc}, false, stats)
	full := filepath.Join(base, fmt.Sprintf("full-%d", step))
	defer os.RemoveAll(full)
	fullErr := render(writer.ScratchStore{Dir: full}, true, nil)
	if (incErr == nil) != (fullErr == nil) {
		t.Fatalf("step %d (%s): incremental %v, full %v", step, strings.Join(log, "; "), incErr, fullErr)
	}
	if incErr != nil {
		t.Logf("step %d: both refused: %v", step, incErr)
		return lastFull, false
	}
	fullFiles := readTree(t, full)
	if d := diffTrees(readTree(t, inc), fullFiles); d != "" {
		t.Fatalf("step %d, after %s: the incremental tree differs from a full run's:\n%s", step, strings.Join(log, "; "), d)
	}
	// Name for name, directories too: what the spare (the staging tree
	// the run started from) held and the generation did not is gone.
	if got, want := readDirs(t, inc), readDirs(t, full); !slices.Equal(got, want) {
		t.Fatalf("step %d, after %s: the incremental tree's directories differ from a full run's:\n%v\nwant\n%v", step, strings.Join(log, "; "), got, want)
	}
	if lastFull != nil {
		// A generation was replaced: it is kept as the next run's spare,
		// so the following steps are made over it.
		if st, err := os.Lstat(writer.SpareName(inc)); err != nil || !st.IsDir() {
			t.Fatalf("step %d: no spare beside the output after a swap: %v", step, err)
		}
		if d := same(t, lastFull, fullFiles); d != "" {
			t.Fatalf("step %d, after %s: %s", step, strings.Join(log, "; "), d)
		}
	}
	return fullFiles, true
}

// readDirs lists the directories below dir, sorted.
func readDirs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameInputsSameFiles checks that every graph of two trees with the same
// inputs digest has the same files (channel graph, per-version graphs,
// gzip copies) in both.
func sameInputsSameFiles(t *testing.T, a, b map[string][]byte) string {
	t.Helper()
	ma, err := manifest.Parse(a[manifest.FileName])
	if err != nil {
		t.Fatal(err)
	}
	mb, err := manifest.Parse(b[manifest.FileName])
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]string{}
	for _, g := range ma.Graphs {
		inputs[g.Path] = g.Inputs
	}
	for _, g := range mb.Graphs {
		if g.Inputs == "" || inputs[g.Path] != g.Inputs {
			continue
		}
		dir := strings.TrimSuffix(g.Path, ".json") + "/"
		for name, data := range b {
			if name == g.Path || name == g.Path+".gz" || strings.HasPrefix(name, dir) {
				if !bytes.Equal(a[name], data) {
					return fmt.Sprintf("%s: the same inputs (%s) in both trees, and %s differs", g.Path, g.Inputs, name)
				}
			}
		}
	}
	return ""
}

// fastTempDir is a temporary directory on tmpfs when there is one: each
// generation flushes its file system (syncfs), which on a busy disk costs
// more than the rest of these small generations.
func fastTempDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "upgraph-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// diffTrees describes how two trees' files differ, "" when they do not.
func diffTrees(got, want map[string][]byte) string {
	var d []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[name]
		switch {
		case !ok:
			d = append(d, "missing "+name)
		case !bytes.Equal(g, want[name]):
			d = append(d, fmt.Sprintf("%s differs:\n%s\nwant\n%s", name, clipBytes(g), clipBytes(want[name])))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			d = append(d, "extra "+name)
		}
	}
	return strings.Join(d, "\n")
}

func clipBytes(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "…"
	}
	return string(b)
}

// renderedDemoDigest is the digest of the demo tree's graph files (names
// and bytes) as rendered under the current renderFormat.
const renderedDemoDigest = "4996e563d6e1d7b43cb26e59129c7e30a954f16a83fd8275e9267f8d86265cbd"

// TestRenderFormatPinned guards incremental generation against a change
// of rendering that keeps renderFormat: files rendered before it would be
// taken over as if current. When the demo's graph files change, change
// renderFormat in incremental.go as well as the digest here.
func TestRenderFormatPinned(t *testing.T) {
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(t.Context(), demoBuilt(t), generator.RenderOptions{
		Store: writer.ScratchStore{Dir: out}, GeneratedAt: time.Unix(0, 0), NoViewer: true,
	}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	h := sha256.New()
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.HasPrefix(name, "graph/") {
			fmt.Fprintf(h, "%s %d\n", name, len(files[name]))
			h.Write(files[name])
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != renderedDemoDigest {
		t.Errorf("the demo's graph files changed (digest %s, want %s): if the same views now render to other bytes, change renderFormat (generator/incremental.go) and set renderedDemoDigest to the new digest", got, renderedDemoDigest)
	}
}

// TestIncrementalRemakesCopy: a graph taken over whose gzip copy is
// missing from the previous tree, or changed in place, gets its copy
// made again; the tree is a full run's.
func TestIncrementalRemakesCopy(t *testing.T) {
	base := fastTempDir(t)
	out, full := filepath.Join(base, "out"), filepath.Join(base, "full")
	render := func(store writer.Store, fullRun bool) generator.Stats {
		var stats generator.Stats
		if _, err := generator.Render(t.Context(), demoBuilt(t), generator.RenderOptions{
			Store: store, GeneratedAt: time.Unix(0, 0), Precompress: true, Full: fullRun, Stats: &stats,
		}); err != nil {
			t.Fatal(err)
		}
		return stats
	}
	render(writer.DirStore{Dir: out}, true)
	const missing, damaged = "graph/arm64/stable-4.16/4.16.1.json.gz", "graph/amd64/fast-4.15.json.gz"
	if err := os.Remove(filepath.Join(out, missing)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, damaged))
	if err != nil {
		t.Fatal(err)
	}
	// Another inode, so the other names of the copy keep theirs.
	if err := os.Remove(filepath.Join(out, damaged)); err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(filepath.Join(out, damaged), data, 0o644); err != nil {
		t.Fatal(err)
	}
	stats := render(writer.DirStore{Dir: out}, false)
	if stats.GraphsRendered != 0 || stats.FilesRendered != 0 {
		t.Errorf("stats %+v: rendered graphs whose inputs did not change", stats)
	}
	render(writer.ScratchStore{Dir: full}, true)
	if d := diffTrees(readTree(t, out), readTree(t, full)); d != "" {
		t.Errorf("the incremental tree differs from a full run's:\n%s", d)
	}
}
