package mirrorset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

// The real OLM v0 resolver on the mirror sets' filtered catalogs, with
// dependencies kept (issue 25 item 4): for a sample of the shared
// catalog's installs, each install's own mirror set is written as a
// catalog (community, the only CatalogSource the namespace sees), and
// every resolution OLM v0 makes along its path (model.V0Set.ResolvePath
// on the whole catalog: the namespace's Subscriptions before it, the
// install's and one per provider installed so far) is a query to
// operator-lifecycle-manager's resolver (the harness of
// ../testdata/oracle-upstream/README.md, which builds each installed CSV
// from the whole catalog, served in a namespace the resolver does not
// look at: the filtered catalogs lack the installed bundle, as a
// cluster's CSV outlives its catalog entry). Its answers, recorded in
// testdata/oracle-v0-deps.jsonl (operators only, name@catalog), must be
// what the model resolves in the whole catalog: the same hops, the same
// providers, no resolution failing (every dependency satisfied in the
// filtered catalogs).
//
// The sample (depsOracleInstalls): every install of a package whose
// bundles declare dependencies, and for every other package and channel
// its oldest entry (the longest path), each over the whole shared
// catalog; then every rabbitmq-messaging-topology-operator install over
// the oracle's rmq-prio set (rabbitSet: the topology operator alone in
// catalog topology, rabbitmq-cluster-operator in rmq-high, priority 20,
// and rmq-low, 5), whose mirror set keeps the provider from rmq-high
// only (rmq-low keeps nothing and is not mirrored).
//
// Re-recording:
//
//	go test ./tools/mirrorset -run TestOracleFilteredDependencies -args -deps-oracle.inputs=/tmp/ms-in
//	ORACLE_RUNS=3 olm-harness < /tmp/ms-in/queries.jsonl > /tmp/ms-in/answers.jsonl
//	go test ./tools/mirrorset -run TestOracleFilteredDependencies -args -deps-oracle.record=/tmp/ms-in
var (
	depsOracleInputs = flag.String("deps-oracle.inputs", "", "write the filtered catalogs and the OLM v0 harness queries under this directory")
	depsOracleRecord = flag.String("deps-oracle.record", "", "record the OLM v0 harness answers (answers.jsonl) found in this directory into "+depsOracleFile)
)

const (
	depsOracleFile = "testdata/oracle-v0-deps.jsonl"
	// installedNamespace holds the whole catalog the installed CSVs are
	// built from; the resolver sees only the query's namespace and the
	// global one.
	installedNamespace = "upgraph-installed"
)

// depsOracleQuery is one resolution: the install, the namespace's
// Subscriptions before it, and what the model resolves.
type depsOracleQuery struct {
	ID      string
	install int
	subs    []model.V0Subscription
	want    []string // name@catalog, sorted
	// beside counts the providers it installs and moves.
	beside int
}

// depsOracleLine is a line of testdata/oracle-v0-deps.jsonl.
type depsOracleLine struct {
	ID           string     `json:"id"`
	Operators    []string   `json:"operators"`
	Error        string     `json:"error,omitempty"`
	Runs         int        `json:"runs"`
	Alternatives [][]string `json:"alternatives,omitempty"`
}

// depsOracleInstalls is the sample.
func depsOracleInstalls(cat *Catalog) []Install {
	var out []Install
	for _, p := range cat.Model.Packages {
		hasDeps := false
		for _, b := range p.Bundles {
			if d, err := b.V0Dependencies(); err != nil || len(d) > 0 {
				hasDeps = true
			}
		}
		for _, ch := range p.Channels {
			var oldest *model.Entry
			for _, e := range ch.Entries {
				if e.Bundle == nil {
					continue
				}
				if hasDeps {
					out = append(out, Install{Package: p.Name, Channel: ch.Name, Version: e.Name})
				} else if oldest == nil || e.Bundle.Compare(oldest.Bundle) < 0 {
					oldest = e
				}
			}
			if oldest != nil {
				out = append(out, Install{Package: p.Name, Channel: ch.Name, Version: oldest.Name})
			}
		}
	}
	return out
}

