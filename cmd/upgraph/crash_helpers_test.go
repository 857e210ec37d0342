package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/tree/manifest"
)

// The crash tests' inputs: the real graph-data, narrowed to a few channels
// and two architectures, with synthesised releases of the minors those
// channels name whose update edges are thinned to the three closest
// predecessors. That keeps a generation at under two thousand files
// written in well under a second on a small machine, so that many kill
// points stay cheap, while the tree keeps the real shape: hundreds of
// directories, per-version graphs shared between channels (hard links),
// files reused from the tree being replaced. Every phase of the commit
// protocol is reached whatever the size; a larger tree only makes each
// kill point dearer (six channels of five architectures, ~4,300 files, and
// more kill points made the four crash tests 700 s of a 25-minute CI run).
//
// generate gets two channels (~1,600 files) that list the same versions,
// so that their per-version graphs are shared; publish one (~650 files),
// as the S3 server takes each object in a few milliseconds. The 4.16
// channels list 4.14 and 4.15 releases too.
const (
	crashGenerateChannels = `^(fast|eus)-4\.16$`
	crashPublishChannels  = `^stable-4\.16$`
	crashArches           = "amd64,s390x"
)

// crashMinors are the minors whose releases the crash tests' inputs hold:
// those the channels above list.
var crashMinors = []string{"4.14.", "4.15.", "4.16."}

// crashGen is one of the two generations the crash tests alternate between.
type crashGen struct {
	name     string
	channels string // --channel
	releases string // metadata:DIR directory
	epoch    string // SOURCE_DATE_EPOCH
	ref      string // reference tree, generated once, uninterrupted
	index    []byte // ref's index.json
	files    map[string]string
	manifest *manifest.Manifest
	sign     string // generate --sign KEYDIR, "" for none
}

