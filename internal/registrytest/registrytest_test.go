package registrytest

import (
	"archive/tar"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

func release(version string, previous ...string) map[string]any {
	return Doc(version, previous, map[string]string{"url": "https://example.com/errata/" + version})
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s)
	if err != nil {
		t.Fatalf("parsing %q: %v", s, err)
	}
	return r
}

// readMetadata returns the tar entry names of l and the release-metadata body.
func readMetadata(t *testing.T, l v1.Layer) (names []string, meta []byte) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatalf("opening layer: %v", err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names, meta
		}
		if err != nil {
			t.Fatalf("reading layer tar: %v", err)
		}
		names = append(names, hdr.Name)
		if hdr.Name == MetadataPath {
			if meta, err = io.ReadAll(tr); err != nil {
				t.Fatalf("reading %s: %v", MetadataPath, err)
			}
		}
	}
}

func TestBuildersAreDeterministic(t *testing.T) {
	build := func() string {
		meta := MetadataLayer(t, release("4.1.0", "4.0.0"))
		return Digest(t, Index(t, false,
			Image(t, "amd64", false, FillerLayer(t, 1, 1000, false), meta),
			Image(t, "arm64", false, FillerLayer(t, 2, 1000, false), meta)))
	}
	if a, b := build(), build(); a != b {
		t.Fatalf("same spec, different digests: %s vs %s", a, b)
	}
	d1, _ := FillerLayer(t, 1, 1000, false).Digest()
	d2, _ := FillerLayer(t, 2, 1000, false).Digest()
	if d1 == d2 {
		t.Fatalf("filler layers with different seeds share digest %s", d1)
	}
}

func TestMetadataLayer(t *testing.T) {
	doc := release("4.1.0", "4.0.0")
	names, meta := readMetadata(t, MetadataLayer(t, doc))
	if names[len(names)-1] != MetadataPath || len(names) < 3 {
		t.Errorf("default layer should end with %s after filler, got entries %v", MetadataPath, names)
	}
	var got map[string]any
	if err := json.Unmarshal(meta, &got); err != nil {
		t.Fatalf("metadata is not JSON: %v\n%s", err, meta)
	}
	if got["kind"] != "cincinnati-metadata-v0" || got["version"] != "4.1.0" {
		t.Errorf("unexpected metadata %s", meta)
	}

	names, meta = readMetadata(t, MetadataLayer(t, "{not json", MetadataFirst()))
	if names[1] != MetadataPath || string(meta) != "{not json" { // [0] is the directory
		t.Errorf("MetadataFirst with raw doc: entries %v, metadata %q", names, meta)
	}

	small, _ := MetadataLayer(t, doc).Size()
	big, _ := MetadataLayer(t, doc, FillerSize(1<<20)).Size()
	if small > 8<<10 || big < 1<<20 {
		t.Errorf("layer sizes: default %d, FillerSize(1MiB) %d", small, big)
	}
	for _, c := range []struct {
		l    v1.Layer
		want types.MediaType
	}{
		{MetadataLayer(t, doc), types.DockerLayer},
		{MetadataLayer(t, doc, OCI()), types.OCILayer},
		{FillerLayer(t, 1, 10, false), types.DockerLayer},
		{FillerLayer(t, 1, 10, true), types.OCILayer},
	} {
		if mt, _ := c.l.MediaType(); mt != c.want {
			t.Errorf("layer media type %s, want %s", mt, c.want)
		}
	}
}

