package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/internal/bundletest"
	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/service"
)

// serviceProc is upgraph service running as a process.
type serviceProc = listeningProc

// startService runs upgraph service with args and env in dir, and waits
// until it listens.
func startService(t *testing.T, dir string, env []string, args ...string) *serviceProc {
	t.Helper()
	p := startListening(t, dir, env, append([]string{"service", "--listen", "127.0.0.1:0"}, args...)...)
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// get answers GET addr+path: status and body ("" and 0 when the server
// does not answer).
func (p *listeningProc) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(p.addr + path)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// versions are the versions of the channel's graph for arch.
func (p *listeningProc) versions(t *testing.T, channel, arch string) []string {
	t.Helper()
	code, body := p.get(t, "/api/upgrades_info/graph?channel="+channel+"&arch="+arch)
	if code != http.StatusOK {
		return nil
	}
	var g struct{ Nodes []struct{ Version string } }
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatalf("graph %s %s: %v", channel, arch, err)
	}
	var vs []string
	for _, n := range g.Nodes {
		vs = append(vs, n.Version)
	}
	slices.Sort(vs)
	return vs
}

// metric is the value of one series of /metrics (-1 when absent).
func (p *listeningProc) metric(t *testing.T, series string) float64 {
	t.Helper()
	if v, ok := readMetrics(p.addr)[series]; ok {
		return v
	}
	return -1
}

// refreshes counts the refreshes that ended, whatever their result.
func (p *listeningProc) refreshes(t *testing.T) float64 {
	var n float64
	for _, r := range []string{service.Generated, service.Unchanged, service.Refused, service.Failed} {
		n += max(0, p.metric(t, `upgraph_refresh_total{result="`+r+`"}`))
	}
	return n
}

// waitFor polls cond until it holds, failing after a minute.
func (p *listeningProc) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute, still not %s\nservice log:\n%s", what, p.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// untilNext waits until cond holds and checks it took at most two
// refreshes once the change was made: the one under way when it was made
// may have read the input before it, the next one must see it. That is
// "within one interval plus the generation time", counted in refreshes
// rather than seconds.
func (p *listeningProc) untilNext(t *testing.T, what string, cond func() bool) {
	t.Helper()
	before := p.refreshes(t)
	p.waitFor(t, what, cond)
	if after := p.refreshes(t); after-before > 2 {
		t.Errorf("%s took %v refreshes, want at most 2", what, after-before)
	}
}

