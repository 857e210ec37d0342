package opcat

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/upgraph/upgraph/catalog/catalogset"
	"github.com/upgraph/upgraph/catalog/source"
	"github.com/upgraph/upgraph/catalog/upgrade"
	"github.com/upgraph/upgraph/registry"
)

// TestLoadAll: the catalogs come back in the order of the reads, a
// source read once for every read of it, each with its own name; the
// error reported is the first read's, in that order, that fails.
func TestLoadAll(t *testing.T) {
	ctx := context.Background()
	dir := catalogDir(t)
	missing := filepath.Join(t.TempDir(), "gone")
	src := func(name, spec string) Arg {
		return Arg{Flag: "catalog", Value: name + "=" + spec, Name: name, Spec: spec}
	}
	tree := Arg{Flag: "catalog", Value: "ocp", Name: "ocp", Tree: true}
	for _, tc := range []struct {
		name      string
		reads     []Read
		wantNames []string
		wantLoads int32 // calls of opts: one per source read
		wantErrAt int
		wantErr   string
	}{
		{name: "one source read once", reads: []Read{{Arg: src("a", dir)}, {Arg: src("b", dir)}, {Arg: src("c", dir)}},
			wantNames: []string{"a", "b", "c"}, wantLoads: 1},
		{name: "first failure in order", reads: []Read{{Arg: src("a", dir)}, {Arg: src("b", missing)}, {Arg: tree}},
			wantErrAt: 1, wantErr: `--catalog: catalog source "` + missing + `": no such file`},
		{name: "a tree catalog without a tree", reads: []Read{{Arg: tree}, {Arg: src("b", missing)}},
			wantErrAt: 0, wantErr: "--catalog ocp: a catalog of a tree, but --source is a graph endpoint, which has no catalogs"},
		{name: "none", wantNames: []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var loads atomic.Int32
			opts := func() (source.Options, error) {
				loads.Add(1)
				return source.Options{Client: &registry.Client{}}, nil
			}
			cats, at, err := LoadAll(ctx, nil, tc.reads, true, opts)
			if tc.wantErr != "" {
				if err == nil || at != tc.wantErrAt || len(errText(err)) < len(tc.wantErr) || errText(err)[:len(tc.wantErr)] != tc.wantErr {
					t.Fatalf("LoadAll = error %v at %d, want %q... at %d", err, at, tc.wantErr, tc.wantErrAt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cats) != len(tc.wantNames) {
				t.Fatalf("%d catalogs, want %d", len(cats), len(tc.wantNames))
			}
			for i, cat := range cats {
				if cat.Name != tc.wantNames[i] || cat.Config != nil || cat.Model.Package("etcd") == nil {
					t.Errorf("catalog %d = %q (config %v), want %q with etcd and no config", i, cat.Name, cat.Config != nil, tc.wantNames[i])
				}
			}
			if n := loads.Load(); n != tc.wantLoads {
				t.Errorf("opts called %d times, want %d", n, tc.wantLoads)
			}
		})
	}
}

// TestMirrorSetArgs: a set's catalogs first, with their priorities, then
// --catalog values; the refusals name the value.
func TestMirrorSetArgs(t *testing.T) {
	dir := catalogDir(t)
	set := &catalogset.Set{Catalogs: []catalogset.Catalog{{Name: "ops", Source: dir, Line: 2, Priority: 3}}}
	for _, tc := range []struct {
		name    string
		set     *catalogset.Set
		values  []string
		want    []string // SetName of each
		wantErr string
	}{
		{name: "a bare source", values: []string{dir}, want: []string{"catalog"}},
		{name: "named", values: []string{"a=" + dir, "ocp"}, want: []string{"a", "ocp"}},
		{name: "set", set: set, want: []string{"ops"}},
		{name: "two bare", values: []string{dir, dir}, wantErr: "--catalog " + dir + ": with several catalogs, name each: NAME=SOURCE"},
		{name: "twice", values: []string{"a=" + dir, "a=" + dir}, wantErr: `--catalog: catalog name "a" given twice`},
		{name: "minors", set: &catalogset.Set{Catalogs: []catalogset.Catalog{{Name: "m", Minors: map[string]string{"v4.22": dir}, Line: 7}}},
			wantErr: "--catalog-set set.yaml: line 7: catalog m: mirror-set needs one source, not minors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, prio, err := MirrorSetArgs("set.yaml", tc.set, tc.values, "")
			if errText(err) != tc.wantErr {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			var got []string
			for _, a := range args {
				got = append(got, a.SetName)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("args %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("args %v, want %v", got, tc.want)
				}
			}
			if tc.set != nil && prio["ops"] != 3 {
				t.Errorf("priority of ops %d, want 3", prio["ops"])
			}
		})
	}
}

// TestFindPath: a path in a catalog for both runtimes, and in a set.
func TestFindPath(t *testing.T) {
	ctx := context.Background()
	dir := catalogDir(t)
	opts := func() (source.Options, error) { return source.Options{Client: &registry.Client{}}, nil }
	a, err := ParseArg("catalog", "ops="+dir, "")
	if err != nil {
		t.Fatal(err)
	}
	set := &catalogset.Set{Catalogs: []catalogset.Catalog{{Name: "ops", Source: dir, Line: 2}}}
	for _, olm := range []upgrade.Runtime{upgrade.V0, upgrade.V1} {
		q := upgrade.Query{Package: "etcd", From: "1.0.0", To: "head", OLM: olm}
		r, err := FindPath(ctx, nil, a, q, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found || r.Catalog != "ops="+dir {
			t.Errorf("FindPath %s: found %v, catalog %q", olm, r.Found, r.Catalog)
		}
		r, err = FindPathInSet(ctx, nil, "set.yaml", set, "", q, "", opts)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Found {
			t.Errorf("FindPathInSet %s: not found", olm)
		}
	}
	q := upgrade.Query{Package: "nope", From: "1.0.0", To: "head", OLM: upgrade.V0}
	if _, err := FindPath(ctx, nil, a, q, opts); err == nil {
		t.Errorf("FindPath of a missing package: no error")
	}
}
