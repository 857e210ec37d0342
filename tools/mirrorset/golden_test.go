package mirrorset

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/upgrade"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// goldenCase is the mirror set of installs for runtime olm in the catalog
// dir (a directory of fixtures, or sharedCatalog); name names its golden
// directory.
type goldenCase struct {
	name, dir string
	olm       upgrade.Runtime
	installs  []Install
}

// goldenCases are mirror sets whose output testdata/golden/NAME/ pins:
// the plan (plan.json), the ImageSetConfiguration, the image list and,
// for the hand-made catalogs of ../upgrade/testdata/catalogs (README
// there), the filtered catalog (fbc/). The shared real catalog's filtered
// catalogs carry whole CSVs and are checked by TestSoundnessSharedCatalog
// instead.
var goldenCases = []goldenCase{
	// OLM v0 and v1 need different bundles: v1 lands on the entry v0
	// skips; the deprecation of a dropped bundle and of the dropped
	// channel go with them.
	{"divergence-v0", "divergence", upgrade.V0, []Install{{Package: "div", Channel: "stable", Version: "1.0.0"}}},
	{"divergence-v1", "divergence", upgrade.V1, []Install{{Package: "div", Channel: "stable", Version: "1.0.0"}}},
	// Stranded after a skip: OLM v0 has no path (nothing is planned for
	// it), OLM v1 has one.
	{"stranded-after-skip-v0", "stranded-after-skip", upgrade.V0, []Install{{Package: "skipper", Version: "1.0.0"}}},
	{"stranded-after-skip-v1", "stranded-after-skip", upgrade.V1, []Install{{Package: "skipper", Version: "1.0.0"}}},
	// The runtimes' own refusals (issue 24): OLM v1 refuses needy.v2.0.0
	// (olm.package.required), OLM v0 never installs legacy.v2.0.0
	// (olm.deprecated): no path, nothing planned, the reason given.
	{"refused-v1", "refused", upgrade.V1, []Install{{Package: "needy", Version: "1.0.0"}}},
	{"prohibited-v0", "prohibited", upgrade.V0, []Install{{Package: "legacy", Version: "1.0.0"}}},
	// Skips across channels, several channels kept, one install already
	// at its target, the default channel kept.
	{"cross-channel-v0", "cross-channel", upgrade.V0, []Install{
		{Package: "mq", Channel: "v2.0", Version: "1.0.1"},
		{Package: "mq", Channel: "v1.1", Version: "mq.v1.0.1", Target: "1.1.1"},
		{Package: "mq", Channel: "v1.0", Version: "1.0.1"},
	}},
	// A skipped bundle OLM v1 lands on keeps the entry that skips it.
	{"v1-skipper-v1", "v1-skipper", upgrade.V1, []Install{{Package: "hop", Version: "1.0.0"}}},
	// Two installs of one channel: the chain between their bundles is
	// kept, and the one with a lower target goes on past it.
	{"v1-skipper-v0-union", "v1-skipper", upgrade.V0, []Install{
		{Package: "hop", Version: "1.2.0"},
		{Package: "hop", Version: "1.0.0", Target: "1.1.0"},
	}},
	// The shared real catalog: replaces chain links kept between hops
	// (infinispan stable), a range that also selects the installed
	// bundle (the aws-neuron-operator downgrade edge), a dropped default
	// channel, a target below the head.
	{"real-infinispan-v0", sharedCatalog, upgrade.V0, []Install{{Package: "infinispan", Channel: "stable", Version: "2.4.13"}}},
	{"real-mixed-v0", sharedCatalog, upgrade.V0, []Install{
		{Package: "aws-neuron-operator", Channel: "Fast", Version: "0.1.2"},
		{Package: "clusterpulse", Channel: "fast-v0", Version: "0.2.3"},
		{Package: "slurm-operator", Version: "1.0.0", Target: "1.0.1"},
		{Package: "kube-green", Version: "0.7.1"},
	}},
	// OLM v0 dependencies (issue 25): the topology operator's bundles
	// from 1.14.2 on require rabbitmq-cluster-operator >2.0.0
	// (olm.package.required); OLM v0 installs its head, v2.22.3, beside
	// the path, so the set keeps it (why: dependency), its package in the
	// ImageSetConfiguration and its images.
	{"real-rabbitmq-deps-v0", sharedCatalog, upgrade.V0, []Install{{Package: "rabbitmq-messaging-topology-operator", Version: "1.12.1"}}},
}