// pushGraphDataFiles pushes the demo graph-data, with the files given
// replaced (content) or removed (""), as a one-layer image.
func pushGraphDataFiles(t *testing.T, ref string, changes map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	fsys := upgraph.DemoGraphData()
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files[p], err = fs.ReadFile(fsys, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, content := range changes {
		if content == "" {
			delete(files, p)
		} else {
			files[p] = []byte(content)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	})
	for _, p := range names {
		tw.WriteHeader(&tar.Header{Name: "graph-data/" + p, Mode: 0o644, Size: int64(len(files[p])), Typeflag: tar.TypeReg})
		tw.Write(files[p])
	}
	tw.Close()
	var layer v1.Layer = static.NewLayer(buf.Bytes(), types.DockerUncompressedLayer)
	return rt.Push(t, ref, rt.Image(t, "amd64", false, layer))
}

// TestService runs upgraph service against a real registry (behind a
// proxy that counts requests and injects an outage) and a real S3 server,
// and changes each input while it serves: a release pushed, a graph-data
// image and a catalog image pushed under the same tag, a graph-data
// change that would shrink the graph, a registry outage, and kill -9.
func TestService(t *testing.T) {
	reg := rt.Start(t)
	proxy := rt.NewProxy(t, reg.Host)
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	os.Mkdir(docs, 0o755)
	repo := reg.Host + "/ocp/release"

	// Every demo release but 4.16.2 for amd64, which comes later.
	tags, lateImage := pushDemoExcept(t, repo, docs, "4.16.2+amd64")
	late := tags["4.16.2+amd64"]
	gdRef := reg.Host + "/ocp/graph-data:latest"
	pushGraphDataFiles(t, gdRef, nil)
	catDir := smallCatalog(t, filepath.Join(work, "catalog"), []string{"alpha"}, nil)
	catRef := reg.Host + "/catalogs/demo:v1"
	rt.Push(t, catRef, catalogImage(t, catDir))

	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	env := append(s3Env(work, srv), "SOURCE_DATE_EPOCH=")
	via := func(ref string) string { return strings.Replace(ref, reg.Host, proxy.Host, 1) }
	args := []string{"--releases", via(repo), "--payload-repo", repo, "--graph-data-image", via(gdRef),
		"--catalog", "demo=" + via(catRef), "--data", "data", "--interval", "200ms",
		"--publish", "s3://" + bucket + "/graphs", "--endpoint", srv.URL, "--path-style", "--region", s3test.Region}
	p := startService(t, work, env, args...)
	outer := t

	p.waitFor(t, "ready", func() bool { code, _ := p.get(t, "/readyz"); return code == http.StatusOK })
	if got := p.versions(t, "candidate-4.16", "amd64"); slices.Contains(got, "4.16.2") || !slices.Contains(got, "4.16.1") {
		t.Fatalf("first generation, candidate-4.16 amd64: %v, want 4.16.1 and not yet 4.16.2", got)
	}
	if p.metric(t, `upgraph_input_up{input="releases"}`) != 1 || p.metric(t, `upgraph_input_up{input="graph-data"}`) != 1 ||
		p.metric(t, `upgraph_input_up{input="catalog/demo"}`) != 1 {
		_, m := p.get(t, "/metrics")
		t.Fatalf("inputs not all up:\n%s", m)
	}
	// object is a published object's body ("" while it does not exist:
	// a publish may be under way).
	object := func(key string) string {
		out, err := srv.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
		if err != nil {
			return ""
		}
		defer out.Body.Close()
		body, _ := io.ReadAll(out.Body)
		return string(body)
	}
	published := func() bool {
		index, err := os.ReadFile(filepath.Join(work, "data/tree/index.json"))
		return err == nil && object("graphs/index.json") == string(index)
	}
	p.waitFor(t, "published", published)

	t.Run("release pushed", func(t *testing.T) {
		rt.Push(t, repo+":"+late, lateImage)
		p.untilNext(t, "serving 4.16.2 for amd64", func() bool {
			return slices.Contains(p.versions(t, "candidate-4.16", "amd64"), "4.16.2")
		})
		p.waitFor(t, "published with 4.16.2", func() bool {
			return published() && strings.Contains(object("graphs/graph/amd64/candidate-4.16.json"), `"4.16.2"`)
		})
	})
	t.Run("graph-data image changed", func(t *testing.T) {
		stable := "name: stable-4.16\nversions:\n- 4.15.0\n- 4.15.1\n- 4.15.2\n- 4.16.0\n- 4.16.1\n- 4.16.2\n"
		pushGraphDataFiles(t, gdRef, map[string]string{"channels/stable-4.16.yaml": stable})
		p.untilNext(t, "serving 4.16.2 in stable-4.16", func() bool {
			return slices.Contains(p.versions(t, "stable-4.16", "arm64"), "4.16.2")
		})
	})
	t.Run("catalog image pushed under the same tag", func(t *testing.T) {
		write(t, filepath.Join(catDir, "alpha/catalog.json"), smallPackage("alpha", goodEntries("alpha"))+
			bundleLine("alpha", "1.3.0")+"\n"+
			`{"schema":"olm.channel","name":"fast","package":"alpha","entries":[{"name":"alpha.v1.3.0","skipRange":">=1.0.0 <1.3.0"}]}`+"\n")
		rt.Push(t, catRef, catalogImage(t, catDir))
		p.untilNext(t, "serving alpha.v1.3.0", func() bool {
			_, body := p.get(t, "/catalogs/demo/api/v1/all")
			return strings.Contains(body, "alpha.v1.3.0")
		})
	})

	servedNow := func() string { _, body := p.get(t, "/graph?channel=stable-4.16&arch=amd64"); return body }
	t.Run("shrinking graph-data refused", func(t *testing.T) {
		before := servedNow()
		refused := p.metric(t, `upgraph_refresh_total{result="refused"}`)
		// Only one channel left of twelve channel × arch graphs.
		drop := map[string]string{}
		for _, ch := range []string{"candidate-4.15", "candidate-4.16", "fast-4.15", "fast-4.16", "stable-4.15"} {
			drop["channels/"+ch+".yaml"] = ""
		}
		digest := pushGraphDataFiles(t, gdRef, drop)
		p.waitFor(t, "refused", func() bool { return p.metric(t, `upgraph_refresh_total{result="refused"}`) > refused })
		if got := servedNow(); got != before {
			t.Errorf("after the refusal, stable-4.16 is no longer what it was")
		}
		if code, _ := p.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("/readyz %d after a refusal, want 200", code)
		}
		if !strings.Contains(p.stderr.String(), "much smaller") {
			t.Errorf("the refusal is not logged with its reason:\n%s", p.stderr)
		}
		_, m := p.get(t, "/metrics")
		if !strings.Contains(m, digest) {
			t.Errorf("/metrics does not show the refused graph-data digest %s", digest)
		}
		// Back to the previous graph-data: the same digest as served, so
		// nothing is generated.
		generated := p.metric(t, `upgraph_refresh_total{result="generated"}`)
		stable := "name: stable-4.16\nversions:\n- 4.15.0\n- 4.15.1\n- 4.15.2\n- 4.16.0\n- 4.16.1\n- 4.16.2\n"
		pushGraphDataFiles(t, gdRef, map[string]string{"channels/stable-4.16.yaml": stable})
		unchanged := p.metric(t, `upgraph_refresh_total{result="unchanged"}`)
		p.waitFor(t, "unchanged again", func() bool { return p.metric(t, `upgraph_refresh_total{result="unchanged"}`) > unchanged+1 })
		if got := p.metric(t, `upgraph_refresh_total{result="generated"}`); got != generated {
			t.Errorf("restoring the served graph-data generated %v times, want 0", got-generated)
		}
	})
	t.Run("registry outage", func(t *testing.T) {
		before := servedNow()
		proxy.Inject(rt.Fault{Kind: rt.Status, Code: 503})
		p.waitFor(t, "releases down", func() bool { return p.metric(t, `upgraph_input_up{input="releases"}`) == 0 })
		failed := p.metric(t, `upgraph_refresh_total{result="failed"}`)
		if failed < 1 || p.metric(t, `upgraph_input_errors_total{input="releases"}`) < 1 {
			t.Errorf("outage: %v failed refreshes, want some", failed)
		}
		if code, _ := p.get(t, "/readyz"); code != http.StatusOK {
			t.Errorf("/readyz %d during the outage, want 200: a replica with a generation keeps serving", code)
		}
		if got := servedNow(); got != before {
			t.Errorf("during the outage the answer changed")
		}
		proxy.ClearFaults()
		p.waitFor(t, "releases up again", func() bool { return p.metric(t, `upgraph_input_up{input="releases"}`) == 1 })
	})
	t.Run("kill -9 and restart", func(t *testing.T) {
		before := servedNow()
		p.cmd.Process.Signal(syscall.SIGKILL)
		p.cmd.Wait()
		proxy.Reset()
		p = startService(outer, work, env, args...) // outlives the subtest
		// Served from DIR/tree before any refresh.
		if code, _ := p.get(t, "/readyz"); code != http.StatusOK {
			t.Fatalf("/readyz %d right after the restart, want 200", code)
		}
		if got := servedNow(); got != before {
			t.Fatalf("after the restart the answer changed")
		}
		p.waitFor(t, "a refresh", func() bool { return p.refreshes(t) >= 1 })
		if got := p.metric(t, `upgraph_refresh_total{result="unchanged"}`); got < 1 {
			t.Errorf("the first refresh after the restart: %v unchanged, want 1", got)
		}
		c := proxy.Counts()
		if c.BlobGETs != 0 || c.ManifestGETs != 0 {
			t.Errorf("after the restart: %d blob GETs and %d manifest GETs, want none (one HEAD per tag)\n%s",
				c.BlobGETs, c.ManifestGETs, strings.Join(proxy.Paths(), "\n"))
		}
		if c.ManifestHEADs < len(tags)-1 {
			t.Errorf("after the restart: %d manifest HEADs, want one per tag (%d)", c.ManifestHEADs, len(tags))
		}
	})
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("service after SIGTERM: %v\n%s", err, p.stderr)
	}
}

