package diff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/catalog/model"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/catalog/views/viewstest"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/fbctest"
	"github.com/upgraph/upgraph/tree/writer"
)

const sharedCatalog = "../../../shared/catalogs/community-operators-prod-v4.21/configs"

// catalogTree generates a tree holding the FBC directory dir as catalog
// "community" (and no release graphs).
func catalogTree(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	c := viewstest.Load(t, "community", "dir:"+dir, false)
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(ctx, nil, generator.RenderOptions{Store: writer.DirStore{Dir: out},
		GeneratedAt: time.Unix(0, 0), NoViewer: true, Catalogs: []*catviews.Catalog{c}}); err != nil {
		t.Fatal(err)
	}
	return out
}

// editCatalog copies the shared catalog and edits it:
//   - kube-green: its head kube-green.v0.7.1 removed (entry and bundle), so
//     the head of alpha moves to v0.7.0; an olm.deprecations blob added
//     deprecating channel alpha and bundle kube-green.v0.3.0;
//   - cat-facts-operator: the head v1.1.2 also skips v1.1.1, so OLM v0
//     drops v1.1.1 from the channel and installs of v1.0.0 and v1.1.0 (whose
//     only ways up named v1.1.0 and v1.1.1) no longer reach the head; the
//     package deprecated;
//   - aws-neuron-operator: default channel Fast → Stable;
//   - rsct-operator removed;
//   - ecr-secret-operator: its head v0.5.0 declares olm.package.required,
//     so OLM v1 refuses it and installs of v0.3.2, v0.4.0 and v0.4.1 (whose
//     pick it was) are newly refused;
//   - kairos-operator: its candidate-v2 head v2.2.0 gets the legacy
//     olm.deprecated property (Prohibited), so OLM v0 installs that
//     reached it are newly stranded.
func editCatalog(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Fatalf("shared catalog not available: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "configs")
	if err := os.CopyFS(dir, os.DirFS(sharedCatalog)); err != nil {
		t.Fatal(err)
	}
	edit := func(pkg string, f func(string) string) {
		p := filepath.Join(dir, pkg, "catalog.yaml")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := f(string(b))
		if s == string(b) {
			t.Fatalf("%s: edit changed nothing", p)
		}
		writeFile(t, p, s)
	}
	replace := func(s, old, new string) string {
		if strings.Count(s, old) != 1 {
			t.Fatalf("%q occurs %d times", old, strings.Count(s, old))
		}
		return strings.Replace(s, old, new, 1)
	}
	edit("kube-green", func(s string) string {
		s = replace(s, "- name: kube-green.v0.7.1\n  replaces: kube-green.v0.7.0\n", "")
		docs := strings.Split(s, "\n---\n")
		kept := docs[:0]
		for _, d := range docs {
			if !(strings.Contains(d, "\nname: kube-green.v0.7.1\n") && strings.Contains(d, "schema: olm.bundle")) {
				kept = append(kept, d)
			}
		}
		if len(kept) != len(docs)-1 {
			t.Fatalf("kube-green.v0.7.1: %d bundle documents", len(docs)-len(kept))
		}
		return strings.Join(kept, "\n---\n")
	})
	writeFile(t, filepath.Join(dir, "kube-green", "deprecations.yaml"), `schema: olm.deprecations
package: kube-green
entries:
- reference: {schema: olm.channel, name: alpha}
  message: alpha is frozen
- reference: {schema: olm.bundle, name: kube-green.v0.3.0}
  message: kube-green.v0.3.0 has a known bug
`)
	edit("cat-facts-operator", func(s string) string {
		return replace(s, "- name: cat-facts-operator.v1.1.2\n  replaces: cat-facts-operator.v1.1.1\n",
			"- name: cat-facts-operator.v1.1.2\n  replaces: cat-facts-operator.v1.1.1\n  skips:\n  - cat-facts-operator.v1.1.1\n")
	})
	writeFile(t, filepath.Join(dir, "cat-facts-operator", "deprecations.yaml"), `{"schema":"olm.deprecations","package":"cat-facts-operator","entries":[{"reference":{"schema":"olm.package"},"message":"use cat-facts-operator-ng"}]}`)
	edit("aws-neuron-operator", func(s string) string { return replace(s, "\ndefaultChannel: Fast\n", "\ndefaultChannel: Stable\n") })
	// addProperty adds a property (YAML list item lines) first in the
	// properties of the bundle document named bundle.
	addProperty := func(s, bundle, prop string) string {
		at := strings.Index(s, "\nname: "+bundle+"\n")
		if at < 0 || strings.Count(s, "\nname: "+bundle+"\n") != 1 {
			t.Fatalf("bundle %s: not exactly one document", bundle)
		}
		k := strings.Index(s[at:], "\nproperties:\n")
		if k < 0 {
			t.Fatalf("bundle %s: no properties", bundle)
		}
		k += at + len("\nproperties:\n")
		return s[:k] + prop + s[k:]
	}
	edit("ecr-secret-operator", func(s string) string {
		return addProperty(s, "ecr-secret-operator.v0.5.0", "- type: olm.package.required\n  value:\n    packageName: aws-ecr-credentials\n    versionRange: '>=1.0.0'\n")
	})
	edit("kairos-operator", func(s string) string {
		return addProperty(s, "kairos-operator.v2.2.0", "- type: olm.deprecated\n  value: {}\n")
	})
	if err := os.RemoveAll(filepath.Join(dir, "rsct-operator")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestDiffCatalogs compares a tree of the shared catalog with one of an
// edited copy; the three renderings are golden files (review them after
// -update).
func TestDiffCatalogs(t *testing.T) {
	oldDir, newDir := catalogTree(t, sharedCatalog), catalogTree(t, editCatalog(t))
	old, new := open(t, oldDir), open(t, newDir)
	if r := compare(t, old, open(t, oldDir), Options{}); !r.Empty() || r.Catalogs != nil {
		t.Errorf("a tree against itself: %+v", r)
	}
	r := compare(t, old, new, Options{})
	if r.Empty() || len(r.Catalogs) != 1 {
		t.Fatalf("want one catalog that differs, got %+v", r)
	}
	c := r.Catalogs[0]
	if c.Name != "community" || c.Status != Changed || strings.Join(c.Packages.Removed, ",") != "rsct-operator" || len(c.Packages.Added) != 0 {
		t.Errorf("catalog: %+v", c)
	}
	pkgs := map[string]PackageDiff{}
	for _, p := range c.Changed {
		pkgs[p.Package] = p
	}
	if len(pkgs) != 5 {
		t.Errorf("changed packages: %+v", c.Changed)
	}
	if d := pkgs["aws-neuron-operator"].DefaultChannel; d == nil || *d != (Move{"Fast", "Stable"}) {
		t.Errorf("aws-neuron-operator default channel: %+v", d)
	}
	kg := pkgs["kube-green"]
	if len(kg.Changed) != 1 {
		t.Fatalf("kube-green: %+v", kg)
	}
	ch := kg.Changed[0]
	if ch.Head == nil || *ch.Head != (Move{"kube-green.v0.7.1", "kube-green.v0.7.0"}) || len(ch.Bundles.Removed) != 1 ||
		ch.Bundles.Removed[0].Name != "kube-green.v0.7.1" || len(ch.Edges.Removed) != 1 || len(ch.Edges.Added) != 0 ||
		ch.Deprecated != "alpha is frozen" || len(ch.DeprecatedBundles) != 1 || len(ch.Stranded) != 0 {
		t.Errorf("kube-green alpha: %+v", ch)
	}
	cf := pkgs["cat-facts-operator"]
	if cf.Deprecated != "use cat-facts-operator-ng" || len(cf.Changed) != 1 {
		t.Fatalf("cat-facts-operator: %+v", cf)
	}
	var stranded []string
	for _, s := range cf.Changed[0].Stranded {
		stranded = append(stranded, s.Name)
	}
	if strings.Join(stranded, ",") != "cat-facts-operator.v1.1.0,cat-facts-operator.v1.0.0" && strings.Join(stranded, ",") != "cat-facts-operator.v1.0.0,cat-facts-operator.v1.1.0" {
		t.Errorf("cat-facts-operator stranded: %v", stranded)
	}
	// OLM v1: every install whose pick was ecr-secret-operator.v0.5.0 is
	// refused now (v0.5.0 itself too: the controller validates the
	// resolved bundle even when it is the installed one), naming the
	// bundle, the property and the controller's message; OLM v0 (which
	// solves dependencies) is unchanged there.
	ecr := pkgs["ecr-secret-operator"]
	if len(ecr.Changed) != 1 || len(ecr.Changed[0].Stranded) != 0 || len(ecr.Changed[0].Edges.Added)+len(ecr.Changed[0].Edges.Removed) != 0 {
		t.Fatalf("ecr-secret-operator: %+v", ecr)
	}
	var refused []string
	for _, r := range ecr.Changed[0].Refused {
		if r.Refusal.Bundle != "ecr-secret-operator.v0.5.0" || r.Refusal.Property != "olm.package.required" || r.OldPick != "ecr-secret-operator.v0.5.0" ||
			!strings.Contains(r.Refusal.Message, "has a dependency declared via property \"olm.package.required\" which is currently not supported") {
			t.Errorf("ecr-secret-operator refusal: %+v", r)
		}
		refused = append(refused, r.Name)
	}
	slices.Sort(refused)
	if strings.Join(refused, ",") != "ecr-secret-operator.v0.3.2,ecr-secret-operator.v0.4.0,ecr-secret-operator.v0.4.1,ecr-secret-operator.v0.5.0" {
		t.Errorf("ecr-secret-operator refused installs: %v", refused)
	}
	// OLM v0: installs that reached the head v2.2.0 of candidate-v2 stop
	// before it, naming it as Prohibited; OLM v1 ignores the property.
	kai := pkgs["kairos-operator"]
	var prohibited []string
	for _, ch := range kai.Changed {
		if len(ch.Refused) != 0 {
			t.Errorf("kairos-operator %s: refused by OLM v1: %+v", ch.Channel, ch.Refused)
		}
		for _, s := range ch.Stranded {
			if s.Prohibited == nil || s.Prohibited.Bundle != "kairos-operator.v2.2.0" || s.Prohibited.Property != "olm.deprecated" {
				t.Errorf("kairos-operator %s: stranded without the Prohibited bundle: %+v", ch.Channel, s)
			}
			prohibited = append(prohibited, ch.Channel+"/"+s.Name)
		}
	}
	if len(prohibited) == 0 {
		t.Errorf("kairos-operator: no install newly stranded by the Prohibited head: %+v", kai)
	}
	t.Logf("kairos-operator installs newly stranded by the Prohibited v2.2.0: %v", prohibited)
	for _, f := range []struct {
		f   Format
		ext string
	}{{Text, "txt"}, {Markdown, "md"}, {JSON, "json"}} {
		got := strings.NewReplacer(oldDir, "OLD", newDir, "NEW").Replace(render(t, r, f.f))
		checkGolden(t, filepath.Join("testdata", "catalogs."+f.ext), got)
	}
	// Bounded markdown keeps the table and leaves sections out, saying so.
	var b strings.Builder
	if err := r.Write(&b, Markdown, WriteOptions{MaxBytes: 1800}); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); len(md) > 1800 || !strings.Contains(md, "| community | kube-green | alpha |") ||
		!strings.Contains(md, "more catalog sections left out to keep this under 1800 bytes") {
		t.Errorf("markdown within 1800 bytes (%d):\n%s", len(md), md)
	}
}

// chainFBC writes an FBC directory of package p, channel stable, of n
// bundles p.v1.0.0 … each replacing the one before; with prohibitHead
// the head has the legacy olm.deprecated property.
func chainFBC(t *testing.T, n int, prohibitHead bool) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "catalog.json"), fbctest.ReplacesChain(n, prohibitHead))
	return dir
}

