package generator_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// catalogEdits is the state of two catalogs a sequence of random edits
// changes: their packages (bundles, a second channel, skips, an OLM v0
// dependency) and priorities.
type catalogEdits struct {
	rnd      *rand.Rand
	catalogs map[string]map[string]*editPackage // catalog → package → state
	priority map[string]int32
	next     int // the next bundle version
	log      []string
	// related is the number of related images of each bundle: a few
	// hundred make catalogs large enough for segmented gzip copies
	// (catalog/metas Segments).
	related int
}

type editPackage struct {
	bundles []int
	images  map[int]int // bundle → image digest
	fast    bool        // a channel "fast" with the last bundle
	skips   bool        // the head of "stable" skips the first bundle
	needsQ  bool        // the bundles require package q (OLM v0)
}

var editPackageNames = []string{"p", "q", "r"}

func newCatalogEdits(seed uint64) *catalogEdits {
	e := &catalogEdits{rnd: rand.New(rand.NewPCG(seed, 28)), catalogs: map[string]map[string]*editPackage{},
		priority: map[string]int32{"a": 0, "b": 0}, next: 3}
	e.catalogs["a"] = map[string]*editPackage{"p": e.newPackage(), "q": e.newPackage()}
	e.catalogs["b"] = map[string]*editPackage{"q": e.newPackage(), "r": e.newPackage()}
	e.catalogs["a"]["p"].needsQ = true
	return e
}

func (e *catalogEdits) newPackage() *editPackage {
	return &editPackage{bundles: []int{1, 2}, images: map[int]int{1: e.rnd.IntN(1000), 2: e.rnd.IntN(1000)}}
}

// edit applies one random edit and logs it.
func (e *catalogEdits) edit() {
	cat := []string{"a", "b"}[e.rnd.IntN(2)]
	pkgs := e.catalogs[cat]
	names := slices.Sorted(maps.Keys(pkgs))
	if len(names) == 0 {
		name := editPackageNames[e.rnd.IntN(len(editPackageNames))]
		pkgs[name] = e.newPackage()
		e.log = append(e.log, cat+": package "+name+" added")
		return
	}
	name := names[e.rnd.IntN(len(names))]
	p := pkgs[name]
	switch k := e.rnd.IntN(8); k {
	case 0: // a bundle added
		p.bundles = append(p.bundles, e.next)
		p.images[e.next] = e.rnd.IntN(1000)
		e.log = append(e.log, fmt.Sprintf("%s: %s.v%d added", cat, name, e.next))
		e.next++
	case 1: // a bundle removed
		if len(p.bundles) > 1 {
			i := e.rnd.IntN(len(p.bundles))
			e.log = append(e.log, fmt.Sprintf("%s: %s.v%d removed", cat, name, p.bundles[i]))
			p.bundles = slices.Delete(p.bundles, i, i+1)
		}
	case 2: // a bundle changed
		v := p.bundles[e.rnd.IntN(len(p.bundles))]
		p.images[v] = e.rnd.IntN(1000)
		e.log = append(e.log, fmt.Sprintf("%s: %s.v%d image", cat, name, v))
	case 3: // channel entries edited
		if e.rnd.IntN(2) == 0 {
			p.fast = !p.fast
			e.log = append(e.log, fmt.Sprintf("%s: %s fast %v", cat, name, p.fast))
		} else {
			p.skips = !p.skips
			e.log = append(e.log, fmt.Sprintf("%s: %s skips %v", cat, name, p.skips))
		}
	case 4: // a package added or removed
		other := editPackageNames[e.rnd.IntN(len(editPackageNames))]
		if _, ok := pkgs[other]; ok {
			delete(pkgs, other)
			e.log = append(e.log, cat+": package "+other+" removed")
		} else {
			pkgs[other] = e.newPackage()
			e.log = append(e.log, cat+": package "+other+" added")
		}
	case 5: // a priority changed
		e.priority[cat] = int32(e.rnd.IntN(3)) * 10
		e.log = append(e.log, fmt.Sprintf("%s: priority %d", cat, e.priority[cat]))
	case 6: // an OLM v0 dependency toggled
		p.needsQ = !p.needsQ
		e.log = append(e.log, fmt.Sprintf("%s: %s needs q %v", cat, name, p.needsQ))
	case 7: // nothing
	}
}

// fbc encodes catalog cat as an FBC file.
func (e *catalogEdits) fbc(cat string) string {
	var b strings.Builder
	pkgs := e.catalogs[cat]
	for _, name := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[name]
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", name)
		var entries []string
		for i, v := range p.bundles {
			entry := fmt.Sprintf(`{"name":"%s.v%d"`, name, v)
			if i > 0 {
				entry += fmt.Sprintf(`,"replaces":"%s.v%d"`, name, p.bundles[i-1])
			}
			if i == len(p.bundles)-1 && i > 1 && p.skips {
				entry += fmt.Sprintf(`,"skips":["%s.v%d"]`, name, p.bundles[0])
			}
			entries = append(entries, entry+"}")
		}
		fmt.Fprintf(&b, `{"schema":"olm.channel","package":%q,"name":"stable","entries":[%s]}`+"\n", name, strings.Join(entries, ","))
		if p.fast {
			fmt.Fprintf(&b, `{"schema":"olm.channel","package":%q,"name":"fast","entries":[{"name":"%s.v%d"}]}`+"\n", name, name, p.bundles[len(p.bundles)-1])
		}
		for _, v := range p.bundles {
			dep := ""
			if p.needsQ && name != "q" {
				dep = `,{"type":"olm.package.required","value":{"packageName":"q","versionRange":">=1.0.0"}}`
			}
			var related strings.Builder
			for i := range e.related {
				sum := sha256.Sum256(fmt.Appendf(nil, "%s.v%d %d %d", name, v, p.images[v], i))
				fmt.Fprintf(&related, `%s{"name":"r%d","image":"example.com/related@sha256:%x"}`, map[bool]string{true: ",", false: ""}[i > 0], i, sum)
			}
			fmt.Fprintf(&b, `{"schema":"olm.bundle","package":%q,"name":"%s.v%d","image":"example.com/%s@sha256:%064x","properties":[{"type":"olm.package","value":{"packageName":%q,"version":"%d.0.0"}}%s],"relatedImages":[%s]}`+"\n",
				name, name, v, name, p.images[v], name, v, dep, related.String())
		}
	}
	return b.String()
}