// TestServiceFlags: each mistake is refused before anything starts,
// naming the flag and the value.
func TestServiceFlags(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "afile"), "x")
	write(t, filepath.Join(work, "other/tree/file"), "x")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--data", "d", "--graph-data-image", "r.example/gd:1"}, "--releases is required"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release"}, "--graph-data-image is required"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1", "--graph-data", "gd"}, "give one"},
		{[]string{"--data", "d", "--releases", "UPPER/x", "--graph-data-image", "r.example/gd:1"}, "--releases"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1", "--interval", "0s"}, "--interval 0s"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data", "missing"}, "--graph-data"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1", "--publish", "http://x"}, "--publish"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1", "--catalog", "x"}, `--catalog "x"`},
		{[]string{"--data", "afile", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1"}, "--data"},
		{[]string{"--data", "other", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1"}, "--data other"},
		{[]string{"--data", "d", "--releases", "r.example/ocp/release", "--graph-data-image", "r.example/gd:1", "--listen", "nope"}, "--listen"},
	}
	for _, c := range cases {
		_, stderr, code := run(t, work, nil, append([]string{"service"}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("service %v: exit %d, stderr %q, want an error with %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "d")); err == nil {
		t.Errorf("a refused service created --data")
	}
	if entries, _ := os.ReadDir(filepath.Join(work, "other/tree")); len(entries) != 1 {
		t.Errorf("a refused service changed --data other: %v", entries)
	}
}

// TestServiceDirectories: graph-data and a catalog from directories are
// followed by their content, as images are by their digest.
func TestServiceDirectories(t *testing.T) {
	reg := rt.Start(t)
	work := t.TempDir()
	docs := filepath.Join(work, "docs")
	os.Mkdir(docs, 0o755)
	repo := reg.Host + "/ocp/release"
	pushDemo(t, repo, docs)
	gd := filepath.Join(work, "graph-data")
	bundletest.CopyTree(t, "../../testdata/demo/graph-data", gd)
	catDir := smallCatalog(t, filepath.Join(work, "catalog"), []string{"alpha"}, nil)
	p := startService(t, work, []string{"SOURCE_DATE_EPOCH="}, "--releases", repo, "--graph-data", gd,
		"--catalog", "demo="+catDir, "--data", "data", "--interval", "100ms")
	p.waitFor(t, "ready", func() bool { code, _ := p.get(t, "/readyz"); return code == http.StatusOK })
	if got := p.versions(t, "stable-4.16", "amd64"); slices.Contains(got, "4.16.2") {
		t.Fatalf("stable-4.16 has 4.16.2 before graph-data says so: %v", got)
	}
	write(t, filepath.Join(gd, "channels/stable-4.16.yaml"), "name: stable-4.16\nversions:\n- 4.15.0\n- 4.15.1\n- 4.15.2\n- 4.16.0\n- 4.16.1\n- 4.16.2\n")
	p.untilNext(t, "serving 4.16.2 in stable-4.16", func() bool {
		return slices.Contains(p.versions(t, "stable-4.16", "amd64"), "4.16.2")
	})
	write(t, filepath.Join(catDir, "alpha/catalog.json"), smallPackage("alpha", goodEntries("alpha"))+bundleLine("alpha", "1.3.0")+"\n"+
		`{"schema":"olm.channel","name":"fast","package":"alpha","entries":[{"name":"alpha.v1.3.0","skipRange":">=1.0.0 <1.3.0"}]}`+"\n")
	p.untilNext(t, "serving alpha.v1.3.0", func() bool {
		_, body := p.get(t, "/catalogs/demo/api/v1/all")
		return strings.Contains(body, "alpha.v1.3.0")
	})
	// A catalog made invalid is refused with its error; what is served stays.
	write(t, filepath.Join(catDir, "alpha/catalog.json"), smallPackage("alpha", goodEntries("alpha"))+
		`{"schema":"olm.channel","name":"fast","package":"alpha","entries":[{"name":"alpha.v9.9.9"}]}`+"\n")
	p.waitFor(t, "a failed refresh", func() bool { return p.metric(t, `upgraph_refresh_total{result="failed"}`) >= 1 })
	if !strings.Contains(p.stderr.String(), "alpha.v9.9.9") {
		t.Errorf("the catalog's error is not logged:\n%s", p.stderr)
	}
	if _, body := p.get(t, "/catalogs/demo/api/v1/all"); !strings.Contains(body, "alpha.v1.3.0") {
		t.Errorf("after an invalid catalog, the served one changed")
	}
}
