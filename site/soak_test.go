//go:build linux

package site_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

// A synthetic tree for the soak test: two architectures, four channels
// of sixty versions each, so 480 per-version files and 8 channel files.
var (
	soakArches   = []string{"amd64", "arm64"}
	soakChannels = []string{"candidate-1.0", "fast-1.0", "stable-1.0", "eus-1.0"}
)

const soakVersions = 60

// soakTree is generation n of the synthetic tree, index.json included.
// Its content cycles through three variants, each changing half the
// per-version files and every channel file, so that bodies change between
// generations and come back.
func soakTree(n int) (map[string][]byte, error) {
	files := map[string][]byte{"index.html": []byte("<!doctype html><title>soak</title>\n")}
	m := &manifest.Manifest{Format: manifest.Format, Generator: "upgraph",
		GeneratedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Minute).Format(time.RFC3339),
		Arches:      soakArches, Channels: soakChannels, Files: map[string]manifest.File{}}
	variant := n % 3
	for _, arch := range soakArches {
		for _, ch := range soakChannels {
			g := manifest.Graph{Channel: ch, Arch: arch, Path: manifest.GraphPath(arch, ch)}
			var nodes []string
			for i := range soakVersions {
				v := fmt.Sprintf("1.0.%d", i)
				g.Versions = append(g.Versions, v)
				mark := 0
				if i%2 == 0 {
					mark = variant
				}
				node := fmt.Sprintf(`{"version":%q,"payload":"quay.io/soak@sha256:%064d","metadata":{"io.openshift.upgrades.graph.release.channels":%q,"variant":"%d"}}`, v, i, ch, mark)
				nodes = append(nodes, node)
				files[fmt.Sprintf("graph/%s/%s/%s.json", arch, ch, v)] = []byte(`{"version":1,"nodes":[` + node + strings.Repeat(" ", 200*i) + `],"edges":[],"conditionalEdges":[]}`)
			}
			files[g.Path] = []byte(`{"version":1,"nodes":[` + strings.Join(nodes, ",") + `],"edges":[],"conditionalEdges":[],"generation":"` + m.GeneratedAt + `"}`)
			g.Nodes = soakVersions
			m.Graphs = append(m.Graphs, g)
		}
	}
	for name, data := range files {
		m.Files[name] = manifest.File{SHA256: manifest.SHA256(data), Size: int64(len(data))}
	}
	m.Counts = manifest.Counts{Releases: soakVersions, Graphs: len(m.Graphs), VersionGraphs: len(m.Graphs) * soakVersions, Files: len(files)}
	index, err := m.Encode()
	files[manifest.FileName] = index
	return files, err
}

// soakKnown holds every content any generation had, by ETag.
type soakKnown struct {
	mu     sync.Mutex
	byETag map[string][]byte // `"<32 hex>"` → sha256 of the content
	sizes  map[string]int64
}

func (k *soakKnown) add(files map[string][]byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, data := range files {
		sum := sha256.Sum256(data)
		etag := `"` + hex.EncodeToString(sum[:16]) + `"`
		k.byETag[etag], k.sizes[etag] = sum[:], int64(len(data))
	}
}

// check reports what is wrong with a 200 or 304 answer, "" if nothing:
// the body (decoded) must be a content of some generation, the one its
// ETag names, and as long as Content-Length says.
func (k *soakKnown) check(res *http.Response, body []byte, head bool) string {
	etag := res.Header.Get("Etag")
	gz := strings.HasSuffix(etag, `-gz"`)
	identity := strings.TrimSuffix(etag, `-gz"`)
	if gz {
		identity += `"`
	}
	k.mu.Lock()
	sum, ok := k.byETag[identity]
	size := k.sizes[identity]
	k.mu.Unlock()
	switch {
	case !ok:
		return "ETag " + etag + " names no content of any generation"
	case res.StatusCode == 304:
		return ""
	case head:
		if !gz && res.ContentLength != size {
			return fmt.Sprintf("HEAD: Content-Length %d, the content of ETag %s has %d bytes", res.ContentLength, etag, size)
		}
		return ""
	case int64(len(body)) != res.ContentLength:
		return fmt.Sprintf("%d bytes, Content-Length %d", len(body), res.ContentLength)
	}
	if gz {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return "gzip body: " + err.Error()
		}
		if body, err = io.ReadAll(zr); err != nil {
			return "gzip body: " + err.Error()
		}
	}
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return "the body is not the content its ETag " + etag + " names"
	}
	return ""
}

