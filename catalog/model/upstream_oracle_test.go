package model

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/internal/upstreamoracle"
)

// Proof by upstream's code (issue 24 item 5): the answers operator-
// controller's (*CatalogResolver).Resolve with NoDependencyValidation and
// operator-lifecycle-manager's resolver gave on the shared catalog (whole
// and split into cat-a/cat-b/cat-c with priorities) and on fixtures
// reproducing their own tests are recorded under
// ../testdata/oracle-upstream (README there: commits, harness, how to
// re-record; neither module can be built in CI, the Go module proxy
// refuses both). These tests ask the model the same questions and require
// the same answers; what the model does not claim is listed, with its
// reason, and counted.

const upstreamOracleData = "../testdata/oracle-upstream"

// TestUpstreamOracle prepares the recorded data once (the shared catalog
// and its split are most of the time) and compares OLM v1 and OLM v0.
func TestUpstreamOracle(t *testing.T) {
	o := loadUpstreamOracle(t)
	t.Run("V1", func(t *testing.T) { upstreamOracleV1(t, o) })
	t.Run("V0", func(t *testing.T) { upstreamOracleV0(t, o) })
}

// v1OracleExcluded are the OLM v1 records the model is not asked, each
// with the reason. Everything else is compared; the test fails when an
// exclusion names no record or a record needs one it lacks.
var v1OracleExcluded = map[string]string{
	"fixture/selector-bad-operator":    "an invalid label selector: Kubernetes' labels.Parse rejects it before resolution; upgraph's catalog set names its catalogs, it has no selectors to validate",
	"fixture/selector-bad-label-name":  "an invalid label selector (label key syntax): Kubernetes' validation, not OLM's resolution",
	"fixture/selector-bad-label-value": "an invalid label selector (label value syntax): Kubernetes' validation, not OLM's resolution",
	"fixture/not-serving":              "a ClusterCatalog whose Serving condition is False fails the walk (catalogmetadata/client); serving is cluster state, upgraph reads the catalogs it is given",
}

// oracleCatalogs loads each FBC directory once (sets share them) and
// converts it.
type oracleCatalogs struct {
	mu   sync.Mutex
	dirs map[string]*oracleLoad
}

type oracleLoad struct {
	once sync.Once
	cat  *Catalog
	err  error
}

func (oc *oracleCatalogs) get(dir string) (*Catalog, error) {
	oc.mu.Lock()
	l := oc.dirs[dir]
	if l == nil {
		l = &oracleLoad{}
		oc.dirs[dir] = l
	}
	oc.mu.Unlock()
	l.once.Do(func() {
		cfg, err := declcfg.Load(context.Background(), os.DirFS(dir), ".")
		if err != nil {
			l.err = fmt.Errorf("loading %s: %w", dir, err)
			return
		}
		l.cat = Convert(cfg)
	})
	return l.cat, l.err
}

// upstreamOracle is the recorded data with every catalog of every set
// loaded (in parallel: the shared catalog and its three split parts are
// most of the time).
type upstreamOracle struct {
	rec  *upstreamoracle.Recorded
	dirs upstreamoracle.Dirs
	cats *oracleCatalogs
}

