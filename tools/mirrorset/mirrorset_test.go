package mirrorset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/fbctest"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

const (
	sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"
	fixtures      = "../../catalog/upgrade/testdata/catalogs"
)

// loadCatalog reads the FBC directory dir as catalog name (read and
// converted once per test binary).
func loadCatalog(t testing.TB, name, dir string) *Catalog {
	t.Helper()
	cfg, m := fbctest.Load(t, dir)
	return &Catalog{Name: name, Reference: dir, Config: cfg, Model: m}
}

// without returns a copy of cs without bundle name (channels and
// packages left empty dropped, the default channel chosen as Compute
// chooses it).
func without(cs *CatalogSet, name string) *CatalogSet {
	out := *cs
	out.Packages = nil
	for _, ps := range cs.Packages {
		np := *ps
		np.Channels = nil
		for _, ch := range ps.Channels {
			nc := *ch
			nc.Bundles = slices.DeleteFunc(slices.Clone(ch.Bundles), func(b SetBundle) bool { return b.Name == name })
			if len(nc.Bundles) > 0 {
				np.Channels = append(np.Channels, &nc)
			}
		}
		if len(np.Channels) == 0 {
			continue
		}
		orig := cs.cat.Model.Package(ps.Name).DefaultChannelName
		np.DefaultChannel, np.DefaultChannelWas = orig, ""
		if !slices.ContainsFunc(np.Channels, func(c *ChannelSet) bool { return c.Name == orig }) {
			np.DefaultChannel, np.DefaultChannelWas = np.Channels[0].Name, orig
		}
		out.Packages = append(out.Packages, &np)
	}
	return &out
}

// setNames lists the bundles of cs, each once.
func setNames(cs *CatalogSet) []string {
	var out []string
	for _, ps := range cs.Packages {
		for _, ch := range ps.Channels {
			for _, b := range ch.Bundles {
				if !slices.Contains(out, b.Name) {
					out = append(out, b.Name)
				}
			}
		}
	}
	return out
}

// skeleton returns cat with each bundle's properties cut to its
// olm.package property (all of them for a bundle without an image, whose
// olm.bundle.object properties stand for it) and without related
// images: what a channel's validity and the runtimes' choices read. A
// bundle's own property checks do not depend on which other bundles are
// kept, and the whole set's were checked on the real blobs, so a set
// without one bundle is valid exactly when its skeleton is.
func skeleton(cat *Catalog) *Catalog {
	cfg := *cat.Config
	cfg.Bundles = slices.Clone(cfg.Bundles)
	for i, b := range cfg.Bundles {
		cfg.Bundles[i].RelatedImages = nil
		if b.Image == "" {
			continue
		}
		// A short valid reference: parsing the real one costs more and
		// decides nothing here.
		cfg.Bundles[i].Image = "registry.example.com/b:1"
		cfg.Bundles[i].Properties = slices.DeleteFunc(slices.Clone(b.Properties), func(p declcfg.Property) bool { return p.Type != "olm.package" })
	}
	return &Catalog{Name: cat.Name, Reference: cat.Reference, Config: &cfg, Model: model.Convert(&cfg)}
}

// breaks reports whether cs's filtered catalog is invalid, or some
// install of plan does not take its hops in it.
func breaks(plan *Plan, cs *CatalogSet) bool {
	m := model.Convert(cs.Config())
	if !m.Valid() {
		return true
	}
	for _, in := range plan.Installs {
		if in.Found && in.Catalog == cs.Name && Replay(m, in, plan.OLM) != nil {
			return true
		}
		if !in.Found {
			continue
		}
		own := in
		own.Dependencies = slices.DeleteFunc(slices.Clone(in.Dependencies), func(d DependencyPick) bool { return d.Catalog != cs.Name })
		if ReplayDependencies(map[string]*model.Catalog{cs.Name: m}, own) != nil {
			return true
		}
	}
	return false
}

// writeFBC writes cs's filtered catalog under root, in a directory named
// by its content's digest (the same set is written once), and returns it.
func writeFBC(t *testing.T, root string, cs *CatalogSet) string {
	t.Helper()
	files, err := cs.FBC()
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Path + "\x00"))
		h.Write(f.Data)
	}
	dir := filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSoundnessSharedCatalog is the mirror-set acceptance check, on every
