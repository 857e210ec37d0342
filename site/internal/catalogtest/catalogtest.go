// Package catalogtest builds the trees and the catalogd oracle that the
// tests of package site and site/edge compare their catalog answers with.
// It is used by tests only.
package catalogtest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"time"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/catalog/declcfg"
	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/metas/metastest"
	"github.com/upgraph/upgraph/catalog/source"
	catviews "github.com/upgraph/upgraph/catalog/views"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/release/graphdata"
	gensource "github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
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
		Catalogs: []*catviews.Catalog{community}, Precompress: true, // as upgraph generate writes it
	}); err != nil {
		return nil, err
	}
	fixture, err := declcfg.LoadFS(ctx, os.DirFS(FixtureDir()))
	if err != nil {
		return nil, err
	}
	extra := map[string][]byte{}
	for _, f := range metas.Files(fixture) {
		name := "operators/" + Fixture + "/" + f.Path
		extra[name] = f.Data
		if precompress.Wanted(name, len(f.Data)) { // as generate writes them
			extra[precompress.Name(name)] = precompress.Gzip(f.Data)
		}
	}
	if err := addFiles(ctx, dir, extra); err != nil {
		return nil, err
	}
	return map[string]*Oracle{Community: metastest.NewOracle(community.Config), Fixture: metastest.NewOracle(fixture)}, nil
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

// Oracle answers as catalogd does (metastest.Oracle).
type Oracle = metastest.Oracle

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