func TestGolden(t *testing.T) {
	fbcRoot := t.TempDir()
	var fbcDirs []string
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			dir, plan := tc.compute(t)
			got := map[string][]byte{}
			// The reference is the directory read: make it stable.
			for _, cs := range plan.Catalogs {
				cs.Reference = "dir:" + filepath.Base(tc.dir)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(plan); err != nil {
				t.Fatal(err)
			}
			got["plan.json"] = b.Bytes()
			got["imageset-config.yaml"] = ImageSetConfiguration(plan, nil)
			got["images.txt"] = Images(plan, nil)
			if dir != sharedCatalog {
				for _, cs := range plan.Catalogs {
					files, err := cs.FBC()
					if err != nil {
						t.Fatal(err)
					}
					for _, f := range files {
						got["fbc/"+f.Path] = f.Data
					}
				}
			}
			for _, cs := range plan.Catalogs {
				if len(cs.Packages) > 0 {
					fbcDirs = append(fbcDirs, writeFBC(t, fbcRoot, cs))
				}
			}
			checkGoldenDir(t, filepath.Join("testdata", "golden", tc.name), got)
			// Every filtered catalog here is valid and replays (Compute
			// checked it); say it again from the files.
			for _, cs := range plan.Catalogs {
				m, err := cs.Filtered(context.Background())
				if err != nil || !m.Valid() {
					t.Errorf("filtered catalog %s: %v %v", cs.Name, err, m.Problems)
				}
			}
		})
	}
	// operator-registry's verdict on each filtered catalog.
	for dir, v := range oracleVerdicts(t, fbcDirs) {
		if v.LoadError != "" || v.Verdict == nil || !v.Verdict.Valid {
			t.Errorf("operator-registry rejects %s: %s %+v", dir, v.LoadError, v.Verdict)
		}
	}
	if len(fbcDirs) == 0 {
		t.Error("no filtered catalog checked")
	}
}

// compute returns the catalog directory tc reads and tc's plan.
func (tc goldenCase) compute(t *testing.T) (dir string, plan *Plan) {
	t.Helper()
	dir = tc.dir
	if dir != sharedCatalog {
		dir = filepath.Join(fixtures, dir)
	}
	cat := loadCatalog(t, filepath.Base(tc.dir), dir)
	plan, err := Compute([]*Catalog{cat}, tc.installs, tc.olm)
	if err != nil {
		t.Fatal(err)
	}
	return dir, plan
}