// (package, channel, installed bundle) of the shared real catalog, for
// OLM v0 and OLM v1, with target "head":
//
//   - the filtered catalog of the install alone is valid by upgraph's
//     validation (opm's verdict) and by operator-registry itself (the
//     olmoracle, every distinct filtered catalog);
//   - replayed hop by hop with upgraph's selection (V0Next, ResolveV1's
//     pick), the runtime reaches the head from the installed bundle in
//     the filtered catalog, taking the hops it takes in the whole one;
//   - minimality: removing any one bundle of the set makes the filtered
//     catalog invalid or changes the hops;
//   - the union: one plan for every install at once is valid (both
//     verdicts) and replays every install.
//
// Installs from which the runtime does not reach the head in the whole
// catalog have no mirror set (they are counted and logged). Set sizes
// against the whole catalog are logged (go test -v).
func TestSoundnessSharedCatalog(t *testing.T) {
	cat := loadCatalog(t, "community", sharedCatalog)
	skel := skeleton(cat)
	root := t.TempDir()
	start := time.Now()
	type outcome struct {
		in     Install
		found  bool
		reason string
		size   int
		images int
		dir    string
	}
	var installs []Install
	for _, p := range cat.Model.Packages {
		for _, ch := range p.Channels {
			for _, e := range ch.Entries {
				installs = append(installs, Install{Package: p.Name, Channel: ch.Name, Version: e.Name})
			}
		}
	}
	var dirsMu sync.Mutex
	dirs := map[string][]string{} // dir → installs whose set it is
	for _, olm := range []upgrade.Runtime{upgrade.V0, upgrade.V1} {
		out := make([]outcome, len(installs))
		var wg sync.WaitGroup
		next := make(chan int)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for i := range next {
					in := installs[i]
					o := outcome{in: in}
					plan, err := Compute([]*Catalog{cat}, []Install{in}, olm)
					if err != nil {
						t.Errorf("%s %s: %v", olm, in, err)
						out[i] = o
						continue
					}
					ip := plan.Installs[0]
					if o.found = ip.Found; !o.found {
						o.reason = ip.Reason.Code
						out[i] = o
						continue
					}
					cs := plan.Catalogs[0]
					o.size, o.images = cs.Counts.Bundles, cs.Counts.Images
					// Compute checked the catalog it writes; say it again.
					m := cs.Model()
					if !m.Valid() {
						t.Errorf("%s %s: the filtered catalog is invalid: %v", olm, in, m.Problems)
					}
					if err := Replay(m, ip, olm); err != nil {
						t.Errorf("%s %s: replay: %v", olm, in, err)
					}
					sk := *cs
					sk.cat = skel
					if len(ip.Path) > 0 && breaks(plan, &sk) {
						t.Errorf("%s %s: the skeleton of the set breaks: minimality would be vacuous", olm, in)
					}
					for _, name := range setNames(cs) {
						if !breaks(plan, without(&sk, name)) {
							t.Errorf("%s %s: not minimal: without %s the catalog is valid and the hops %v unchanged", olm, in, name, ip.Path)
						}
					}
					if o.size > 0 {
						dirsMu.Lock()
						o.dir = writeFBC(t, root, cs) // one directory per distinct set, whichever runtime
						dirs[o.dir] = append(dirs[o.dir], fmt.Sprintf("%s %s", olm, in))
						dirsMu.Unlock()
					}
					out[i] = o
				}
			})
		}
		for i := range installs {
			next <- i
		}
		close(next)
		wg.Wait()

		// Sizes.
		var sizes []int
		var found []Install
		reasons := map[string]int{}
		total := 0
		for _, o := range out {
			if !o.found {
				reasons[o.reason]++
				continue
			}
			found = append(found, o.in)
			sizes = append(sizes, o.size)
			total += o.size
		}
		t.Logf("%s: plans, replays and minimality checks: %s", olm, time.Since(start).Round(time.Millisecond))
		sort.Ints(sizes)
		if len(sizes) == 0 {
			t.Fatalf("%s: no install reaches its head", olm)
		}
		union, err := Compute([]*Catalog{cat}, found, olm)
		if err != nil {
			t.Fatalf("%s: the union of %d installs: %v", olm, len(found), err)
		}
		if !union.Found() {
			t.Errorf("%s: the union plan loses a path", olm)
		}
		udir := writeFBC(t, root, union.Catalogs[0])
		dirs[udir] = append(dirs[udir], string(olm)+" union")
		t.Logf("%s: %d installs, %d reach the head (no path: %v); set size per install: median %d, max %d, sum %d bundles (the catalog has %d); all at once: %d bundles of %d packages, %d images",
			olm, len(installs), len(found), reasons, sizes[len(sizes)/2], sizes[len(sizes)-1], total,
			union.Counts.CatalogBundles, union.Counts.Bundles, union.Counts.Packages, union.Counts.Images)
	}
	// operator-registry's verdict on every distinct filtered catalog.
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	sort.Strings(list)
	// The oracle says no too: a catalog with two heads.
	bad, err := filepath.Abs(filepath.Join(fixtures, "skiprange-heads"))
	if err != nil {
		t.Fatal(err)
	}
	oracleStart := time.Now()
	verdicts := oracleVerdicts(t, append(list, bad))
	t.Logf("oracle: %s for %d catalogs", time.Since(oracleStart).Round(time.Millisecond), len(list)+1)
	if v := verdicts[bad]; v.Verdict == nil || v.Verdict.Valid {
		t.Errorf("the oracle accepts %s, which has two heads: %+v", bad, v)
	}
	for _, d := range list {
		v := verdicts[d]
		if v.LoadError != "" || v.Verdict == nil || !v.Verdict.Valid {
			msg := v.LoadError
			if v.Verdict != nil {
				msg = v.Verdict.Error
			}
			t.Errorf("operator-registry rejects the filtered catalog of %v: %s", dirs[d], msg)
		}
	}
	t.Logf("operator-registry accepts %d distinct filtered catalogs; %s in all", len(list), time.Since(start).Round(time.Millisecond))
}