// crashInputs writes the release directories of generations A and B under
// base/in, of the crashArches only. B differs from A in the metadata of a
// tenth of the versions (so about a third of the files change) and lacks
// one version in 25 (so files come and go, within the shrink guard's
// 10 %), and has another generation time. The changes go by version, not
// by release, so that they reach every architecture (by release, with
// five architectures a version, every revision fell on ppc64le and every
// removal on multi).
func crashInputs(t *testing.T, base, channels string) (a, b *crashGen) {
	t.Helper()
	all, err := synth.FromGraphData(os.DirFS(realGraphData))
	if err != nil {
		t.Fatal(err)
	}
	var rs []synth.Release
	for _, r := range all {
		if slices.ContainsFunc(crashMinors, func(m string) bool { return strings.HasPrefix(r.Version, m) }) &&
			slices.Contains(strings.Split(crashArches, ","), r.Arch) {
			rs = append(rs, r)
		}
	}
	for i := range rs {
		if n := len(rs[i].Previous); n > 3 {
			rs[i].Previous = rs[i].Previous[n-3:]
		}
	}
	a = &crashGen{name: "A", channels: channels, releases: filepath.Join(base, "in", "releases-a"), epoch: "1700000000"}
	if err := synth.WriteDir(a.releases, rs); err != nil {
		t.Fatal(err)
	}
	var rsB []synth.Release
	v, last := -1, "" // v numbers the versions, rs is sorted by version
	for _, r := range rs {
		if r.Version != last {
			v, last = v+1, r.Version
		}
		if v%25 == 7 {
			continue
		}
		if v%10 == 3 {
			r.Metadata = maps.Clone(r.Metadata)
			r.Metadata[synth.MetadataURL] += "?revised"
		}
		rsB = append(rsB, r)
	}
	b = &crashGen{name: "B", channels: channels, releases: filepath.Join(base, "in", "releases-b"), epoch: "1700003600"}
	if err := synth.WriteDir(b.releases, rsB); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// checkCrashPair wants generation B to lack some of A's files and to
// differ from A in at least a tenth of its own, so that a run from one to
// the other writes, reuses and removes files; it returns how many of B's
// files A does not have with the same bytes.
func checkCrashPair(t *testing.T, a, b *crashGen) int {
	t.Helper()
	differ, gone := 0, 0
	for p, sum := range b.files {
		if a.files[p] != sum {
			differ++
		}
	}
	for p := range a.files {
		if _, ok := b.files[p]; !ok {
			gone++
		}
	}
	if gone == 0 || differ < len(b.files)/10 {
		t.Fatalf("generations A (%d files) and B (%d files) are too alike: %d of A's files gone, %d differ", len(a.files), len(b.files), gone, differ)
	}
	return differ
}

// generateArgs are the arguments of a generation of g into out.
func (g *crashGen) generateArgs(out string) []string {
	gd, _ := filepath.Abs(realGraphData)
	args := []string{"generate", "--releases", "metadata:" + g.releases, "--graph-data", gd,
		"--channel", g.channels, "--arch", crashArches, "--out", out}
	if g.sign != "" {
		// SOURCE_DATE_EPOCH is in 2023: expiries long enough to verify now.
		args = append(args, "--sign", g.sign, "--timestamp-expiry", "87600h", "--targets-expiry", "87600h")
	}
	return args
}

// withoutMetadata drops a signed tree's tuf/ from a treeDigest: its
// versions depend on the generation it replaced.
func withoutMetadata(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, sum := range files {
		if !manifest.IsMetadata(p) {
			out[p] = sum
		}
	}
	return out
}

func (g *crashGen) env() []string { return []string{"SOURCE_DATE_EPOCH=" + g.epoch} }

// generateRef generates g's reference tree into base/ref/NAME/tree and
// records its bytes.
func (g *crashGen) generateRef(t *testing.T, base string) {
	t.Helper()
	g.ref = filepath.Join(base, "ref", g.name, "tree")
	if _, stderr, code := run(t, base, g.env(), g.generateArgs(g.ref)...); code != 0 {
		t.Fatalf("generating %s: exit %d: %s", g.name, code, stderr)
	}
	g.load(t)
}

func (g *crashGen) load(t *testing.T) {
	t.Helper()
	var err error
	if g.index, err = os.ReadFile(filepath.Join(g.ref, manifest.FileName)); err != nil {
		t.Fatal(err)
	}
	if g.manifest, err = manifest.Parse(g.index); err != nil {
		t.Fatal(err)
	}
	g.files = withoutMetadata(treeDigest(t, g.ref))
	if len(g.files) != len(g.manifest.Files)+1 {
		t.Fatalf("reference %s: %d files, index.json lists %d", g.name, len(g.files), len(g.manifest.Files))
	}
}

// crashSeed is the seed of the kill schedules: fixed, so a run is repeated
// by default, and UPGRAPH_TEST_SEED tries another one.
func crashSeed(t *testing.T) *rand.Rand {
	t.Helper()
	seed := uint64(15)
	if s := os.Getenv("UPGRAPH_TEST_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("kill schedule: UPGRAPH_TEST_SEED=%d", seed)
	return rand.New(rand.NewPCG(seed, 15))
}

// spread draws n fractions of [0, 1): one uniformly in each of n equal
// slices, so the points cover the whole run whatever the seed, in a seeded
// random order.
func spread(rng *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = (float64(i) + rng.Float64()) / float64(n)
	}
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// median is the median of ds (which it sorts).
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// killOutcome is how a run started by startKill ended.
type killOutcome struct {
	finished bool          // exited by itself, with code, rather than by SIGKILL
	code     int           // exit code when finished
	ran      time.Duration // from start to exit
	stderr   string
}

// startKill starts cmd and sends it SIGKILL after delay, or as soon as when
// (polled every millisecond) reports true when it is set, or never when
// delay is negative (the run is expected to kill itself); then waits for it.
func startKill(t *testing.T, cmd *exec.Cmd, delay time.Duration, when func() bool) killOutcome {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	selfKill := delay < 0
	if selfKill {
		delay = 2 * time.Minute
	}
	deadline := time.NewTimer(delay)
	defer deadline.Stop()
	var poll <-chan time.Time
	if when != nil {
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		poll = tick.C
	}
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-deadline.C:
			_ = cmd.Process.Signal(syscall.SIGKILL)
			err = <-done
			if selfKill {
				t.Fatalf("the run did not kill itself within %v", delay)
			}
			break wait
		case <-poll:
			if when() {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-done
				break wait
			}
		}
	}
	out := killOutcome{ran: time.Since(start), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
		out.finished = true
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			out.finished, out.code = true, ee.ExitCode()
		}
	default:
		t.Fatal(err)
	}
	return out
}

// fileState identifies an entry closely enough to notice any change: a
// file written in place gets a new modification time, one replaced a new
// inode.
type fileState struct {
	mode  os.FileMode
	size  int64
	mtime time.Time
	inode uint64
	link  string // target of a symbolic link
}

// snapshot records every entry below root for which skip (given the path
// relative to root, slash-separated) is false.
func snapshot(t *testing.T, root string, skip func(rel string) bool) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel != "." && skip != nil && skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		// A directory's own times change with its entries, which are
		// compared one by one.
		st := fileState{mode: info.Mode()}
		if info.Mode().IsRegular() {
			st.size, st.mtime = info.Size(), info.ModTime()
		}
		if sys, ok := info.Sys().(*syscall.Stat_t); ok {
			st.inode = sys.Ino
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			st.link, _ = os.Readlink(p)
		}
		out[rel] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffSnapshots describes what changed between two snapshots ("" if nothing).