// checkGoldenDir compares got with the files of dir (go test -update
// rewrites dir).
func checkGoldenDir(t *testing.T, dir string, got map[string][]byte) {
	t.Helper()
	if *update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		for name, data := range got {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	want := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		want[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	for name, data := range got {
		if w, ok := want[name]; !ok {
			t.Errorf("%s/%s: missing (go test -update writes it)", dir, name)
		} else if !bytes.Equal(w, data) {
			t.Errorf("%s/%s differs (go test -update rewrites it; review the difference):\n--- got\n%s\n--- want\n%s", dir, name, data, w)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s/%s: not written any more", dir, name)
		}
	}
}

// TestConfigMatchesFBC: the typed filtered catalog (Config, what the
// minimality check converts) is the one FBC writes: the same model,
// channel graphs and per-install answers.
func TestConfigMatchesFBC(t *testing.T) {
	for _, tc := range goldenCases {
		_, plan := tc.compute(t)
		for _, cs := range plan.Catalogs {
			a, _ := json.Marshal(struct {
				G, V any
				N    int
			}{cs.Model().Graphs(), cs.Model().InstalledViews(), len(cs.Model().Problems)})
			typed := cs.Config()
			m := modelConvert(typed)
			b, _ := json.Marshal(struct {
				G, V any
				N    int
			}{m.Graphs(), m.InstalledViews(), len(m.Problems)})
			if !bytes.Equal(a, b) {
				t.Errorf("%s: Config and FBC give different catalogs:\n%s\n%s", tc.name, a, b)
			}
		}
	}
}

// TestParseInstalls reads YAML and JSON lists, keeps a version written
// as a YAML number as its text, and refuses what is not a list of
// installs.
func TestParseInstalls(t *testing.T) {
	got, err := ParseInstalls([]byte("- package: a\n  version: 1.10\n  target: head\n- {catalog: c, package: b, channel: stable, version: b.v2.0.0}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Install{{Package: "a", Version: "1.10", Target: "head"}, {Catalog: "c", Package: "b", Channel: "stable", Version: "b.v2.0.0"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, err := ParseInstalls([]byte(`[{"package":"a","version":"1.0.0"}]`)); err != nil || len(got) != 1 {
		t.Errorf("JSON: %+v %v", got, err)
	}
	for _, bad := range []string{"", "x: 1", "- package: a", "- version: 1.0.0", "- package: a\n  version: 1\n  extra: x", "[]", "- package: a\n  version: 1\n---\n- package: b\n  version: 2"} {
		if _, err := ParseInstalls([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		} else if strings.TrimSpace(err.Error()) == "" {
			t.Errorf("%q: empty error", bad)
		}
	}
}

// TestParseInstallsMessages: refusals say what is wrong in YAML terms,
// with the line, never a Go type; the keys listed are the ones taken.
func TestParseInstallsMessages(t *testing.T) {
	planKeys := []string{"package", "channel", "version"}
	for _, tc := range []struct {
		in   string
		keys []string
		want string
	}{
		{"- package: a\n  version: 1\n  extra: x\n", InstallKeys, `entry 1: line 3: unknown key "extra" (the keys are catalog, package, channel, version, target)`},
		{"package: a\nversion: 1\n", InstallKeys, "line 1: a mapping, not a list: want a YAML or JSON list of {catalog, package, channel, version, target}"},
		{"- [a, b]\n", InstallKeys, "entry 1: line 1: a list, not a mapping"},
		{"- package: a\n  version: {x: 1}\n", InstallKeys, "entry 1: line 2: version is a mapping, want a string"},
		{"- package: a\n  version: 1\n  namespace: x\n", planKeys, `entry 1: line 3: unknown key "namespace" (the keys are package, channel, version)`},
		{"x: 1", planKeys, "want a YAML or JSON list of {package, channel, version}"},
		{"- package: a\n  version: 1\n- package: b\n  version: 1\n- {version: 1, package: a}\n", InstallKeys,
			"entry 3 (line 5): the same install as line 1 (a 1 → head): list it once"},
		{"- package: a\n  package: b\n  version: 1\n", InstallKeys, "line 2: package given again (first on line 1)"},
		{"- version: 1\n", InstallKeys, "entry 1 (line 1): no package"},
	} {
		_, err := ParseInstallsWith([]byte(tc.in), tc.keys)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		} else if strings.Contains(err.Error(), "mirrorset.") || strings.Contains(err.Error(), "!!") {
			t.Errorf("%q: %v names a Go type or a YAML tag", tc.in, err)
		}
	}
	// The same package at another version is another install (two
	// namespaces).
	if got, err := ParseInstalls([]byte("- {package: a, version: 1}\n- {package: a, version: 2}\n")); err != nil || len(got) != 2 {
		t.Errorf("two versions of a package: %v %v", got, err)
	}
}

func modelConvert(cfg *declcfg.DeclarativeConfig) *model.Catalog { return model.Convert(cfg) }