func loadUpstreamOracle(t *testing.T) *upstreamOracle {
	t.Helper()
	shared, err := filepath.Abs(sharedCatalog)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(shared); err != nil {
		t.Fatalf("shared real catalog: %v (CI clones the repository with shared/ beside it)", err)
	}
	start := time.Now()
	// The catalogs that are not the split set's exist already: load
	// them while Prepare regenerates the queries and writes the split.
	sets, err := upstreamoracle.ReadSets(filepath.Join(upstreamOracleData, upstreamoracle.SetsFile))
	if err != nil {
		t.Fatal(err)
	}
	dirs := upstreamoracle.Dirs{Data: upstreamOracleData, Shared: shared, Split: t.TempDir()}
	cats := &oracleCatalogs{dirs: map[string]*oracleLoad{}}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	seen := map[string]bool{}
	loadAll := func(sets []upstreamoracle.CatalogSet, split bool) {
		for _, s := range sets {
			for _, ref := range s.Catalogs {
				if strings.HasPrefix(ref.Source, "split/") != split {
					continue
				}
				dir, err := dirs.Dir(ref)
				if err != nil {
					t.Fatal(err)
				}
				if seen[dir] {
					continue
				}
				seen[dir] = true
				wg.Go(func() {
					if _, err := cats.get(dir); err != nil {
						errs <- err
					}
				})
			}
		}
	}
	loadAll(sets, false)
	rec, prepDirs, err := upstreamoracle.Prepare(context.Background(), upstreamOracleData, shared, dirs.Split)
	if err != nil {
		wg.Wait()
		t.Fatal(err)
	}
	if prepDirs != dirs {
		t.Fatalf("Prepare's directories %+v, want %+v", prepDirs, dirs)
	}
	prepared := time.Since(start)
	loadAll(rec.Sets, true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("recorded data prepared (queries regenerated and checked, split set written) in %v, %d catalog directories loaded by %v",
		prepared.Round(time.Millisecond), len(seen), time.Since(start).Round(time.Millisecond))
	return &upstreamOracle{rec: rec, dirs: dirs, cats: cats}
}

// catalog returns the converted catalog of ref.
func (o *upstreamOracle) catalog(ref upstreamoracle.CatalogRef) (*Catalog, error) {
	dir, err := o.dirs.Dir(ref)
	if err != nil {
		return nil, err
	}
	return o.cats.get(dir)
}

// labelSelector is the subset of metav1.LabelSelector the recorded
// queries use.
type labelSelector struct {
	MatchLabels      map[string]string `json:"matchLabels"`
	MatchExpressions []json.RawMessage `json:"matchExpressions"`
}

// v1Members builds the set as operator-controller's walker sees it: the
// ClusterCatalogs listed (sorted by name, as the API server lists them)
// and filtered by the selector's matchLabels (each catalog carries
// olm.operatorframework.io/metadata.name=<name> and its set labels), the
// Unavailable ones removed (CatalogWalker), each with the package.
func (o *upstreamOracle) v1Members(set upstreamoracle.CatalogSet, q upstreamoracle.V1Query) ([]V1CatalogMember, error) {
	var sel labelSelector
	if len(q.Selector) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(q.Selector)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sel); err != nil {
			return nil, fmt.Errorf("selector %s: %w", q.Selector, err)
		}
		if len(sel.MatchExpressions) > 0 {
			return nil, fmt.Errorf("selector %s: matchExpressions are not modelled", q.Selector)
		}
	}
	refs := slices.Clone(set.Catalogs)
	slices.SortFunc(refs, func(a, b upstreamoracle.CatalogRef) int { return strings.Compare(a.Name, b.Name) })
	var members []V1CatalogMember
	for _, ref := range refs {
		labels := map[string]string{"olm.operatorframework.io/metadata.name": ref.Name}
		for k, v := range ref.Labels {
			labels[k] = v
		}
		matches := true
		for k, v := range sel.MatchLabels {
			if labels[k] != v {
				matches = false
			}
		}
		if !matches || ref.Unavailable {
			continue
		}
		if ref.NotServing {
			return nil, fmt.Errorf("catalog %s is not serving: not modelled", ref.Name)
		}
		c, err := o.catalog(ref)
		if err != nil {
			return nil, err
		}
		members = append(members, V1CatalogMember{Name: ref.Name, Priority: ref.Priority, Package: c.Package(q.Package)})
	}
	return members, nil
}