// depsOracleQueries plans each install alone (V0) over the catalog set
// cats, and lists its resolutions as queries (ids prefixed with prefix,
// installs numbered from base); plans[i] is install i's (nil when it has
// no path).
func depsOracleQueries(t *testing.T, cats []*Catalog, installs []Install, prefix string, base int) ([]*Plan, []depsOracleQuery) {
	t.Helper()
	set := v0Set(cats)
	plans := make([]*Plan, len(installs))
	var out []depsOracleQuery
	for i, in := range installs {
		plan, err := Compute(cats, []Install{in}, upgrade.V0)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		ip := plan.Installs[0]
		if !ip.Found || len(ip.Path) == 0 {
			continue
		}
		plans[i] = plan
		// ResolvePath's walk, state by state: each resolution's
		// Subscriptions, then what it moves (model/olmv0path.go).
		subs := []model.V0Subscription{{Catalog: ip.Catalog, Package: ip.Package, Channel: ip.Channel, Installed: ip.From.Name}}
		res := set.ResolvePath(model.V0SetQuery{Catalog: ip.Catalog, Package: ip.Package, Channel: ip.Channel, Installed: ip.From.Name})
		for step, r := range res.Resolutions {
			q := depsOracleQuery{ID: fmt.Sprintf("%s%s/%s/%s/%d", prefix, ip.Package, ip.Channel, ip.From.Name, step), install: base + i, subs: slices.Clone(subs), want: []string{}}
			if r.Error != "" {
				t.Fatalf("%s: the model's resolution %d fails in the whole catalogs: %s", in, step, r.Error)
			}
			for j, sr := range r.Subscriptions {
				if sr.Next != nil {
					if j > 0 {
						q.beside++
					}
					q.want = append(q.want, sr.Next.Bundle+"@"+sr.Next.Catalog)
					subs[j].Installed, subs[j].StartingCSV = sr.Next.Bundle, ""
				}
			}
			for _, p := range r.Providers {
				q.beside++
				q.want = append(q.want, p.Bundle+"@"+p.Catalog)
				subs = append(subs, model.V0Subscription{Catalog: p.Catalog, Package: p.Package, Channel: p.Channel, Installed: p.Bundle})
			}
			slices.Sort(q.want)
			out = append(out, q)
		}
	}
	return plans, out
}

// rabbitSet is the oracle's rmq-prio set: the shared catalog's
// rabbitmq-messaging-topology-operator alone in topology (priority 0),
// rabbitmq-cluster-operator alone in rmq-high (20) and rmq-low (5).
func rabbitSet(t *testing.T) []*Catalog {
	topo := loadCatalog(t, "topology", filepath.Join(sharedCatalog, "rabbitmq-messaging-topology-operator"))
	high := loadCatalog(t, "rmq-high", filepath.Join(sharedCatalog, "rabbitmq-cluster-operator"))
	high.Priority = 20
	low := loadCatalog(t, "rmq-low", filepath.Join(sharedCatalog, "rabbitmq-cluster-operator"))
	low.Priority = 5
	return []*Catalog{topo, high, low}
}

// allDepsOracleQueries: the sample over the whole shared catalog, then
// every topology operator install over the rabbitmq set (ids prefixed
// rmq-prio/); sets[i] is install i's catalog set.
func allDepsOracleQueries(t *testing.T) ([]*Plan, [][]*Catalog, []depsOracleQuery) {
	whole := loadCatalog(t, "community", sharedCatalog)
	wi := depsOracleInstalls(whole)
	plans, queries := depsOracleQueries(t, []*Catalog{whole}, wi, "", 0)
	sets := make([][]*Catalog, len(wi))
	for i := range sets {
		sets[i] = []*Catalog{whole}
	}
	rs := rabbitSet(t)
	var ri []Install
	for _, e := range rs[0].Model.Package("rabbitmq-messaging-topology-operator").Channels[0].Entries {
		ri = append(ri, Install{Catalog: "topology", Package: "rabbitmq-messaging-topology-operator", Channel: e.Channel.Name, Version: e.Name})
	}
	rp, rq := depsOracleQueries(t, rs, ri, "rmq-prio/", len(wi))
	for range ri {
		sets = append(sets, rs)
	}
	return append(plans, rp...), sets, append(queries, rq...)
}

// harnessQuery is a query as the OLM v0 harness reads it: the install's
// filtered catalogs (those that keep something: a catalog the set keeps
// nothing of is not mirrored) as CatalogSources with their priorities,
// the whole catalogs (wholes, by name) for the installed CSVs.
func harnessQuery(q depsOracleQuery, set []*Catalog, filtered map[string]string, wholes map[string]string) map[string]any {
	ns := fmt.Sprintf("set-ms-%d", q.install)
	var subs []map[string]any
	for _, s := range q.subs {
		subs = append(subs, map[string]any{"package": s.Package, "channel": s.Channel, "source": s.Catalog, "installed": s.Installed,
			"installedFrom": "whole-" + s.Catalog, "installedFromNamespace": installedNamespace})
	}
	var cats, inst []map[string]any
	for _, c := range set {
		if dir, ok := filtered[c.Name]; ok {
			cats = append(cats, map[string]any{"name": c.Name, "namespace": ns, "priority": c.Priority, "dir": dir})
		}
		inst = append(inst, map[string]any{"name": "whole-" + c.Name, "namespace": installedNamespace, "priority": 0, "dir": wholes[c.Name]})
	}
	return map[string]any{"id": q.ID, "globalNamespace": ns, "catalogs": cats, "installedCatalogs": inst, "subscriptions": subs}
}