// soakLoad is the load generator's tally.
type soakLoad struct {
	requests, errors atomic.Int64
	mu               sync.Mutex
	first            []string // the first errors, for the report
}

func (l *soakLoad) fail(format string, args ...any) {
	l.errors.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.first) < 10 {
		l.first = append(l.first, fmt.Sprintf(format, args...))
	}
}

// run sends mixed requests from one client until stop or max, as a
// cluster fleet and a few browsers would: channel and per-version graphs,
// unknown versions and channels, identity and gzip, HEAD, revalidation,
// /index.json and /readyz. Graph requests have a connection of their own
// (the fast path keeps it); the others go to net/http.
func (l *soakLoad) run(base string, known *soakKnown, seed uint64, stop <-chan struct{}, max int) {
	graphs := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	others := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer graphs.CloseIdleConnections()
	defer others.CloseIdleConnections()
	rnd := rand.New(rand.NewPCG(seed, 1))
	lastETag := map[string]string{}
	for i := 0; i < max; i++ {
		select {
		case <-stop:
			return
		default:
		}
		arch, ch := soakArches[rnd.IntN(2)], soakChannels[rnd.IntN(len(soakChannels))]
		client, method, target, gz := graphs, http.MethodGet, "/graph?arch="+arch+"&channel="+ch, rnd.IntN(2) == 0
		switch k := rnd.IntN(20); {
		case k < 10:
			target += fmt.Sprintf("&version=1.0.%d", rnd.IntN(soakVersions))
		case k < 12:
			target += "&version=9.9.9" // unknown: the channel graph
		case k == 12:
			target = "/graph?channel=nope-9.9" // unknown: the empty graph
		case k == 13:
			method = http.MethodHead
		case k == 14:
			client, target = others, "/index.json"
		case k == 15:
			client, method, target, gz = others, http.MethodGet, "/readyz", false
		}
		req, _ := http.NewRequest(method, base+target, nil)
		if gz {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		key := target + fmt.Sprint(gz)
		if e := lastETag[key]; e != "" && rnd.IntN(4) == 0 {
			req.Header.Set("If-None-Match", e)
		}
		l.requests.Add(1)
		res, err := client.Do(req)
		if err != nil {
			l.fail("%s %s: %v", method, target, err)
			continue
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		switch {
		case err != nil:
			l.fail("%s %s: reading the body: %v", method, target, err)
		case target == "/readyz":
			if res.StatusCode != 200 || string(body) != "ok\n" {
				l.fail("/readyz: %d %q", res.StatusCode, body)
			}
		case res.StatusCode != 200 && res.StatusCode != 304:
			l.fail("%s %s: %d %.200s", method, target, res.StatusCode, body)
		default:
			if problem := known.check(res, body, method == http.MethodHead); problem != "" {
				l.fail("%s %s (gzip %v): %s", method, target, gz, problem)
			}
			lastETag[key] = res.Header.Get("Etag")
		}
	}
}

// TestServeSoak regenerates a served tree of 489 files fifty times while
// clients load the real server (site.Server's fast path, and net/http
// behind it), and wants: every answer right (status, and a body that is
// the content its ETag names, of as many bytes as announced), never more
// than two snapshots at once, and after shutdown no snapshot, no open
// file of a removed one, the disk holding just the tree, and the heap
// back near where it started.
func TestServeSoak(t *testing.T) {
	const (
		regenerations = 50
		workers       = 4
		maxPerWorker  = 100_000 // a bound; the regenerations end the load first
	)
	parent := t.TempDir()
	dir := filepath.Join(parent, "tree")
	known := &soakKnown{byETag: map[string][]byte{}, sizes: map[string]int64{}}
	known.add(map[string][]byte{"empty": []byte(emptyGraph)})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapInuse

	files, err := soakTree(0)
	if err != nil {
		t.Fatal(err)
	}
	known.add(files)
	if err := commitTree(dir, files); err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{VerifyAhead: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Watch(ctx, dir, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &site.Server{Handler: h, Fallback: site.CORS(h), CORS: true, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	load := &soakLoad{}
	stop := make(chan struct{})
	var clients sync.WaitGroup
	for w := range workers {
		clients.Go(func() { load.run("http://"+ln.Addr().String(), known, uint64(w), stop, maxPerWorker) })
	}
	sampler := sampleSnapshots(t, dir)
	start := time.Now()
	for n := 1; n <= regenerations; n++ {
		next, err := soakTree(n)
		if err != nil {
			t.Fatal(err)
		}
		known.add(next) // before it can be served
		if err := commitTree(dir, next); err != nil {
			t.Fatal(err)
		}
		id := manifest.Digest(next[manifest.FileName])
		waitFor(t, fmt.Sprintf("generation %d", n), func() bool { return h.Generation().ID == id })
	}
	close(stop)
	clients.Wait()
	elapsed := time.Since(start)
	// Regenerations replace files, never change them: a file reported as
	// changed would be a false alarm.
	changed := metric(metricsText(t, h), "upgraph_files_changed_total")
	if changed != 0 {
		t.Errorf("upgraph_files_changed_total = %g during regenerations, want 0", changed)
	}

	shut, cancelShut := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelShut()
	if err := srv.Shutdown(shut); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	<-served
	if err := h.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	cancel()
	most := sampler.Stop()

	runtime.GC()
	runtime.ReadMemStats(&ms)
	t.Logf("%d regenerations of a %d-file tree in %v; %d requests (%d connections handed to net/http), %d errors; at most %d snapshots at once; heap in use %d MiB before, %d MiB after",
		regenerations, len(files)-1, elapsed.Round(time.Millisecond), load.requests.Load(), srv.Handoffs(), load.errors.Load(), most, baseline>>20, ms.HeapInuse>>20)
	if n := load.errors.Load(); n > 0 {
		t.Errorf("%d wrong answers, the first:\n%s", n, strings.Join(load.first, "\n"))
	}
	if load.requests.Load() < regenerations {
		t.Errorf("only %d requests: the load did not run", load.requests.Load())
	}
	if most > 2 {
		t.Errorf("%d snapshots at once, want at most 2", most)
	}
	if s := snapshots(t, dir); len(s) != 0 {
		t.Errorf("snapshots left after shutdown: %v", s)
	}
	if ms.HeapInuse > baseline+64<<20 {
		t.Errorf("heap in use %d MiB after shutdown, %d MiB before", ms.HeapInuse>>20, baseline>>20)
	}
	checkOnlyTree(t, parent, dir)
}

// checkOnlyTree: after shutdown, parent holds the tree, the writer's
// lock file and spare (the generation replaced, kept for the next one),
// the disk they use is theirs, and the process keeps
// no descriptor of a file under parent (an unlinked file still open
// would hold its blocks).
func checkOnlyTree(t *testing.T, parent, dir string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(dir) && e.Name() != "."+filepath.Base(dir)+".upgraph-lock" && e.Name() != filepath.Base(writer.SpareName(dir)) {
			t.Errorf("left beside the tree: %s", e.Name())
		}
	}
	if all, tree := diskUse(t, parent), diskUse(t, dir, writer.SpareName(dir)); all != tree {
		t.Errorf("%d bytes of disk under %s, the tree's and the spare's own are %d", all, parent, tree)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd to check open files")
	}
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(target, parent+"/") {
			t.Errorf("descriptor %s still open on %s", fd.Name(), target)
		}
	}
}

// diskUse is the disk the files under roots take, each inode once.
func diskUse(t *testing.T, roots ...string) int64 {
	t.Helper()
	seen := map[uint64]bool{}
	var total int64
	for _, root := range roots {
		if _, err := os.Lstat(root); os.IsNotExist(err) {
			continue
		}
		total += diskUseOf(t, root, seen)
	}
	return total
}

// diskUseOf is diskUse of root, counting no inode of seen (and adding
// those it counts).
func diskUseOf(t *testing.T, root string, seen map[uint64]bool) int64 {
	t.Helper()
	var total int64
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		if !seen[st.Ino] {
			seen[st.Ino] = true
			total += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}