// TestRoundTrip pushes each manifest flavour and reads it back through the
// proxy, checking media types, digests and what the proxy counted.
func TestRoundTrip(t *testing.T) {
	reg := Start(t)
	px := NewProxy(t, reg.Host)

	meta := MetadataLayer(t, release("4.1.0", "4.0.0"))
	base := FillerLayer(t, 1, 64<<10, false)
	dockerImg := Image(t, "amd64", false, base, meta)
	ociImg := Image(t, "arm64", true, base, meta)

	cases := []struct {
		tag  string
		a    Artifact
		want types.MediaType
	}{
		{"docker", dockerImg, types.DockerManifestSchema2},
		{"oci", ociImg, types.OCIManifestSchema1},
		{"list", Index(t, false, dockerImg, Image(t, "arm64", false, base, meta)), types.DockerManifestList},
		{"ociindex", Index(t, true, Image(t, "amd64", true, base, meta), ociImg), types.OCIImageIndex},
	}
	// Push through the proxy: upload Locations must lead back to it.
	for _, c := range cases {
		Push(t, px.Host+"/ocp/release:"+c.tag, c.a)
	}
	if n := px.Counts().Requests; n == 0 {
		t.Fatalf("pushes did not go through the proxy")
	}

	for _, c := range cases {
		ref := mustRef(t, px.Host+"/ocp/release:"+c.tag)
		wantDigest := Digest(t, c.a)

		px.Reset()
		desc, err := remote.Head(ref)
		if err != nil {
			t.Fatalf("HEAD %s: %v", ref, err)
		}
		if desc.MediaType != c.want || desc.Digest.String() != wantDigest {
			t.Errorf("HEAD %s: %s %s, want %s %s", c.tag, desc.MediaType, desc.Digest, c.want, wantDigest)
		}
		if got := px.Counts(); got.ManifestHEADs != 1 || got.ManifestGETs != 0 {
			t.Errorf("HEAD %s counted %+v; requests %v", c.tag, got, px.Paths())
		}

		px.Reset()
		got, err := remote.Get(ref)
		if err != nil {
			t.Fatalf("GET %s: %v", ref, err)
		}
		if got.MediaType != c.want || got.Digest.String() != wantDigest {
			t.Errorf("GET %s: %s %s, want %s %s", c.tag, got.MediaType, got.Digest, c.want, wantDigest)
		}
		if raw, _ := c.a.RawManifest(); string(got.Manifest) != string(raw) {
			t.Errorf("GET %s: manifest bytes changed in the registry", c.tag)
		}
		if cnt := px.Counts(); cnt.ManifestGETs != 1 || cnt.Bytes < int64(len(got.Manifest)) {
			t.Errorf("GET %s counted %+v; requests %v", c.tag, cnt, px.Paths())
		}
	}

	// The index entries keep their platforms.
	idx, err := remote.Index(mustRef(t, px.Host+"/ocp/release:list"))
	if err != nil {
		t.Fatalf("reading manifest list: %v", err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatalf("parsing manifest list: %v", err)
	}
	if len(im.Manifests) != 2 || im.Manifests[0].Platform.Architecture != "amd64" ||
		im.Manifests[1].Platform.Architecture != "arm64" || im.Manifests[1].Platform.OS != "linux" {
		t.Errorf("manifest list entries: %+v", im.Manifests)
	}

	// A blob GET adds exactly the blob's size to BlobBytes.
	img, err := remote.Image(mustRef(t, px.Host+"/ocp/release:docker"))
	if err != nil {
		t.Fatalf("reading image: %v", err)
	}
	d, _ := meta.Digest()
	size, _ := meta.Size()
	l, err := img.LayerByDigest(d)
	if err != nil {
		t.Fatalf("finding metadata layer: %v", err)
	}
	px.Reset()
	rc, err := l.Compressed()
	if err != nil {
		t.Fatalf("fetching layer: %v", err)
	}
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Fatalf("reading layer: %v", err)
	}
	rc.Close()
	if got := px.Counts(); got.BlobGETs != 1 || got.BlobBytes != size {
		t.Errorf("blob GET counted %+v, want 1 GET of %d bytes; requests %v", got, size, px.Paths())
	}

	px.Reset()
	tags, err := remote.List(mustRef(t, px.Host+"/ocp/release:x").Context())
	if err != nil {
		t.Fatalf("listing tags: %v", err)
	}
	if len(tags) != len(cases) || px.Counts().TagLists != 1 {
		t.Errorf("tags %v, counted %+v", tags, px.Counts())
	}
}

// fixture is a registry holding one image, behind a fresh proxy.
type fixture struct {
	px       *Proxy
	manifest string // URL of the image manifest via the proxy
	blob     string // URL of its metadata layer blob via the proxy
	blobSize int64
}

func newFixture(t *testing.T, reg *Registry) fixture {
	t.Helper()
	meta := MetadataLayer(t, release("4.1.0", "4.0.0"))
	Push(t, reg.Host+"/ocp/release:4.1.0", Image(t, "amd64", false, meta))
	d, _ := meta.Digest()
	size, _ := meta.Size()
	px := NewProxy(t, reg.Host)
	return fixture{
		px:       px,
		manifest: px.URL + "/v2/ocp/release/manifests/4.1.0",
		blob:     px.URL + "/v2/ocp/release/blobs/" + d.String(),
		blobSize: size,
	}
}

func get(t *testing.T, client *http.Client, url string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", string(types.DockerManifestSchema2))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp
}

