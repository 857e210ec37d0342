package opcat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/model"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/registry"
)

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// catalogDir writes a file-based catalog with package etcd (channel
// stable: etcd.v1 replaced by etcd.v2) and returns its directory.
func catalogDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "configs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fbc := `{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}
{"schema":"olm.channel","package":"etcd","name":"stable","entries":[{"name":"etcd.v1"},{"name":"etcd.v2","replaces":"etcd.v1"}]}
{"schema":"olm.bundle","package":"etcd","name":"etcd.v1","image":"quay.io/e/etcd:v1","properties":[{"type":"olm.package","value":{"packageName":"etcd","version":"1.0.0"}}]}
{"schema":"olm.bundle","package":"etcd","name":"etcd.v2","image":"quay.io/e/etcd:v2","properties":[{"type":"olm.package","value":{"packageName":"etcd","version":"2.0.0"}}]}
`
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(fbc), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestParseArg(t *testing.T) {
	dir := catalogDir(t)
	file := filepath.Join(dir, "catalog.json")
	missing := filepath.Join(dir, "missing")
	for _, tc := range []struct {
		name, value string
		want        Arg
		err         string
	}{
		{"tree catalog", "ocp", Arg{Flag: "catalog", Value: "ocp", Name: "ocp", Tree: true}, ""},
		{"named dir", "ops=" + dir, Arg{Flag: "catalog", Value: "ops=" + dir, Name: "ops", Spec: dir}, ""},
		{"named dir with prefix", "ops=dir:" + dir, Arg{Flag: "catalog", Value: "ops=dir:" + dir, Name: "ops", Spec: "dir:" + dir}, ""},
		{"bare dir", dir, Arg{Flag: "catalog", Value: dir, Spec: dir}, ""},
		{"bare file", "file:" + file, Arg{Flag: "catalog", Value: "file:" + file, Spec: "file:" + file}, ""},
		{"image", "ops=quay.io/ops/index:v1", Arg{Flag: "catalog", Value: "ops=quay.io/ops/index:v1", Name: "ops", Spec: "quay.io/ops/index:v1"}, ""},
		{"empty", "", Arg{Flag: "catalog"}, "--catalog: empty value: want a catalog source (" + source.Syntax + ") or a catalog name of the tree at --source"},
		{"no source", "ops=", Arg{Flag: "catalog", Value: "ops="}, `--catalog "ops=": no source after '='`},
		{"dir: of a file", "dir:" + file, Arg{Flag: "catalog", Value: "dir:" + file, Spec: "dir:" + file}, "--catalog " + file + ": not a directory"},
		{"missing dir", "ops=dir:" + missing, Arg{Flag: "catalog", Value: "ops=dir:" + missing, Name: "ops", Spec: "dir:" + missing}, "--catalog: stat " + missing + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArg("catalog", tc.value, "")
			if errText(err) != tc.err {
				t.Errorf("ParseArg(%q) error %q, want %q", tc.value, errText(err), tc.err)
			}
			if got != tc.want {
				t.Errorf("ParseArg(%q) = %+v, want %+v", tc.value, got, tc.want)
			}
		})
	}
}

func TestReadSet(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "catalogs:\n- name: ocp\n  source: ocp\n- name: mirror\n  priority: -10\n  source: quay.io/m/index:v1\n")
	bad := write("bad.yaml", "catalogs:\n- source: ocp\n")
	for _, tc := range []struct {
		name, file, err string
		catalogs        string
	}{
		{"good", good, "", "ocp mirror"},
		{"empty value", "", "--catalog-set: empty value: want a YAML or JSON file (schema/cli/catalog-set.schema.json)", ""},
		{"missing", filepath.Join(dir, "missing.yaml"), "--catalog-set: stat " + filepath.Join(dir, "missing.yaml") + ": no such file or directory", ""},
		{"directory", dir, "--catalog-set " + dir + ": not a regular file", ""},
		{"invalid", bad, "--catalog-set " + bad + ": line 2: catalog 1: no name", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := ReadSet(tc.file)
			if errText(err) != tc.err {
				t.Fatalf("ReadSet(%q) error %q, want %q", tc.file, errText(err), tc.err)
			}
			var names []string
			if set != nil {
				for _, c := range set.Catalogs {
					names = append(names, c.Name)
				}
			}
			if strings.Join(names, " ") != tc.catalogs {
				t.Errorf("ReadSet(%q) catalogs %q, want %q", tc.file, names, tc.catalogs)
			}
		})
	}
}

func TestSetArgAndNeedsTree(t *testing.T) {
	dir := catalogDir(t)
	ocp := &catalogset.Catalog{Name: "ocp", Line: 2, Minors: map[string]string{"v4.21": "ocp-v4-21", "v4.22": dir}}
	mirror := &catalogset.Catalog{Name: "mirror", Line: 5, Source: "quay.io/m/index:v1"}
	set := &catalogset.Set{Catalogs: []catalogset.Catalog{*ocp, *mirror}}

	for _, tc := range []struct {
		name   string
		sc     *catalogset.Catalog
		source string
		want   Arg
	}{
		{"tree catalog", ocp, "ocp-v4-21", Arg{Flag: "catalog-set set.yaml: line 2: catalog", Value: "ocp", Name: "ocp-v4-21", Tree: true}},
		{"dir", ocp, dir, Arg{Flag: "catalog-set set.yaml: line 2: catalog", Value: "ocp", Name: "ocp", Spec: dir}},
		{"image", mirror, mirror.Source, Arg{Flag: "catalog-set set.yaml: line 5: catalog", Value: "mirror", Name: "mirror", Spec: mirror.Source}},
	} {
		got, err := SetArg("set.yaml", tc.sc, tc.source, "")
		if err != nil || got != tc.want {
			t.Errorf("%s: SetArg = %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	// A source that does not check is refused naming the file, line and catalog.
	_, err := SetArg("set.yaml", ocp, "dir:"+filepath.Join(dir, "catalog.json"), "")
	if want := "--catalog-set set.yaml: line 2: catalog ocp " + filepath.Join(dir, "catalog.json") + ": not a directory"; errText(err) != want {
		t.Errorf("SetArg of a file as dir: %q, want %q", errText(err), want)
	}

	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"v4.21", true},  // ocp-v4-21: a catalog of the tree
		{"v4.22", false}, // a directory and an image
		{"v4.23", false}, // ocp has no source there
	} {
		if got := SetNeedsTree(set, tc.key); got != tc.want {
			t.Errorf("SetNeedsTree(%s) = %v, want %v", tc.key, got, tc.want)
		}
	}
}

func TestHomeCatalog(t *testing.T) {
	pkg := &model.Package{Name: "etcd"}
	members := []upgrade.SetMember{{Name: "ocp", Package: pkg}, {Name: "mirror", Priority: -10}, {Name: "community", Package: pkg}}
	only := []upgrade.SetMember{{Name: "ocp"}, {Name: "mirror", Package: pkg}}
	none := []upgrade.SetMember{{Name: "ocp"}, {Name: "mirror"}}
	for _, tc := range []struct {
		name, given string
		members     []upgrade.SetMember
		want, err   string
	}{
		{"given", "mirror", members, "mirror", ""},
		{"given, not in the set", "other", members, "", "--catalog other: not a catalog of --catalog-set set.yaml (it has ocp, mirror, community)"},
		{"the only one", "", only, "mirror", ""},
		{"none", "", none, "", `no catalog of --catalog-set set.yaml has package "etcd" (it has ocp, mirror)`},
		{"several", "", members, "", `package "etcd" is in catalogs ocp, community of --catalog-set set.yaml: name the one its Subscription uses (spec.source) with --catalog NAME`},
	} {
		got, err := HomeCatalog("catalog", tc.given, "set.yaml", tc.members, "etcd")
		if got != tc.want || errText(err) != tc.err {
			t.Errorf("%s: HomeCatalog = %q, %q; want %q, %q", tc.name, got, errText(err), tc.want, tc.err)
		}
	}
}

// TestLoad reads a catalog from its source, and refuses a catalog of a
// tree when there is no tree.
func TestLoad(t *testing.T) {
	ctx := context.Background()
	dir := catalogDir(t)
	opts := func() (source.Options, error) { return source.Options{Client: &registry.Client{}}, nil }
	a, err := ParseArg("catalog", "ops="+dir, "")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := Load(ctx, nil, a, []string{"etcd"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Name != "ops" || cat.Image || cat.Model.Package("etcd") == nil {
		t.Errorf("Load(%s) = name %q, image %v, etcd %v", dir, cat.Name, cat.Image, cat.Model.Package("etcd"))
	}

	tree := Arg{Flag: "catalog", Value: "ocp", Name: "ocp", Tree: true}
	if _, err := Load(ctx, nil, tree, nil, opts); errText(err) != "--catalog ocp: a catalog of a tree, but --source is a graph endpoint, which has no catalogs" {
		t.Errorf("Load of a tree catalog without a tree: %v", err)
	}
	// opts is called only when a source is read.
	called := false
	if _, err := Load(ctx, nil, tree, nil, func() (source.Options, error) { called = true; return opts() }); err == nil || called {
		t.Errorf("Load of a tree catalog called opts: %v (err %v)", called, err)
	}

	set := &catalogset.Set{Catalogs: []catalogset.Catalog{
		{Name: "ops", Source: dir, Line: 2},
		{Name: "later", Minors: map[string]string{"v4.23": dir}, Line: 4, Priority: 5},
	}}
	members, err := LoadSetMembers(ctx, nil, "set.yaml", set, "v4.22", "etcd", "", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 || members[0].Name != "ops" || members[0].Package == nil ||
		members[1].Name != "later" || members[1].Priority != 5 || members[1].Package != nil {
		t.Errorf("LoadSetMembers at v4.22 = %+v, want ops with etcd, later (priority 5) without a source there", members)
	}
}