// TestIncrementalCatalogsMatchFull applies random sequences of catalog
// edits (bundles added, removed and changed, channel entries edited,
// packages added and removed, priorities and OLM v0 dependencies
// changed) to two catalogs, in a catalog set or not, regenerating one
// tree incrementally after each, and checks that it is byte for byte the
// tree a full run into a new directory makes; and that two full runs'
// packages of the same inputs digest have the same files.
func TestIncrementalCatalogsMatchFull(t *testing.T) {
	sequences, steps := 16, 10
	if testing.Short() {
		sequences = 4
	}
	var total generator.Stats
	refused := 0
	for seq := range sequences {
		t.Run(fmt.Sprint(seq), func(t *testing.T) {
			e := newCatalogEdits(uint64(seq))
			if seq < 2 {
				e.related = 300 // large catalogs: segmented copies
			}
			base := fastTempDir(t)
			inc := filepath.Join(base, "inc")
			set, precompressed := seq%2 == 0, seq%4 < 2
			var lastFull map[string][]byte
			for step := range steps {
				for range e.rnd.IntN(3) {
					e.edit()
				}
				for _, cat := range []string{"a", "b"} {
					dir := filepath.Join(base, cat)
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(e.fbc(cat)), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				render := func(store writer.Store, full bool, stats *generator.Stats) error {
					a := viewstest.Load(t, "a", "dir:"+filepath.Join(base, "a"), false)
					b := viewstest.Load(t, "b", "dir:"+filepath.Join(base, "b"), false)
					a.Priority, b.Priority = e.priority["a"], e.priority["b"]
					if set {
						a.Peers, b.Peers = []*catviews.Catalog{b}, []*catviews.Catalog{a}
					}
					_, err := generator.Render(t.Context(), nil, generator.RenderOptions{
						Store: store, GeneratedAt: time.Unix(int64(step), 0),
						Precompress: precompressed, Full: full, Stats: stats,
						Catalogs: []*catviews.Catalog{a, b},
					})
					return err
				}
				var stats generator.Stats
				var ok bool
				lastFull, ok = checkStep(t, base, inc, step, e.log, render, &stats, lastFull, samePackageInputsSameFiles)
				if !ok {
					refused++
					continue
				}
				total.PackagesTaken += stats.PackagesTaken
				total.PackagesRendered += stats.PackagesRendered
				total.CatalogFilesTaken += stats.CatalogFilesTaken
				total.CatalogFilesRendered += stats.CatalogFilesRendered
				total.SegmentsReused += stats.SegmentsReused
				total.SegmentsCompressed += stats.SegmentsCompressed
			}
		})
	}
	t.Logf("over all steps: %+v, %d refused", total, refused)
	if refused > sequences*steps/10 {
		t.Errorf("%d of %d generations refused: the edits make broken inputs", refused, sequences*steps)
	}
	if total.PackagesTaken == 0 || total.PackagesRendered == 0 || total.CatalogFilesTaken == 0 {
		t.Errorf("the edits did not exercise both paths: %+v", total)
	}
	if !testing.Short() && (total.SegmentsReused == 0 || total.SegmentsCompressed == 0) {
		t.Errorf("the edits did not exercise segmented copies: %+v", total)
	}
}

// samePackageInputsSameFiles checks that every package of two trees with
// the same inputs digest has the same files (gzip copies included) in
// both.
func samePackageInputsSameFiles(t *testing.T, a, b map[string][]byte) string {
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
	for _, c := range ma.Catalogs {
		for p, d := range c.PackageInputs {
			inputs[c.Name+"/"+p] = d
		}
	}
	for _, c := range mb.Catalogs {
		for p, d := range c.PackageInputs {
			if inputs[c.Name+"/"+p] != d {
				continue
			}
			dir := catviews.Dir(c.Name)
			prefixes := []string{dir + catviews.PackageGraphPath(p), dir + "graph/" + catviews.EncodeName(p) + "/", dir + "next/" + catviews.EncodeName(p) + "/"}
			for name, data := range b {
				for _, pre := range prefixes {
					if strings.HasPrefix(name, pre) && !bytes.Equal(a[name], data) {
						return fmt.Sprintf("package %s of %s: the same inputs (%s) in both trees, and %s differs", p, c.Name, d, name)
					}
				}
			}
		}
	}
	return ""
}