// TestDiffCatalogsCutPath: a stranded install's old path
// (oldPathToHead) is the whole path even when its next/ file lists only
// its first model.FileListMax hops: diff follows the last listed hop's
// file.
func TestDiffCatalogsCutPath(t *testing.T) {
	const n = 3*model.FileListMax + 2
	old, new := open(t, catalogTree(t, chainFBC(t, n, false))), open(t, catalogTree(t, chainFBC(t, n, true)))
	r := compare(t, old, new, Options{})
	if len(r.Catalogs) != 1 || len(r.Catalogs[0].Changed) != 1 || len(r.Catalogs[0].Changed[0].Changed) != 1 {
		t.Fatalf("want one channel that differs, got %+v", r)
	}
	ch := r.Catalogs[0].Changed[0].Changed[0]
	if len(ch.Stranded) != n-1 {
		t.Fatalf("%d installs newly stranded, want %d", len(ch.Stranded), n-1)
	}
	for _, s := range ch.Stranded {
		var i int
		if _, err := fmt.Sscanf(s.Name, "p.v1.0.%d", &i); err != nil {
			t.Fatal(err)
		}
		var want []string
		for k := i + 1; k < n; k++ {
			want = append(want, fmt.Sprintf("p.v1.0.%d", k))
		}
		if !slices.Equal(s.Old, want) {
			t.Errorf("%s: old path %v, want %v", s.Name, s.Old, want)
		}
	}
}

