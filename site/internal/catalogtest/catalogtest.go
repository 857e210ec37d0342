// Package catalogtest builds the trees and the catalogd oracle that the
// tests of package site and site/edge compare their catalog answers with.
// It is used by tests only.
package catalogtest

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/generator/graphdata"
	"github.com/upgraph/upgraph/generator/manifest"
	gensource "github.com/upgraph/upgraph/generator/source"
	"github.com/upgraph/upgraph/generator/writer"
)

// Catalog names in the trees Tree writes.
const (
	// Community is the shared real catalog, written by generator.Render
	// (upgraph generate --catalog community=dir:…).
	Community = "community"
	// Fixture is catalog/metas's fixture, which no validation would pass
	// (odd package values, interleaved packages, case-folded keys): its
	// catalogd files alone, added to the tree afterwards with metas.Files,
	// so it is found by its all.jsonl only (not in index.json's catalogs).
	Fixture = "fixture"
)

// root is the repository's root, from this file's path.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// FixtureDir and SharedDir are the FBC roots of the two catalogs.
func FixtureDir() string { return filepath.Join(root(), "catalog", "metas", "testdata", "fbc") }

func SharedDir() string {
	return filepath.Join(root(), "..", "shared", "catalogs", "community-operators-prod-v4.21", "configs")
}

// Tree writes into dir the demo's release graphs (without the viewer)
// and the two catalogs, and returns the oracle of each catalog.
func Tree(ctx context.Context, dir string) (map[string]*Oracle, error) {
	built, err := generator.Build(ctx, &gensource.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
		upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		return nil, err
	}
	src, err := source.Parse("dir:"+SharedDir(), source.Options{})
	if err != nil {
		return nil, err
	}
	shared, info, err := src.Load(ctx)
	if err != nil {
		return nil, err
	}
	community, err := catviews.New(Community, src.String(), info, shared, false)
	if err != nil {
		return nil, err
	}
	if _, err := generator.Render(ctx, built, generator.RenderOptions{
		Store: writer.DirStore{Dir: dir}, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), NoViewer: true,
		Catalogs: []*catviews.Catalog{community},
	}); err != nil {
		return nil, err
	}
	fixture, err := declcfg.LoadFS(ctx, os.DirFS(FixtureDir()))
	if err != nil {
		return nil, err
	}
	extra := map[string][]byte{}
	for _, f := range metas.Files(fixture) {
		extra["operators/"+Fixture+"/"+f.Path] = f.Data
	}
	if err := addFiles(ctx, dir, extra); err != nil {
		return nil, err
	}
	return map[string]*Oracle{Community: NewOracle(community.Config), Fixture: NewOracle(fixture)}, nil
}

// addFiles commits, through writer.DirStore, the tree at dir with extra
// files added and recorded in index.json.
func addFiles(ctx context.Context, dir string, extra map[string][]byte) error {
	m, err := manifest.Read(dir)
	if err != nil {
		return err
	}
	st, err := writer.DirStore{Dir: dir}.Begin(ctx)
	if err != nil {
		return err
	}
	put := func(name string, data []byte) error {
		if err := st.Put(ctx, name, data); err != nil {
			st.Abort()
			return err
		}
		return nil
	}
	for name := range m.Files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err == nil {
			err = put(name, data)
		}
		if err != nil {
			return err
		}
	}
	for name, data := range extra {
		if _, dup := m.Files[name]; dup {
			st.Abort()
			return fmt.Errorf("%s is already in the tree", name)
		}
		if err := put(name, data); err != nil {
			return err
		}
		m.Files[name] = manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
	}
	index, err := m.Encode()
	if err == nil {
		err = put(manifest.FileName, index)
	}
	if err != nil {
		return err
	}
	return st.Commit(ctx)
}

// Oracle answers as catalogd does, rebuilt from its storage code
// (operator-controller internal/catalogd/storage: localdir.go
// storeCatalogData, index.go) on the loaded blobs: the catalog file is
// every blob followed by a newline; the index records each blob's section
// under its schema, package and name when not empty; a query starts from
// every section of the schema (of every schema without one), intersects
// with the package's and the name's sections, and concatenates them in
// file order.
type Oracle struct {
	All                         []byte
	bySchema, byPackage, byName map[string][]section
}

type section struct{ off, n int }

// NewOracle indexes dc's blobs as catalogd stores them.
func NewOracle(dc *declcfg.DeclarativeConfig) *Oracle {
	o := &Oracle{bySchema: map[string][]section{}, byPackage: map[string][]section{}, byName: map[string][]section{}}
	for _, m := range dc.Metas {
		s := section{len(o.All), len(m.Blob) + 1}
		o.All = append(append(o.All, m.Blob...), '\n')
		if m.Schema != "" {
			o.bySchema[m.Schema] = append(o.bySchema[m.Schema], s)
		}
		if m.Package != "" {
			o.byPackage[m.Package] = append(o.byPackage[m.Package], s)
		}
		if m.Name != "" {
			o.byName[m.Name] = append(o.byName[m.Name], s)
		}
	}
	return o
}

// Get is catalogd's index.Get: the blobs of schema, pkg and name, each
// ignored when empty.
func (o *Oracle) Get(schema, pkg, name string) []byte {
	if schema == "" && pkg == "" && name == "" {
		return o.All // catalogd serves the catalog file itself
	}
	set := map[section]bool{}
	if schema == "" {
		for _, ss := range o.bySchema {
			for _, s := range ss {
				set[s] = true
			}
		}
	} else {
		for _, s := range o.bySchema[schema] {
			set[s] = true
		}
	}
	intersect := func(ss []section) {
		keep := map[section]bool{}
		for _, s := range ss {
			if set[s] {
				keep[s] = true
			}
		}
		set = keep
	}
	if pkg != "" {
		intersect(o.byPackage[pkg])
	}
	if name != "" {
		intersect(o.byName[name])
	}
	sections := make([]section, 0, len(set))
	for s := range set {
		sections = append(sections, s)
	}
	slices.SortFunc(sections, func(a, b section) int { return cmp.Compare(a.off, b.off) })
	out := []byte{}
	for _, s := range sections {
		out = append(out, o.All[s.off:s.off+s.n]...)
	}
	return out
}

// Answer is a status and body catalogd gives.
type Answer struct {
	Status int
	Body   []byte
}

// Want is catalogd's answer to a GET of target (path and raw query) on
// the catalogs of oracles, for the routes /catalogs/C/api/v1/all and
// /catalogs/C/api/v1/metas and catalog names the tests use (it does not
// validate names).
func Want(oracles map[string]*Oracle, catalog, endpoint, rawQuery string) Answer {
	o := oracles[catalog]
	if endpoint == "metas" {
		q, _ := url.ParseQuery(rawQuery) // as r.URL.Query(): errors dropped
		for k := range q {
			if k != "schema" && k != "package" && k != "name" {
				return Answer{http.StatusBadRequest, []byte("400 Bad Request\n")}
			}
		}
		if o == nil {
			return Answer{http.StatusNotFound, []byte("404 Not Found\n")}
		}
		return Answer{http.StatusOK, o.Get(q.Get("schema"), q.Get("package"), q.Get("name"))}
	}
	if o == nil {
		return Answer{http.StatusNotFound, []byte("404 Not Found\n")}
	}
	return Answer{http.StatusOK, o.All}
}

// Equal reports whether two bodies are the same bytes.
func Equal(a, b []byte) bool { return bytes.Equal(a, b) }
