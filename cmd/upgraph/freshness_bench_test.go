package main

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/blang/semver/v4"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"gopkg.in/yaml.v3"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/internal/syncbuf"
	"github.com/upgraph/upgraph/internal/synth"
	"github.com/upgraph/upgraph/service"
)

// upstreamWorstCase is how long a change can take to reach clusters with
// the OpenShift Update Service: graph-builder's 300 s pause between
// scrapes plus policy-engine's 60 s cache.
const upstreamWorstCase = 360 * time.Second

// freshInterval is the service's --interval.
const freshInterval = time.Second

// freshPushWorkers is how many release images the set-up pushes at a time.
const freshPushWorkers = 12

// BenchmarkFreshness measures how long a change takes to reach clusters
// with upgraph service at real scale: the real graph-data and the
// releases synthesised for every version it names (about 5,800, multi
// payloads as image indexes), pushed as release images to a real registry
// (registryd), a graph-data image, and upgraph service --interval 1s
// publishing to a real S3 server (versitygw), all on loopback.
//
// Each iteration makes two changes:
//
//   - a new release: the amd64 image of the newest version fast-4.Y has
//     and stable-4.Y has not (4.Y the newest minor with both channels),
//     held back from the set-up, is pushed; it must appear in fast-4.Y;
//   - graph-data: the same version is promoted to stable-4.Y in a
//     graph-data image pushed under the same tag.
//
// and times, from the push returning, when the service answers with it
// and when the bucket's copy of the channel's graph has it, with the
// phase times of the refresh that generated it (from /metrics). A change
// is pushed at a moment drawn from one refresh cycle (--interval and an
// unchanged refresh), as a real one lands; the wait for the refresh that
// sees it is reported apart, and so is the worst case: pushed just after
// a refresh listed the tags, seen a cycle later.
//
// -benchtime 1x is the mode (make bench-freshness). Iteration i changes
// the i-th newest such version, so up to their number of iterations can
// run (three with the shared graph-data); as for any benchmark, -benchtime
// Nx with N > 1 runs the set-up twice (b.N = 1 first). The set-up (about
// two minutes of pushing, a cold scrape and a first publish of the whole
// tree) is logged, not timed.
func BenchmarkFreshness(b *testing.B) {
	gd, err := filepath.Abs(realGraphData)
	if err != nil {
		b.Fatal(err)
	}
	setup := time.Now()
	step := time.Now()
	lap := func() time.Duration {
		d := time.Since(step)
		step = time.Now()
		return d.Round(time.Millisecond)
	}

	// Inputs: graph-data's files, its channels, the synthesised releases.
	gdFiles := freshReadTree(b, gd)
	channels := freshChannels(b, gdFiles)
	releases, err := synth.FromGraphData(os.DirFS(gd))
	if err != nil {
		b.Fatal(err)
	}
	amd64 := map[string]bool{}
	for _, r := range releases {
		if r.Arch == synth.ArchAMD64 {
			amd64[r.Version] = true
		}
	}
	minor, candidates := freshCandidates(b, channels, amd64)
	if b.N > len(candidates) {
		b.Fatalf("%d iterations asked for, but only %d versions of fast-%s are not in stable-%s (%v): run with -benchtime 1x",
			b.N, len(candidates), minor, minor, candidates)
	}
	held := candidates[:b.N]
	fastCh, stableCh := "fast-"+minor, "stable-"+minor
	freshSay("%d releases synthesised for %s (%d files); holding back %s for amd64 (in %s, not in %s)",
		len(releases), gd, len(gdFiles), strings.Join(held, ", "), fastCh, stableCh)

	reg := rt.Start(b)
	srv := s3test.Start(b)
	bucket := srv.NewBucket(b)
	freshSay("set-up: registry and S3 server started in %s", lap())

	repo := reg.Host + "/ocp/release"
	heldImages, manifests := freshPushReleases(b, repo, releases, held)
	pushed := lap()
	freshSay("set-up: pushed %d release images (%d manifests, indexes and their per-arch images included) in %s, %d at a time",
		len(releases)-len(held), manifests, pushed, freshPushWorkers)
	gdRef := reg.Host + "/ocp/graph-data:latest"
	freshPushGraphData(b, gdRef, gdFiles)
	freshSay("set-up: pushed the graph-data image in %s", lap())

	work := b.TempDir()
	env := append(s3Env(work, srv), "SOURCE_DATE_EPOCH=")
	p := freshStartService(b, work, env, "--releases", repo, "--graph-data-image", gdRef, "--data", "data",
		"--interval", freshInterval.String(), "--publish", "s3://"+bucket+"/graphs", "--endpoint", srv.URL, "--path-style", "--region", s3test.Region)
	started := time.Now()
	p.waitFor(b, "the first generation served", 20*time.Minute, func() bool { return p.status(b, "/readyz") == http.StatusOK })
	coldServed := time.Since(started)
	var cold map[string]float64
	p.waitFor(b, "the first generation published", 20*time.Minute, func() bool {
		cold = p.metrics(b)
		return cold[`upgraph_refresh_total{result="generated"}`] >= 1 && cold[`upgraph_publish_total{result="ok"}`] >= 1
	})
	coldPublished := time.Since(started)
	freshSay("set-up: cold start: served after %s, published after %s: scrape %.1f s (%.0f tags, %.0f images read), read %.1f s, generate %.1f s, serve %.2f s, publish %.1f s (%.0f objects, %.0f MB)",
		coldServed.Round(time.Millisecond), coldPublished.Round(time.Millisecond),
		cold[freshPhase("scrape")], cold["upgraph_scrape_tags"], cold["upgraph_scrape_inspected"], cold[freshPhase("read")],
		cold[freshPhase("generate")], cold[freshPhase("serve")], cold[freshPhase("publish")],
		cold["upgraph_publish_uploaded_objects"], cold["upgraph_publish_uploaded_bytes"]/1e6)
	var idle map[string]float64
	p.waitFor(b, "a refresh with nothing changed", 5*time.Minute, func() bool {
		idle = p.metrics(b)
		return idle[`upgraph_refresh_total{result="unchanged"}`] >= 1
	})
	freshSay("set-up: a refresh with nothing changed: scrape %.2f s (%.0f tags, %.0f images read), graph_data %.3f s, total %.2f s",
		idle[freshPhase("scrape")], idle["upgraph_scrape_tags"], idle["upgraph_scrape_inspected"],
		idle[freshPhase("graph_data")], idle[freshPhase("total")])
	p.cycle = freshInterval + time.Duration(idle[freshPhase("total")]*float64(time.Second))
	setupTook := time.Since(setup).Round(time.Second)
	freshSay("set-up took %s in all", setupTook)

	object := func(key string) []byte {
		out, err := srv.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
		if err != nil {
			return nil
		}
		defer out.Body.Close()
		body, _ := io.ReadAll(out.Body)
		return body
	}
	served := func(channel, version string) func() bool {
		return func() bool {
			code, body := p.get(b, "/api/upgrades_info/graph?channel="+channel+"&arch=amd64")
			return code == http.StatusOK && freshHasNode(body, version)
		}
	}
	published := func(channel, version string) func() bool {
		return func() bool { return freshHasNode(object("graphs/graph/amd64/"+channel+".json"), version) }
	}

	var release, graphData []freshFigures
	b.ResetTimer()
	for i := range b.N {
		v := held[i]
		release = append(release, p.measure(b, "release "+v+" in "+fastCh, p.cycle, func() {
			rt.Push(b, repo+":"+freshTag(v, synth.ArchAMD64), heldImages[i])
		}, served(fastCh, v), published(fastCh, v)))

		path := "channels/" + stableCh + ".yaml"
		gdFiles[path] = freshAddToChannel(b, gdFiles[path], v)
		graphData = append(graphData, p.measure(b, v+" promoted to "+stableCh, freshInterval, func() {
			freshPushGraphData(b, gdRef, gdFiles)
		}, served(stableCh, v), published(stableCh, v)))
	}
	b.StopTimer()

	hwm, err := freshStatus(p.cmd.Process.Pid, "VmHWM")
	rss, _ := freshStatus(p.cmd.Process.Pid, "VmRSS")
	if err != nil {
		b.Errorf("peak RSS of the service: %v", err)
	}
	freshReport(b, "release", release)
	freshReport(b, "graphdata", graphData)
	b.ReportMetric(float64(hwm)/1e6, "service-peak-RSS-MB")
	// The testing package keeps ten lines of a benchmark's log: the
	// set-up in one, the changes in a table; the rest went to stdout.
	b.Logf("set-up %s: %d images pushed in %s; cold start served after %.1f s, published after %.1f s (%.0f objects, %.0f MB); "+
		"an unchanged refresh %.2f s (scrape %.2f s); service peak RSS (VmHWM) %.0f MB, %.0f MB at the end",
		setupTook, len(releases)-len(held), pushed, coldServed.Seconds(), coldPublished.Seconds(),
		cold["upgraph_publish_uploaded_objects"], cold["upgraph_publish_uploaded_bytes"]/1e6,
		idle[freshPhase("total")], idle[freshPhase("scrape")], float64(hwm)/1e6, float64(rss)/1e6)
	table := freshTable(append(slices.Clone(release), graphData...))
	freshSay("served: /api/upgrades_info/graph has it; published: the bucket's graph/amd64/CHANNEL.json has it; " +
		"ended: the refresh that generated it ended (index.json published); x upstream: 360 s / served and / published; " +
		"pushed at: after a refresh ended (drawn from a cycle, --interval and an unchanged refresh); " +
		"wait: until the refresh that generated it started (negative: it was under way, graph-data is resolved after the scrape); refreshes: refreshes that ended meanwhile, that one included; " +
		"worst served: pushed just after a refresh read that input, so seen a cycle later (release) or an --interval later (graph-data, resolved after the scrape), then the same work")
	b.Logf("seconds from the push returning; phases of the refresh that generated it:\n%s", table)
	freshSay("seconds from the push returning; phases of the refresh that generated it:\n%s", table)
	if err := p.stop(); err != nil {
		b.Errorf("service after SIGTERM: %v\n%s", err, freshTail(p.stderr.String(), 40))
	}
}