func TestFaults(t *testing.T) {
	reg := Start(t)

	t.Run("Status", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: Status, Method: http.MethodGet, Path: `/manifests/4\.1\.0$`, Times: 1})
		resp := get(t, http.DefaultClient, f.manifest)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("first GET: %s, want 503", resp.Status)
		}
		resp = get(t, http.DefaultClient, f.manifest)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Docker-Content-Digest") == "" {
			t.Errorf("second GET: %s, Docker-Content-Digest %q", resp.Status, resp.Header.Get("Docker-Content-Digest"))
		}
		if got := f.px.Counts(); got.ManifestGETs != 2 || f.px.Faults() != 1 {
			t.Errorf("counted %+v, %d faults fired", got, f.px.Faults())
		}
	})

	t.Run("TooManyRequests", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: TooManyRequests, Path: `/blobs/`, RetryAfter: 7})
		for range 2 { // Times 0 fires forever
			resp := get(t, http.DefaultClient, f.blob)
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "7" {
				t.Errorf("GET blob: %s, Retry-After %q", resp.Status, resp.Header.Get("Retry-After"))
			}
		}
		f.px.ClearFaults()
		resp := get(t, http.DefaultClient, f.blob)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || f.px.Faults() != 2 || f.px.Counts().BlobBytes != f.blobSize {
			t.Errorf("after ClearFaults: %s, %d faults, counted %+v", resp.Status, f.px.Faults(), f.px.Counts())
		}
	})

	t.Run("Truncate", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: Truncate, Path: `/blobs/`, Bytes: 100})
		resp := get(t, http.DefaultClient, f.blob)
		defer resp.Body.Close()
		if resp.ContentLength != f.blobSize {
			t.Errorf("Content-Length %d, want the full %d", resp.ContentLength, f.blobSize)
		}
		body, err := io.ReadAll(resp.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(body) != 100 {
			t.Errorf("read %d bytes, err %v; want 100 bytes and io.ErrUnexpectedEOF", len(body), err)
		}
		if got := f.px.Counts().BlobBytes; got != 100 {
			t.Errorf("BlobBytes %d, want 100", got)
		}
	})

	t.Run("Stall", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: Stall, Path: `/manifests/`, Times: 1})
		client := &http.Client{Timeout: 500 * time.Millisecond}
		start := time.Now()
		if resp, err := client.Get(f.manifest); err == nil {
			resp.Body.Close()
			t.Fatalf("stalled GET answered %s", resp.Status)
		}
		if d := time.Since(start); d < 400*time.Millisecond {
			t.Errorf("stalled GET failed after only %s", d)
		}
		// A client that never gives up must not keep Close waiting.
		f.px.Inject(Fault{Kind: Stall, Path: `/manifests/`})
		errc := make(chan error, 1)
		go func() {
			resp, err := http.Get(f.manifest)
			if err == nil {
				resp.Body.Close()
			}
			errc <- err
		}()
		waitFor(t, func() bool { return f.px.Faults() == 2 })
		start = time.Now()
		f.px.Close()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Close with a stalled request took %s", d)
		}
		if err := <-errc; err == nil {
			t.Errorf("stalled request succeeded after Close")
		}
	})

	t.Run("StallDuration", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: Stall, Path: `/manifests/`, Duration: 200 * time.Millisecond})
		start := time.Now()
		resp := get(t, http.DefaultClient, f.manifest)
		resp.Body.Close()
		if d := time.Since(start); resp.StatusCode != http.StatusOK || d < 200*time.Millisecond {
			t.Errorf("slow GET: %s after %s", resp.Status, d)
		}
	})

	t.Run("StallBody", func(t *testing.T) {
		f := newFixture(t, reg)
		f.px.Inject(Fault{Kind: StallBody, Path: `/blobs/`, Bytes: 10})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.blob, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("headers should arrive before the stall: %v", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil || len(body) != 10 || resp.StatusCode != http.StatusOK {
			t.Errorf("%s, read %d bytes, err %v; want 10 bytes then a timeout", resp.Status, len(body), err)
		}
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("condition not met within 5s")
}

func TestStartIsIndependent(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.Host == b.Host {
		t.Fatalf("two registries share %s", a.Host)
	}
	Push(t, a.Host+"/ocp/release:only-a", Image(t, "amd64", false, FillerLayer(t, 3, 10, false)))
	if _, err := remote.Head(mustRef(t, b.Host+"/ocp/release:only-a")); err == nil {
		t.Errorf("image pushed to %s is visible in %s", a.Host, b.Host)
	}
}

// TestLaunchRejectsTakenPort covers losing the port race: a server already
// answering 200 on the port must not be mistaken for our registry.
func TestLaunchRejectsTakenPort(t *testing.T) {
	impostor := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer impostor.Close()
	dir := t.TempDir()
	host := strings.TrimPrefix(impostor.URL, "http://")
	_, err := launch(t, findBinary(t), dir, filepath.Join(dir, "storage"), host, 0)
	if !errors.Is(err, errAddrInUse) {
		t.Fatalf("launch on a taken port: %v, want errAddrInUse", err)
	}
}

// The registry .ci/deps installs is the one the tests insist on.
func TestDepsInstallRegistryd(t *testing.T) {
	deps, err := os.ReadFile("../../.ci/deps")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("registryd/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	name, version, _ := strings.Cut(RegistryVersion, " ")
	if !strings.Contains(string(mod), "require "+name+" "+version+"\n") {
		t.Errorf("registryd/go.mod does not require %s", RegistryVersion)
	}
	for _, want := range []string{"internal/registrytest/registryd", RegistryVersion} {
		if !strings.Contains(string(deps), want) {
			t.Errorf(".ci/deps does not mention %q", want)
		}
	}
}