// setTree generates a tree holding the FBC directories of cats (name →
// directory) as one catalog set (each catalog the others' peer, priority
// 0), as generate --catalog-set does.
func setTree(t *testing.T, cats map[string]string) string {
	t.Helper()
	var list []*catviews.Catalog
	for _, name := range slices.Sorted(maps.Keys(cats)) {
		list = append(list, viewstest.Load(t, name, "dir:"+cats[name], false))
	}
	for _, c := range list {
		for _, o := range list {
			if o != c {
				c.Peers = append(c.Peers, o)
			}
		}
	}
	out := filepath.Join(t.TempDir(), "tree")
	if _, err := generator.Render(context.Background(), nil, generator.RenderOptions{Store: writer.DirStore{Dir: out},
		GeneratedAt: time.Unix(0, 0), NoViewer: true, Catalogs: list}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiffCatalogsUnsatisfiable: a catalog set of two catalogs, topology
// (the shared catalog's rabbitmq-messaging-topology-operator) and rmq
// (its rabbitmq-cluster-operator, which the topology operator's bundles
// from 1.14.2 on require: olm.package.required >2.0.0); NEW's rmq holds
// another package instead. The topology catalog is unchanged, but OLM v0
// can no longer satisfy the dependency, so its installs that reached the
// head are newly stranded, held, naming the dependency (issue 25:
// installs a new catalog leaves unsatisfiable).
func TestDiffCatalogsUnsatisfiable(t *testing.T) {
	if _, err := os.Stat(sharedCatalog); err != nil {
		t.Fatalf("shared catalog not available: %v", err)
	}
	topo := filepath.Join(sharedCatalog, "rabbitmq-messaging-topology-operator")
	old := open(t, setTree(t, map[string]string{"topology": topo, "rmq": filepath.Join(sharedCatalog, "rabbitmq-cluster-operator")}))
	new := open(t, setTree(t, map[string]string{"topology": topo, "rmq": filepath.Join(sharedCatalog, "kube-green")}))
	r := compare(t, old, new, Options{})
	var held []StrandedBundle
	for _, c := range r.Catalogs {
		for _, p := range c.Changed {
			if p.Package != "rabbitmq-messaging-topology-operator" {
				continue
			}
			for _, ch := range p.Changed {
				held = append(held, ch.Stranded...)
			}
		}
	}
	if len(held) == 0 {
		t.Fatalf("no install of rabbitmq-messaging-topology-operator newly stranded: %+v", r.Catalogs)
	}
	nHeld := 0
	for _, s := range held {
		// held short of the head, or (an installed bundle that itself
		// requires it) the resolution fails: either names the dependency
		why := s.Error
		if s.Held != nil {
			why, nHeld = s.Held.Message, nHeld+1
		}
		if !strings.Contains(why, "rabbitmq-cluster-operator") {
			t.Errorf("%s: stranded, the reason %q does not name the dependency", s.Name, why)
		}
	}
	if text := render(t, r, Text); !strings.Contains(text, "its dependencies are unsatisfiable") {
		t.Errorf("the text report does not say it:\n%s", text)
	}
	if nHeld == 0 {
		t.Error("no install held short of the head (older installs are, at 1.14.1)")
	}
	t.Logf("%d installs newly unsatisfiable (%d held), e.g. %s: %s %+v", len(held), nHeld, held[0].Name, held[0].Error, held[0].Held)
}

// TestDeclaresDependencies: a package's installs are re-read when its
// summary says it declares an OLM v0 dependency (any form: an
// olm.label.required alone, which no OLM v1 refusal warning names), or,
// in a tree written before the summary said so, when a refusal warning
// names one.
func TestDeclaresDependencies(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    catviews.PackageSummary
		want bool
	}{
		{"summary says so (olm.label.required alone)", catviews.PackageSummary{DeclaresDependencies: true}, true},
		{"older tree: an OLM v1 refusal warning", catviews.PackageSummary{Warnings: []catviews.Warning{{Rule: model.RuleV1Refused}}}, true},
		{"other warnings only", catviews.PackageSummary{Warnings: []catviews.Warning{{Rule: model.RuleLegacyDeprecated}}}, false},
		{"none", catviews.PackageSummary{}, false},
	} {
		if got := declaresDependencies(&tc.p); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