// upstreamOracleV1 (TestUpstreamOracle/V1) asks ResolveV1Set every
// recorded OLM v1 query and requires operator-controller's answer: the
// same bundle, version, release and catalog, or exactly the same error
// text (refusals by NoDependencyValidation, ties across catalogs, none
// found, an invalid version range).
func upstreamOracleV1(t *testing.T, o *upstreamOracle) {
	start := time.Now()
	type tally struct{ compared, picks, errors, excluded int }
	bySet := map[string]*tally{}
	var disagreements []string
	excludedSeen := map[string]bool{}
	for _, r := range o.rec.V1 {
		tl := bySet[r.Set]
		if tl == nil {
			tl = &tally{}
			bySet[r.Set] = tl
		}
		if reason, ok := v1OracleExcluded[r.ID]; ok {
			excludedSeen[r.ID] = true
			tl.excluded++
			t.Logf("excluded %s (upstream: %q): %s", r.ID, r.Answer.Error, reason)
			continue
		}
		set, ok := o.rec.Set(r.Set)
		if !ok {
			t.Fatalf("%s: no set %q", r.ID, r.Set)
		}
		members, err := o.v1Members(set, r.V1Query)
		if err != nil {
			t.Errorf("%s: %v (model it or list it in v1OracleExcluded with the reason)", r.ID, err)
			continue
		}
		q := V1Query{
			Package:       r.Package,
			Channels:      r.Channels,
			VersionRange:  r.VersionRange,
			SelfCertified: r.UpgradeConstraintPolicy == "SelfCertified",
		}
		if in := r.Answer.Installed; in != nil {
			q.Installed = &Installed{Name: in.Name, Version: in.Version, Release: in.Release}
		} else if r.Installed != nil {
			t.Errorf("%s: the query names an installed bundle, the answer records none", r.ID)
			continue
		}
		got := ResolveV1Set(members, q)
		tl.compared++
		if d := v1Disagreement(r.Answer, got); d != "" {
			disagreements = append(disagreements, r.ID+": "+d)
			continue
		}
		if r.Answer.Error != "" {
			tl.errors++
		} else {
			tl.picks++
		}
	}
	for id := range v1OracleExcluded {
		if !excludedSeen[id] {
			t.Errorf("v1OracleExcluded names %s, which no record has", id)
		}
	}
	var total tally
	for _, name := range sortedSetNames(bySet) {
		tl := bySet[name]
		t.Logf("set %-22s compared %5d: %5d picks and %5d errors agree; %d excluded", name, tl.compared, tl.picks, tl.errors, tl.excluded)
		total.compared += tl.compared
		total.picks += tl.picks
		total.errors += tl.errors
		total.excluded += tl.excluded
	}
	t.Logf("OLM v1: %d records, %d compared, %d agree (%d picks, %d errors), %d disagree, %d excluded; compared in %v",
		len(o.rec.V1), total.compared, total.picks+total.errors, total.picks, total.errors, len(disagreements), total.excluded, time.Since(start).Round(time.Millisecond))
	if len(disagreements) > 0 {
		t.Errorf("upgraph disagrees with operator-controller on %d queries:\n  %s", len(disagreements), strings.Join(firstN(disagreements, 40), "\n  "))
	}
}

// v1Disagreement describes how got differs from the recorded answer, ""
// when it does not.
func v1Disagreement(want upstreamoracle.V1Answer, got V1SetResult) string {
	if want.Error != "" || got.Error != "" {
		if want.Error != got.Error {
			return fmt.Sprintf("error: upstream %q, upgraph %q (pick %v)", want.Error, got.Error, pickName(got.Pick))
		}
		if got.Pick != nil {
			return fmt.Sprintf("upgraph picks %s beside the error %q", got.Pick.Name, got.Error)
		}
		return ""
	}
	if got.Pick == nil {
		return fmt.Sprintf("upstream picks %s, upgraph none", want.Bundle)
	}
	if got.Pick.Name != want.Bundle || got.Pick.Version != want.Version || got.Pick.Release != want.Release || got.Catalog != want.Catalog {
		return fmt.Sprintf("upstream picks %s %s release %q from %s; upgraph %s %s release %q from %s",
			want.Bundle, want.Version, want.Release, want.Catalog, got.Pick.Name, got.Pick.Version, got.Pick.Release, got.Catalog)
	}
	return ""
}

func pickName(c *V1Candidate) string {
	if c == nil {
		return "none"
	}
	return c.Name
}

func sortedSetNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("… and %d more", len(s)-n))
}