func TestOracleFilteredDependencies(t *testing.T) {
	plans, sets, queries := allDepsOracleQueries(t)
	if *depsOracleInputs != "" {
		writeDepsOracleInputs(t, plans, sets, queries)
		return
	}
	if *depsOracleRecord != "" {
		recordDepsOracle(t, queries)
		return
	}
	data, err := os.ReadFile(depsOracleFile)
	if err != nil {
		t.Fatalf("%v (record it: see oracle_deps_test.go)", err)
	}
	var recs []depsOracleLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var r depsOracleLine
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("%s:%d: %v", depsOracleFile, line, err)
		}
		recs = append(recs, r)
	}
	if len(recs) != len(queries) {
		t.Fatalf("%s: %d records, %d queries today (a changed catalog or model needs a new recording)", depsOracleFile, len(recs), len(queries))
	}
	installs, providers, namespaces := map[int]bool{}, 0, 0
	for i, q := range queries {
		r := recs[i]
		if r.ID != q.ID {
			t.Fatalf("%s line %d: %s, today's query is %s", depsOracleFile, i+1, r.ID, q.ID)
		}
		installs[q.install] = true
		if r.Error != "" {
			t.Errorf("%s: the real resolver fails on the filtered catalog: %s", q.ID, r.Error)
			continue
		}
		ok := slices.Equal(r.Operators, q.want)
		for _, alt := range r.Alternatives {
			ok = ok || slices.Equal(alt, q.want)
		}
		if !ok {
			t.Errorf("%s: the real resolver on the filtered catalog installs %v (alternatives %v); the model in the whole catalog %v", q.ID, r.Operators, r.Alternatives, q.want)
		}
		if q.beside > 0 {
			providers++
		}
		if len(q.subs) > 1 {
			namespaces++
		}
	}
	if providers == 0 {
		t.Error("no resolution of the sample installs or moves a dependency provider")
	}
	t.Logf("%d resolutions of %d installs (%d with a provider installed before, %d installing or moving one): the real resolver on each install's filtered catalog agrees with the model in the whole catalog",
		len(queries), len(installs), namespaces, providers)
}

func writeDepsOracleInputs(t *testing.T, plans []*Plan, sets [][]*Catalog, queries []depsOracleQuery) {
	root, err := filepath.Abs(*depsOracleInputs)
	if err != nil {
		t.Fatal(err)
	}
	filtered := map[int]map[string]string{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, q := range queries {
		f, ok := filtered[q.install]
		if !ok {
			f = map[string]string{}
			for _, cs := range plans[q.install].Catalogs {
				if len(cs.Packages) > 0 {
					f[cs.Name] = writeFBC(t, root, cs)
				}
			}
			filtered[q.install] = f
		}
		wholes := map[string]string{}
		for _, c := range sets[q.install] {
			if wholes[c.Name], err = filepath.Abs(c.Reference); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Encode(harnessQuery(q, sets[q.install], f, wholes)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "queries.jsonl"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d queries over %d installs' filtered catalogs under %s", len(queries), len(filtered), root)
}

func recordDepsOracle(t *testing.T, queries []depsOracleQuery) {
	data, err := os.ReadFile(filepath.Join(*depsOracleRecord, "answers.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	type op struct {
		Name    string `json:"name"`
		Catalog string `json:"catalog"`
	}
	type alt struct {
		Operators []op `json:"operators"`
	}
	type answer struct {
		ID           string `json:"id"`
		Operators    []op   `json:"operators"`
		Error        string `json:"error"`
		Runs         int    `json:"runs"`
		Alternatives []alt  `json:"alternatives"`
	}
	names := func(ops []op) []string {
		out := []string{}
		for _, o := range ops {
			out = append(out, o.Name+"@"+o.Catalog)
		}
		slices.Sort(out)
		return out
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	i := 0
	for ; sc.Scan(); i++ {
		var a answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		if i >= len(queries) || a.ID != queries[i].ID {
			t.Fatalf("answer %d is for %s, not today's query", i+1, a.ID)
		}
		r := depsOracleLine{ID: a.ID, Operators: names(a.Operators), Error: a.Error, Runs: a.Runs}
		for _, al := range a.Alternatives {
			r.Alternatives = append(r.Alternatives, names(al.Operators))
		}
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	if i != len(queries) {
		t.Fatalf("%d answers for %d queries", i, len(queries))
	}
	if err := os.WriteFile(depsOracleFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