func diffSnapshots(before, after map[string]fileState) string {
	lines := diffPaths(before, after, "removed ", "changed ", "created ")
	if len(lines) > 20 {
		lines = append(lines[:20], fmt.Sprintf("... %d more", len(lines)-20))
	}
	return strings.Join(lines, "\n")
}

// diffDigests names the first few paths where two tree digests differ.
func diffDigests(got, want map[string]string) string {
	lines := diffPaths(want, got, "missing ", "differs ", "extra ")
	n := len(lines)
	if n > 10 {
		lines = lines[:10]
	}
	return fmt.Sprintf("%d paths: %s", n, strings.Join(lines, ", "))
}

// diffPaths lists, sorted, the paths of a missing from b, changed between
// them, and of b missing from a, each after its word.
func diffPaths[V comparable](a, b map[string]V, gone, changed, added string) []string {
	var lines []string
	for p, va := range a {
		if vb, ok := b[p]; !ok {
			lines = append(lines, gone+p)
		} else if va != vb {
			lines = append(lines, changed+p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			lines = append(lines, added+p)
		}
	}
	slices.Sort(lines)
	return lines
}

// outputSibling matches what a generation of DIR "out" may keep beside it:
// the lock, a staging tree (or the previous tree after the swap), its
// rename-swap fallback name, trash being removed, and the spare (the
// generation replaced, kept for the next run).
var outputSibling = regexp.MustCompile(`^\.out\.upgraph-(lock|spare|[0-9a-f]{12}(\.old)?|trash-[0-9a-f]{12})$`)

// publishEnv is the environment of `upgraph publish` runs against srv: its
// credentials, and nothing of the developer's AWS configuration or proxies.
func publishEnv(base string, srv *s3test.Server) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "AWS_") || strings.EqualFold(k, "HTTP_PROXY") || strings.EqualFold(k, "HTTPS_PROXY") || strings.EqualFold(k, "NO_PROXY") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"AWS_ACCESS_KEY_ID="+srv.AccessKey, "AWS_SECRET_ACCESS_KEY="+srv.SecretKey,
		"AWS_CONFIG_FILE="+filepath.Join(base, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(base, "no-aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true")
}

// bucketView is what a bucket holds under a prefix, keyed by the path
// below the prefix: the keys as S3 lists them, and each object's sha256.
// Reading every body through S3 after each kill would cost seconds, so the
// bodies are read from the server's storage (versitygw's posix backend
// keeps an object as a file, s3test.Server.Root), which must hold exactly
// the listed keys, and get checks through S3 that a client is served those
// very bytes with a matching x-amz-meta-sha256.
type bucketView struct {
	srv            *s3test.Server
	bucket, prefix string
	sums           map[string]string
}

func readBucket(t *testing.T, srv *s3test.Server, bucket, prefix string) *bucketView {
	t.Helper()
	v := &bucketView{srv: srv, bucket: bucket, prefix: prefix, sums: map[string]string{}}
	listed := map[string]bool{}
	p := s3.NewListObjectsV2Paginator(srv.Client(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: aws.String(prefix + "/")})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("listing %s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			listed[strings.TrimPrefix(*o.Key, prefix+"/")] = true
		}
	}
	root := filepath.Join(srv.Root, bucket, filepath.FromSlash(prefix))
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		sum := sha256.Sum256(data)
		v.sums[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range listed {
		if _, ok := v.sums[k]; !ok {
			t.Fatalf("%s is listed but not in the server's storage", k)
		}
	}
	for k := range v.sums {
		if !listed[k] {
			t.Fatalf("%s is in the server's storage but not listed", k)
		}
	}
	return v
}

// get reads path through S3 and checks that its body is the stored one;
// it returns the object's user metadata and body.
func (v *bucketView) get(t *testing.T, path string) (map[string]string, []byte) {
	t.Helper()
	key := v.prefix + "/" + path
	out, err := v.srv.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: &v.bucket, Key: &key})
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	if sum := manifest.SHA256(body); sum != v.sums[path] {
		t.Fatalf("GET %s: body sha256 %s, the stored object's %s", key, sum, v.sums[path])
	}
	return out.Metadata, body
}

// checkSample GETs n of paths, chosen by rng, and wants each one's
// x-amz-meta-sha256 to be its body's.
func (v *bucketView) checkSample(t *testing.T, rng *rand.Rand, paths []string, n int, what string) {
	t.Helper()
	paths = slices.Clone(paths)
	slices.Sort(paths)
	rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	for _, p := range paths[:min(n, len(paths))] {
		if meta, _ := v.get(t, p); meta["sha256"] != v.sums[p] {
			t.Errorf("%s: %s: x-amz-meta-sha256 %q, body %s", what, p, meta["sha256"], v.sums[p])
		}
	}
}