// freshFigures is what one change took.
type freshFigures struct {
	what string
	// From the push returning: served by the service, in the bucket's
	// copy of the channel's graph, and the refresh that generated it
	// ended (its publish done, index.json uploaded).
	served, published, complete time.Duration
	// From the push returning to the start of the refresh that generated
	// it (the rest of the refresh under way, then --interval), and the
	// refreshes that ended meanwhile, that one included.
	wait      time.Duration
	refreshes float64
	// How long after a refresh ended the change was pushed, drawn from
	// one refresh cycle (--interval and an unchanged refresh).
	delay time.Duration
	// The worst case: pushed just after a refresh read that input, so
	// seen late (the rest of that refresh and --interval) by the next
	// one, which then takes what the one that saw it took.
	worst time.Duration
	// /metrics as the generating refresh left it.
	m map[string]float64
}

func freshPhase(p string) string { return `upgraph_refresh_phase_seconds{phase="` + p + `"}` }

func (f freshFigures) phase(p string) float64 { return f.m[freshPhase(p)] }

// measure makes a change and polls until it is served, published and the
// refresh that generated it ended. late is how much later a change pushed
// just after a refresh read that input is seen by the next refresh.
func (p *freshService) measure(b *testing.B, what string, late time.Duration, change func(), served, published func() bool) freshFigures {
	b.Helper()
	const generated = `upgraph_refresh_total{result="generated"}`
	const failed = `upgraph_refresh_total{result="failed"}`
	// The change lands anywhere in the refresh cycle, as a real one does:
	// this is called just after a refresh ended.
	f := freshFigures{what: what, delay: rand.N(p.cycle)}
	b.StopTimer()
	time.Sleep(f.delay)
	b.StartTimer()
	before := p.metrics(b)
	change()
	t0 := time.Now()
	deadline := t0.Add(10 * time.Minute)
	for f.served == 0 || f.published == 0 || f.m == nil {
		if time.Now().After(deadline) {
			b.Fatalf("%s: after 10 minutes, served %v, published %v, refresh ended %v\nservice log:\n%s",
				what, f.served, f.published, f.complete, freshTail(p.stderr.String(), 40))
		}
		if f.served == 0 && served() {
			f.served = time.Since(t0)
		}
		if f.published == 0 && published() {
			f.published = time.Since(t0)
		}
		if f.m == nil {
			m := p.metrics(b)
			if m[failed] > before[failed] {
				b.Fatalf("%s: a refresh failed\nservice log:\n%s", what, freshTail(p.stderr.String(), 40))
			}
			if m[generated] > before[generated] {
				f.m, f.complete = m, time.Since(t0)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The refreshes that ended since the change, from the log (its line
	// follows the counter): the generating one's start is its end less
	// its duration.
	for range 50 {
		if f.timeline(freshRefreshes(p.stderr.String()), t0) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	f.worst = late + f.served - f.wait
	freshSay("%s, pushed %s after a refresh ended: served after %s, published after %s, refresh ended after %s; the service's log since the push:\n%s",
		what, f.delay.Round(time.Millisecond), f.served.Round(time.Millisecond), f.published.Round(time.Millisecond), f.complete.Round(time.Millisecond),
		freshLogSince(p.stderr.String(), t0, t0.Add(f.complete), 30))
	return f
}

// timeline sets wait and refreshes from the refreshes logged, and says
// whether the generating one was among them.
func (f *freshFigures) timeline(log []freshRefresh, t0 time.Time) bool {
	f.refreshes = 0
	for _, l := range log {
		if l.end.Before(t0) {
			continue
		}
		f.refreshes++
		if l.result == service.Generated {
			f.wait = l.end.Add(-l.duration).Sub(t0)
			return true
		}
	}
	return false
}

// freshLogSince is the service's JSON log lines from since to until, at
// most n, each with its time relative to since.
func freshLogSince(log string, since, until time.Time, n int) string {
	var out []string
	for line := range strings.Lines(log) {
		var l map[string]any
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		ts, _ := l["time"].(string)
		at, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || at.Before(since) || at.After(until.Add(time.Second)) {
			continue
		}
		delete(l, "time")
		rest, _ := json.Marshal(l)
		out = append(out, fmt.Sprintf("    +%6.3fs %s", at.Sub(since).Seconds(), rest))
	}
	if len(out) > n {
		out = append(out[:n/2], append([]string{fmt.Sprintf("    … %d lines …", len(out)-n)}, out[len(out)-n/2:]...)...)
	}
	return strings.Join(out, "\n")
}

// freshRefresh is one "refresh" line of the service's JSON log.
type freshRefresh struct {
	end      time.Time
	duration time.Duration
	result   string
}

func freshRefreshes(log string) []freshRefresh {
	var out []freshRefresh
	for line := range strings.Lines(log) {
		var l struct {
			Time     time.Time `json:"time"`
			Msg      string    `json:"msg"`
			Result   string    `json:"result"`
			Duration float64   `json:"duration"` // nanoseconds
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Msg != "refresh" {
			continue
		}
		out = append(out, freshRefresh{end: l.Time, duration: time.Duration(l.Duration), result: l.Result})
	}
	return out
}

// freshReport reports the means of one change's figures.
func freshReport(b *testing.B, name string, fs []freshFigures) {
	mean := func(f func(freshFigures) float64) float64 {
		var s float64
		for _, x := range fs {
			s += f(x)
		}
		return s / float64(len(fs))
	}
	served := mean(func(f freshFigures) float64 { return f.served.Seconds() })
	b.ReportMetric(served, name+"-served-s")
	b.ReportMetric(mean(func(f freshFigures) float64 { return f.published.Seconds() }), name+"-published-s")
	b.ReportMetric(mean(func(f freshFigures) float64 { return f.m["upgraph_publish_uploaded_objects"] }), name+"-objects-uploaded")
	for _, ph := range []string{"scrape", "generate", "serve", "publish"} {
		b.ReportMetric(mean(func(f freshFigures) float64 { return f.phase(ph) }), name+"-"+ph+"-s")
	}
	b.ReportMetric(upstreamWorstCase.Seconds()/served, name+"-x-faster-than-upstream")
	b.ReportMetric(mean(func(f freshFigures) float64 { return f.worst.Seconds() }), name+"-worst-served-s")
}

// freshTable is every figure of every change, a row each.
func freshTable(all []freshFigures) string {
	var buf bytes.Buffer
	w := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(w, "change\tserved\tpublished\tended\tx upstream\tpushed at\twait\trefreshes\tworst served\t")
	phases := []string{"scrape", "graph_data", "read", "generate", "serve", "publish", "total"}
	for _, ph := range phases {
		fmt.Fprintf(w, "%s\t", ph)
	}
	fmt.Fprint(w, "objects\tMB\timages read\t\n")
	for _, f := range all {
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%.2f\t%.0f / %.0f\t%.2f\t%.2f\t%.0f\t%.2f\t", f.what, f.served.Seconds(), f.published.Seconds(),
			f.complete.Seconds(), upstreamWorstCase.Seconds()/f.served.Seconds(), upstreamWorstCase.Seconds()/f.published.Seconds(),
			f.delay.Seconds(), f.wait.Seconds(), f.refreshes, f.worst.Seconds())
		for _, ph := range phases {
			fmt.Fprintf(w, "%.2f\t", f.phase(ph))
		}
		fmt.Fprintf(w, "%.0f\t%.1f\t%.0f\t\n", f.m["upgraph_publish_uploaded_objects"], f.m["upgraph_publish_uploaded_bytes"]/1e6,
			f.m["upgraph_scrape_inspected"])
	}
	w.Flush()
	return strings.TrimRight(buf.String(), "\n")
}

// freshSay prints a line of progress to stdout: the testing package
// keeps only ten lines of a benchmark's log.
func freshSay(format string, args ...any) {
	fmt.Printf("freshness: "+format+"\n", args...)
}

// freshCandidates picks the newest minor 4.Y with both a stable and a
// fast channel, and returns it with the versions fast-4.Y lists and
// stable-4.Y does not that are released for amd64, newest first.
func freshCandidates(b *testing.B, channels map[string][]string, amd64 map[string]bool) (string, []string) {
	b.Helper()
	stableRE := regexp.MustCompile(`^stable-(4\.(\d+))$`)
	best, bestMinor := "", -1
	for name := range channels {
		m := stableRE.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if _, ok := channels["fast-"+m[1]]; !ok {
			continue
		}
		if n, _ := strconv.Atoi(m[2]); n > bestMinor {
			best, bestMinor = m[1], n
		}
	}
	if best == "" {
		b.Fatal("graph-data has no stable-4.Y with a fast-4.Y")
	}
	var vs []semver.Version
	for _, v := range channels["fast-"+best] {
		if slices.Contains(channels["stable-"+best], v) || !amd64[v] {
			continue
		}
		sv, err := semver.Parse(v)
		if err != nil {
			b.Fatalf("fast-%s: %v", best, err)
		}
		vs = append(vs, sv)
	}
	if len(vs) == 0 {
		b.Fatalf("fast-%s lists no version stable-%s does not", best, best)
	}
	slices.SortFunc(vs, func(x, y semver.Version) int { return y.Compare(x) })
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return best, out
}

// freshReadTree reads every regular file under dir, by slash path.
func freshReadTree(b *testing.B, dir string) map[string][]byte {
	b.Helper()
	files := map[string][]byte{}
	root := os.DirFS(dir)
	err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		files[p], err = fs.ReadFile(root, p)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// freshChannels parses graph-data's channels: name to versions.
func freshChannels(b *testing.B, files map[string][]byte) map[string][]string {
	b.Helper()
	out := map[string][]string{}
	for p, data := range files {
		if !strings.HasPrefix(p, "channels/") || !strings.HasSuffix(p, ".yaml") {
			continue
		}
		var ch struct {
			Name     string   `yaml:"name"`
			Versions []string `yaml:"versions"`
		}
		if err := yaml.Unmarshal(data, &ch); err != nil {
			b.Fatalf("%s: %v", p, err)
		}
		out[ch.Name] = ch.Versions
	}
	return out
}

// freshAddToChannel inserts version into a channel file's versions list,
// in SemVer order, as graph-data lists them.
func freshAddToChannel(b *testing.B, data []byte, version string) []byte {
	b.Helper()
	nv := semver.MustParse(version)
	lines := strings.SplitAfter(string(data), "\n")
	in, at, last := false, -1, -1
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if t == "versions:" {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(t, "- ") {
			if last >= 0 {
				break
			}
			continue
		}
		last = i
		if cv, err := semver.Parse(strings.TrimSpace(t[2:])); at < 0 && err == nil && cv.GT(nv) {
			at = i
		}
	}
	if last < 0 {
		b.Fatalf("no versions list in:\n%s", data)
	}
	if at < 0 {
		at = last + 1
		if !strings.HasSuffix(lines[last], "\n") {
			lines[last] += "\n"
		}
	}
	out := []byte(strings.Join(slices.Insert(lines, at, "- "+version+"\n"), ""))
	var ch struct {
		Versions []string `yaml:"versions"`
	}
	if err := yaml.Unmarshal(out, &ch); err != nil || !slices.Contains(ch.Versions, version) {
		b.Fatalf("adding %s to a channel: %v\n%s", version, err, out)
	}
	return out
}

// freshTag is the tag a release is pushed under.
func freshTag(version, arch string) string { return version + "-" + arch }

// freshPushReleases pushes every release but the amd64 ones of held as a
// release image (one small metadata layer; a multi release as an index of
// per-arch images, each with the metadata, as multi payloads are) and
// returns those held back, in held's order, with the number of manifests
// pushed.
func freshPushReleases(b *testing.B, repo string, releases []synth.Release, held []string) ([]rt.Artifact, int) {
	b.Helper()
	heldImages := make([]rt.Artifact, len(held))
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		manifests int
	)
	sem := make(chan struct{}, freshPushWorkers)
	for _, r := range releases {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			md := rt.MetadataLayer(b, rt.Doc(r.Version, r.Previous, r.Metadata), rt.FillerSize(0))
			var a rt.Artifact
			n := 1
			if r.Arch == synth.ArchMulti {
				var shards []v1.Image
				for _, arch := range []string{synth.ArchAMD64, synth.ArchARM64, synth.ArchPPC64LE, synth.ArchS390X} {
					shards = append(shards, rt.Image(b, arch, false, md))
				}
				a, n = rt.Index(b, false, shards...), 1+len(shards)
			} else {
				a = rt.Image(b, r.Arch, false, md)
			}
			if i := slices.Index(held, r.Version); i >= 0 && r.Arch == synth.ArchAMD64 {
				heldImages[i] = a
				return
			}
			rt.Push(b, repo+":"+freshTag(r.Version, r.Arch), a)
			mu.Lock()
			manifests += n
			mu.Unlock()
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	for i, a := range heldImages {
		if a == nil {
			b.Fatalf("no amd64 release %s to hold back", held[i])
		}
	}
	return heldImages, manifests
}

// freshPushGraphData pushes files as a graph-data image: one tar layer,
// each file under graph-data/.
func freshPushGraphData(b *testing.B, ref string, files map[string][]byte) {
	b.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range slices.Sorted(func(yield func(string) bool) {
		for p := range files {
			if !yield(p) {
				return
			}
		}
	}) {
		tw.WriteHeader(&tar.Header{Name: "graph-data/" + p, Mode: 0o644, Size: int64(len(files[p])), Typeflag: tar.TypeReg})
		tw.Write(files[p])
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
	var layer v1.Layer = static.NewLayer(buf.Bytes(), types.DockerUncompressedLayer)
	rt.Push(b, ref, rt.Image(b, "amd64", false, layer))
}

// freshHasNode says whether a Cincinnati graph document has a node of
// version.
func freshHasNode(doc []byte, version string) bool {
	if !bytes.Contains(doc, []byte(`"`+version+`"`)) {
		return false
	}
	var g struct{ Nodes []struct{ Version string } }
	if json.Unmarshal(doc, &g) != nil {
		return false
	}
	return slices.ContainsFunc(g.Nodes, func(n struct{ Version string }) bool { return n.Version == version })
}

// freshService is upgraph service as a process, as startService runs it
// (whose helpers take a *testing.T), with its log in JSON.
type freshService struct {
	cmd    *exec.Cmd
	addr   string
	stderr *syncbuf.Buffer
	cycle  time.Duration // --interval and an unchanged refresh
	exited chan struct{} // closed when the process has exited
	err    error         // cmd.Wait's, once exited is closed
}

func freshStartService(b *testing.B, dir string, env []string, args ...string) *freshService {
	b.Helper()
	lp := startListening(b, dir, env, append([]string{"--log-format", "json", "service", "--listen", "127.0.0.1:0"}, args...)...)
	p := &freshService{cmd: lp.cmd, addr: lp.addr, stderr: lp.stderr, exited: make(chan struct{})}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	b.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// stop ends the service with SIGTERM, as Kubernetes does, and returns
// how it exited.
func (p *freshService) stop() error {
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		return p.err
	case <-time.After(time.Minute):
		p.cmd.Process.Kill()
		<-p.exited
		return fmt.Errorf("still running a minute after SIGTERM: killed")
	}
}

// running says whether the process has not exited.
func (p *freshService) running() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

func (p *freshService) get(b *testing.B, path string) (int, []byte) {
	resp, err := http.Get(p.addr + path)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil
	}
	return resp.StatusCode, body
}

func (p *freshService) status(b *testing.B, path string) int {
	code, _ := p.get(b, path)
	return code
}

// metrics is every series of /metrics by name and labels.
func (p *freshService) metrics(b *testing.B) map[string]float64 {
	b.Helper()
	return readMetrics(p.addr)
}

// waitFor polls cond every 100 ms until it holds, failing after limit.
func (p *freshService) waitFor(b *testing.B, what string, limit time.Duration, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if !p.running() || time.Now().After(deadline) {
			b.Fatalf("after %s, still not %s\nservice log:\n%s", limit, what, freshTail(p.stderr.String(), 40))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// freshTail is the last n lines of s.
func freshTail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

// freshStatus is a size field of a process's /proc status (VmHWM, the
// peak resident set; VmRSS, the current one), in bytes.
func freshStatus(pid int, field string) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}
