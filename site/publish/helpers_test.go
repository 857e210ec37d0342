package publish_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
	"github.com/upgraph/upgraph/tree/writer"
)

// d4160amd is the payload digest of the demo's 4.16.0+amd64, a release every
// demo tree serves: signatures for it land in the tree.
const d4160amd = "sha256:c5e6fcac0d4fa91794b846d0f3f87600dab240f6490f0865684206954fee6761"

// spec describes a tree generated from the demo inputs.
type spec struct {
	// edit changes the demo release documents (file name → JSON).
	edit     func(t testing.TB, releases fstest.MapFS)
	channels string // regexp of channels to render ("": all)
	arches   []string
	// sigs adds release signatures for 4.16.0+amd64 (signature-1..N).
	sigs []string
	// gzip adds a precompressed copy of the amd64 fast-4.16 channel graph,
	// listed in index.json as a tree that was post-processed would.
	gzip bool
}

// generate renders a real tree, as `upgraph generate` does, into a new
// directory. Trees of equal specs are byte-identical.
func generate(t testing.TB, sp spec) string {
	t.Helper()
	ctx := context.Background()
	releases := fstest.MapFS{}
	err := fs.WalkDir(upgraph.DemoReleases(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoReleases(), p)
		releases[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if sp.edit != nil {
		sp.edit(t, releases)
	}
	built, err := generator.Build(ctx, &source.MetadataDir{Dir: "demo", FS: releases}, upgraph.DemoGraphData(),
		generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.sigs) > 0 {
		var list [][]byte
		for _, s := range sp.sigs {
			list = append(list, []byte(s))
		}
		built.Signatures = map[string][][]byte{d4160amd: list}
	}
	ro := generator.RenderOptions{Arches: sp.arches, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Workers: 2}
	if sp.channels != "" {
		ro.Channels = regexp.MustCompile(sp.channels)
	}
	dir := filepath.Join(t.TempDir(), "tree")
	ro.Store = writer.DirStore{Dir: dir}
	if _, err := generator.Render(ctx, built, ro); err != nil {
		t.Fatal(err)
	}
	if sp.gzip {
		addGzip(t, dir, "graph/amd64/fast-4.16.json")
	}
	return dir
}

// addGzip writes name.gz next to name and lists it in index.json.
func addGzip(t testing.TB, dir, name string) {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(filepath.Join(dir, name+".gz"), gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Files[name+".gz"] = manifest.File{SHA256: manifest.SHA256(gz.Bytes()), Size: int64(gz.Len())}
	m.Counts.Files++
	m.Counts.Bytes += int64(gz.Len())
	index, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	// index.json is its own file (never a hard link), so rewriting it in
	// place touches nothing else.
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), index, 0o644); err != nil {
		t.Fatal(err)
	}
}

// setURL changes the errata URL of one release document: a one-release
// change, as when graph-data or a release's metadata is corrected.
func setURL(file, url string) func(testing.TB, fstest.MapFS) {
	return func(t testing.TB, fsys fstest.MapFS) {
		f := fsys[file]
		if f == nil {
			t.Fatalf("no demo release %s", file)
		}
		re := regexp.MustCompile(`"url": "[^"]*"`)
		if !re.Match(f.Data) {
			t.Fatalf("%s has no url", file)
		}
		f.Data = re.ReplaceAll(f.Data, []byte(`"url": "`+url+`"`))
	}
}

// drop removes release documents.
func drop(files ...string) func(testing.TB, fstest.MapFS) {
	return func(t testing.TB, fsys fstest.MapFS) {
		for _, f := range files {
			delete(fsys, f)
		}
	}
}

// env is one S3 server behind a counting proxy; each test gets its own.
type env struct {
	srv    *s3test.Server
	proxy  *s3test.Proxy
	client *s3.Client // through the proxy, configured as the CLI does
}

func newEnv(t testing.TB) *env {
	t.Helper()
	return attach(t, s3test.Start(t))
}

// fork returns an env on the same server with a proxy of its own, so
// parallel subtests count requests and inject faults independently.
func (e *env) fork(t testing.TB) *env {
	t.Helper()
	return attach(t, e.srv)
}

func attach(t testing.TB, srv *s3test.Server) *env {
	t.Helper()
	p := s3test.NewProxy(t, srv)
	client, err := s3tree.NewClient(context.Background(), s3tree.ClientOptions{
		Endpoint: p.URL, PathStyle: true, Credentials: srv.Credentials(),
		// The CLI's attempts, with short waits so fault tests stay quick.
		MaxBackoff: 5 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return &env{srv: srv, proxy: p, client: client}
}

const prefix = "upgraph/v1"

// opts are the CLI's defaults for publishing dir to bucket under prefix.
func (e *env) opts(dir, bucket string) publish.Options {
	return publish.Options{
		Dir: dir, Client: e.client, Bucket: bucket, Prefix: prefix,
		MaxDeletes: publish.DefaultMaxDeletes, ShrinkThreshold: publish.DefaultShrinkThreshold,
	}
}

// publish publishes and fails the test on error.
func (e *env) publish(t testing.TB, o publish.Options) *publish.Report {
	t.Helper()
	rep, err := publish.Publish(context.Background(), o)
	if err != nil {
		t.Fatalf("publish %s: %v", o.Dir, err)
	}
	return rep
}

// key is the object key of a tree path.
func key(p string) string { return prefix + "/" + p }

// object is what the bucket holds at a key, as compared between runs.
type object struct {
	SHA256, ContentType, CacheControl, ContentEncoding, MetaSHA256 string
}

// state reads every object of the bucket.
func (e *env) state(t testing.TB, bucket string) map[string]object {
	t.Helper()
	out := map[string]object{}
	for k, o := range e.srv.Objects(t, bucket, "") {
		out[k] = object{o.SHA256, o.ContentType, o.CacheControl, o.ContentEncoding, o.Metadata["sha256"]}
	}
	return out
}

// wantHeaders spells out the headers each kind of object must have,
// independently of the rules' code: what `upgraph serve` sends.
func wantHeaders(p string) (contentType, cacheControl, contentEncoding string) {
	switch {
	case p == manifest.FileName:
		return "application/json", "no-cache", ""
	case strings.HasPrefix(p, "signatures/"):
		return "application/octet-stream", "public, max-age=86400", ""
	case strings.HasSuffix(p, ".json.gz"):
		return "application/json", site.DefaultCacheControl, "gzip"
	case strings.HasSuffix(p, ".html"):
		return "text/html; charset=utf-8", site.DefaultCacheControl, ""
	case strings.HasSuffix(p, ".js"):
		return "text/javascript; charset=utf-8", site.DefaultCacheControl, ""
	case strings.HasSuffix(p, ".css"):
		return "text/css; charset=utf-8", site.DefaultCacheControl, ""
	case strings.HasSuffix(p, ".txt"):
		return "text/plain; charset=utf-8", site.DefaultCacheControl, ""
	}
	return "application/json", site.DefaultCacheControl, ""
}

// checkPublished asserts the bucket holds exactly the tree in dir under the
// prefix: every file with its bytes, headers and sha256 metadata, nothing
// else (no journal left behind) but the keys in extra.
func (e *env) checkPublished(t testing.TB, bucket, dir string, extra ...string) {
	t.Helper()
	m, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Collect(maps.Keys(m.Files))
	want = append(want, manifest.FileName)
	objs := e.srv.Objects(t, bucket, prefix+"/")
	for _, p := range want {
		o, ok := objs[key(p)]
		if !ok {
			t.Errorf("%s: missing", key(p))
			continue
		}
		delete(objs, key(p))
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(o.Body, data) {
			t.Errorf("%s: %d bytes differ from the tree's %d", key(p), len(o.Body), len(data))
		}
		ct, cc, ce := wantHeaders(p)
		if o.ContentType != ct || o.CacheControl != cc || o.ContentEncoding != ce {
			t.Errorf("%s: Content-Type %q, Cache-Control %q, Content-Encoding %q; want %q, %q, %q",
				key(p), o.ContentType, o.CacheControl, o.ContentEncoding, ct, cc, ce)
		}
		if o.Metadata["sha256"] != manifest.SHA256(data) {
			t.Errorf("%s: x-amz-meta-sha256 %q, want %s", key(p), o.Metadata["sha256"], manifest.SHA256(data))
		}
	}
	for k := range objs {
		if !slices.Contains(extra, k) {
			t.Errorf("%s: not in the tree", k)
		}
	}
}

// changedPaths lists the tree paths whose content differs between two trees
// (new ones included), and index.json when it differs: what an incremental
// publish from a to b must upload.
func changedPaths(t testing.TB, a, b string) []string {
	t.Helper()
	ma, err := manifest.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := manifest.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p, f := range mb.Files {
		if ma.Files[p] != f {
			out = append(out, p)
		}
	}
	ia, _ := os.ReadFile(filepath.Join(a, manifest.FileName))
	ib, _ := os.ReadFile(filepath.Join(b, manifest.FileName))
	if !bytes.Equal(ia, ib) {
		out = append(out, manifest.FileName)
	}
	slices.Sort(out)
	return out
}

// treePaths turns keys written through the proxy into tree paths, leaving
// out the journal, which is bookkeeping rather than part of the tree.
func treePaths(keys []string) []string {
	var out []string
	for _, k := range keys {
		p := strings.TrimPrefix(k, prefix+"/")
		if p != publish.JournalPath {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// uploadedPaths lists the tree paths the last proxied run really uploaded
// (2xx PUTs since Reset), leaving out its bookkeeping: the journal, and
// the flag on index.json, a copy onto itself the proxy counts as a PUT. The
// flag is the PUT of index.json made before the journal's; the upload of
// index.json comes after it, or alone.
func (e *env) uploadedPaths() []string {
	reqs := e.proxy.Requests()
	journalAt := slices.IndexFunc(reqs, func(r s3test.Request) bool {
		return r.Kind == s3test.PUT && r.Key == key(publish.JournalPath)
	})
	var keys []string
	for i, r := range reqs {
		if r.Kind != s3test.PUT || r.Fault || r.Status < 200 || r.Status > 299 {
			continue
		}
		if r.Key == key(manifest.FileName) && i < journalAt {
			continue
		}
		keys = append(keys, r.Key)
	}
	return treePaths(keys)
}

// interrupt runs a publish that fault f makes fail, and waits until the
// store has done what it was sent: the state an interrupted run leaves.
func (e *env) interrupt(t testing.TB, o publish.Options, f s3test.Fault) {
	t.Helper()
	e.proxy.Inject(f)
	_, err := publish.Publish(context.Background(), o)
	e.proxy.Settle()
	e.proxy.ClearFaults()
	if err == nil {
		t.Fatalf("publish %s through %v succeeded", o.Dir, f)
	}
}

// flagged reports whether index.json carries the publish-in-progress flag.
func (e *env) flagged(t testing.TB, bucket string) bool {
	t.Helper()
	return e.srv.Get(t, bucket, key(manifest.FileName)).Metadata[publish.MetaJournal] != ""
}

// requestsOf publishes and returns the requests the run made.
func (e *env) requestsOf(t testing.TB, o publish.Options) []s3test.Request {
	t.Helper()
	e.proxy.Reset()
	e.publish(t, o)
	return e.proxy.Requests()
}

func actionPaths(as []publish.Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Path)
	}
	slices.Sort(out)
	return out
}

func s3DeleteInput(bucket, key string) *s3.DeleteObjectInput {
	return &s3.DeleteObjectInput{Bucket: &bucket, Key: &key}
}

// staleKeys lists the keys of the files of tree a that tree b lacks: what
// publishing b over a leaves behind without Delete.
func staleKeys(t testing.TB, a, b string) []string {
	t.Helper()
	ma, err := manifest.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	mb, err := manifest.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range ma.Files {
		if _, ok := mb.Files[p]; !ok {
			out = append(out, key(p))
		}
	}
	return out
}
