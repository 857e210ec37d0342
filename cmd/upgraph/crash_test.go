package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/sign"
	"github.com/upgraph/upgraph/tree/writer"
)

// TestCrashGenerate kills `generate` with SIGKILL at every phase of the
// output's commit protocol and at seeded random moments spread over a whole
// run, each time replacing one generation with another (A and B in turn).
// After each kill the output must hold exactly one of the two generations,
// byte for byte, and pass `upgraph verify`; a kill before the swap must
// leave the old one, a kill after it the new one; nothing but the output
// and its siblings (staging, trash, lock) may have changed. The next,
// uninterrupted run must converge: the new generation, no leftovers.
func TestCrashGenerate(t *testing.T) {
	t.Parallel()
	crashGenerate(t, false)
}

// TestCrashGenerateSigned is TestCrashGenerate with generate --sign, on
// fewer kill points: the output holds one generation, its tuf/ included,
// that upgraph verify --trust accepts, with versions never lower than
// those it accepted before (--state).
func TestCrashGenerateSigned(t *testing.T) {
	t.Parallel()
	crashGenerate(t, true)
}

func crashGenerate(t *testing.T, signed bool) {
	began := time.Now()
	base := t.TempDir()
	a, b := crashInputs(t, base, crashGenerateChannels)
	// The keys and the verifier's state live outside base, which no run
	// may change.
	keys, stateFile := filepath.Join(t.TempDir(), "keys"), filepath.Join(t.TempDir(), "tuf-state.json")
	if signed {
		if _, err := sign.Init(keys, sign.InitOptions{}); err != nil {
			t.Fatal(err)
		}
		a.sign, b.sign = keys, keys
	}
	a.generateRef(t, base)
	b.generateRef(t, base)
	checkCrashPair(t, a, b)
	work := filepath.Join(base, "work")
	out := filepath.Join(work, "out")
	other := func(g *crashGen) *crashGen {
		if g == a {
			return b
		}
		return a
	}

	// What no run may touch: everything under base but the output and its
	// siblings (the inputs, the references, the working directory), and
	// the graph-data read.
	outside := func(rel string) bool {
		return rel == "work/out" || strings.HasPrefix(rel, "work/") && outputSibling.MatchString(strings.TrimPrefix(rel, "work/"))
	}
	// state checks the output after a run: one of the two generations,
	// whole (verified by `upgraph verify` too when verify is set), nothing
	// else changed. It returns the one found.
	var beforeBase, beforeGD map[string]fileState
	state := func(t *testing.T, what string, verify bool) *crashGen {
		t.Helper()
		entries, err := os.ReadDir(work)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "out" && !outputSibling.MatchString(e.Name()) {
				t.Errorf("%s: %s created beside the output", what, e.Name())
			}
		}
		if verify {
			args := []string{"verify", out}
			if signed {
				args = []string{"verify", "--trust", filepath.Join(keys, sign.RootFile), "--state", stateFile, out}
			}
			if _, stderr, code := run(t, base, nil, args...); code != 0 {
				t.Errorf("%s: upgraph %s: exit %d: %s", what, strings.Join(args, " "), code, stderr)
			}
		}
		index, err := os.ReadFile(filepath.Join(out, "index.json"))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var found *crashGen
		for _, g := range []*crashGen{a, b} {
			if bytes.Equal(index, g.index) {
				found = g
			}
		}
		if found == nil {
			t.Fatalf("%s: index.json is neither A's nor B's (%d bytes)", what, len(index))
		}
		// The metadata's versions depend on the generation replaced; the
		// verification above checked it.
		if got := withoutMetadata(treeDigest(t, out)); !maps.Equal(got, found.files) {
			t.Fatalf("%s: index.json is %s's but the tree is not: %s", what, found.name, diffDigests(got, found.files))
		}
		if d := diffSnapshots(beforeBase, snapshot(t, base, outside)); d != "" {
			t.Errorf("%s: files outside the output changed:\n%s", what, d)
		}
		return found
	}
	leftovers := func() []string {
		entries, _ := os.ReadDir(work)
		var names []string
		for _, e := range entries {
			if e.Name() != "out" && e.Name() != ".out.upgraph-lock" && e.Name() != ".out.upgraph-spare" {
				names = append(names, e.Name())
			}
		}
		return names
	}

	// Generation A in the output, then a timed full run each way: how long
	// a replacing run takes, over which the kill points are spread. The
	// estimate is the median of every uninterrupted replacing run so far,
	// so that it follows the machine's load.
	if _, stderr, code := run(t, base, a.env(), a.generateArgs(out)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var runTimes []time.Duration
	for _, g := range []*crashGen{b, a} {
		start := time.Now()
		if _, stderr, code := run(t, base, g.env(), g.generateArgs(out)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		runTimes = append(runTimes, time.Since(start))
	}
	beforeBase = snapshot(t, base, outside)
	beforeGD = snapshot(t, realGraphData, nil)
	if got := state(t, "after the timed runs", true); got != a {
		t.Fatalf("output holds %s, want A", got.name)
	}

	type point struct {
		phase writer.Phase // kill at this phase of the commit, or
		at    float64      // at this fraction of 1.1 × a run's duration
	}
	var points []point
	for _, p := range writer.Phases {
		points = append(points, point{phase: p})
	}
	rng := crashSeed(t)
	// Five phase boundaries, each surely killed, and six random points
	// (three signed) that land between them, at least four (two) of which
	// must kill: a run that finishes first adds a point. (Fifteen random
	// points and twenty kills wanted took 218 s on a quiet machine.)
	randomPoints, minKills, maxPoints := 6, 9, 14
	if signed {
		randomPoints, minKills, maxPoints = 3, 7, 11
	}
	for _, f := range spread(rng, randomPoints) {
		points = append(points, point{at: f})
	}

	cur := a
	var foundOld, foundNew, completed int
	landed := map[string]int{} // kills by the last phase the run reached
	phaseLog := regexp.MustCompile(`msg=output phase=(\w+)`)
	// A run may finish before its kill comes: points are added (up to
	// maxPoints) until minKills runs were killed.
	for i := 0; i < len(points) || i-completed < minKills && len(points) < maxPoints; i++ {
		if i == len(points) {
			points = append(points, point{at: 0.8 * rng.Float64()})
		}
		pt := points[i]
		target := other(cur)
		delay := time.Duration(pt.at * 1.1 * float64(median(runTimes)))
		name := fmt.Sprintf("kill %d (%s→%s, after %v)", i+1, cur.name, target.name, delay.Round(time.Millisecond))
		// Debug logs name each phase reached: where the kill landed.
		cmd := command(base, append([]string{"--log-level", "debug"}, target.generateArgs(out)...)...)
		cmd.Env = append(os.Environ(), target.env()...)
		if pt.phase != "" {
			name = fmt.Sprintf("kill %d (%s→%s, at phase %s)", i+1, cur.name, target.name, pt.phase)
			cmd.Env = append(cmd.Env, killAtEnv+"="+string(pt.phase))
			delay = -1
		}
		res := startKill(t, cmd, delay, nil)
		switch {
		case res.finished && res.code != 0:
			t.Fatalf("%s: the run failed by itself: exit %d: %s", name, res.code, res.stderr)
		case res.finished && pt.phase != "":
			t.Fatalf("%s: the run finished instead of killing itself", name)
		case res.finished:
			completed++
		}
		got := state(t, name, true)
		switch {
		case got == cur:
			foundOld++
		case got == target:
			foundNew++
		}
		if pt.phase != "" {
			// Before the swap the old generation stays; from it on, the new one is there.
			swapped := pt.phase == writer.PhaseSwapped || pt.phase == writer.PhaseDone
			if want := map[bool]*crashGen{false: cur, true: target}[swapped]; got != want {
				t.Errorf("%s: output holds %s, want %s", name, got.name, want.name)
			}
		}
		if res.finished && got != target {
			t.Errorf("%s: the run completed yet the output holds %s", name, got.name)
		}
		reached := "none"
		if m := phaseLog.FindAllStringSubmatch(res.stderr, -1); len(m) > 0 {
			reached = m[len(m)-1][1]
		}
		if res.finished {
			reached = "completed"
		}
		landed[reached]++
		t.Logf("%s: %s found (%s) after %v, last phase reached: %s", name, got.name, map[bool]string{true: "new", false: "old"}[got == target], res.ran.Round(time.Millisecond), reached)

		// The next run converges on the target and cleans up.
		start := time.Now()
		if _, stderr, code := run(t, base, target.env(), target.generateArgs(out)...); code != 0 {
			t.Fatalf("%s: the next run: exit %d: %s", name, code, stderr)
		}
		runTimes = append(runTimes, time.Since(start))
		if got := state(t, name+", next run", false); got != target {
			t.Fatalf("%s: the next run left %s, want %s", name, got.name, target.name)
		}
		if l := leftovers(); len(l) > 0 {
			t.Errorf("%s: the next run left %v beside the output", name, l)
		}
		cur = target
	}
	if d := diffSnapshots(beforeGD, snapshot(t, realGraphData, nil)); d != "" {
		t.Errorf("the graph-data read changed:\n%s", d)
	}
	if kills := len(points) - completed; kills < minKills {
		t.Errorf("only %d runs were killed, want %d", kills, minKills)
	}
	full := median(runTimes)
	t.Logf("%d kill points (%d phase boundaries, %d random over 0–1.1 × a run, %d more over 0–0.9 × a run): %d runs killed, %d completed before their kill; %d found the old generation, %d the new one",
		len(points), len(writer.Phases), randomPoints, len(points)-len(writer.Phases)-randomPoints,
		len(points)-completed, completed, foundOld, foundNew)
	t.Logf("kills by the last phase reached (none: still reading and computing; staged: writing files): %v", landed)
	t.Logf("generation A %d files, B %d files (index.json included); a full replacing run %v (median of %d, %v–%v); test %v",
		len(a.files), len(b.files), full.Round(time.Millisecond), len(runTimes), runTimes[0].Round(time.Millisecond), runTimes[len(runTimes)-1].Round(time.Millisecond), time.Since(began).Round(time.Second))
}

// TestCrashPublish kills `upgraph publish` with SIGKILL at seeded random
// moments spread over a whole publish, and at given requests (during the
// uploads, at the journal's removal, during the deletions), each time
// publishing one generation over the other (A and B in turn) to a real S3
// server (versitygw, behind the counting proxy of internal/s3test).
// After each kill the bucket must serve one of the two generations: its
// index.json is A's or B's byte for byte, and a client that reads it and
// then the files it lists gets each of them, with the sha256 it lists.
// Whatever else is there holds A's or B's bytes, each object matches its
// x-amz-meta-sha256, and every object that index.json does not describe is
// known to the next run (index.json flagged, the journal naming it). The
// next, uninterrupted publish must converge: the target's index.json and
// files exactly, nothing stale (the journal aside, see converged), and
// index.json not flagged.
func TestCrashPublish(t *testing.T) {
	t.Parallel()
	crashPublish(t, false)
}

// TestCrashPublishSigned is TestCrashPublish with signed generations, on
// fewer kill points: after each kill, upgraph verify --trust over the
// bucket either refuses, naming the threat, or accepts a generation whose
// every file matches it (never a mix), and it accepts the converged one.
func TestCrashPublishSigned(t *testing.T) {
	t.Parallel()
	crashPublish(t, true)
}

func crashPublish(t *testing.T, signed bool) {
	began := time.Now()
	base := t.TempDir()
	a, b := crashInputs(t, base, crashPublishChannels)
	keys := filepath.Join(t.TempDir(), "keys")
	if signed {
		if _, err := sign.Init(keys, sign.InitOptions{}); err != nil {
			t.Fatal(err)
		}
		a.sign, b.sign = keys, keys
	}
	a.generateRef(t, base)
	b.generateRef(t, base)
	differ := checkCrashPair(t, a, b)
	other := func(g *crashGen) *crashGen {
		if g == a {
			return b
		}
		return a
	}
	srv := s3test.Start(t)
	proxy := s3test.NewProxy(t, srv)
	bucket := srv.NewBucket(t)
	const prefix = "upgraph/v1"
	env := publishEnv(base, srv)
	publishCmd := func(g *crashGen) *exec.Cmd {
		cmd := command(base, "publish", "--endpoint", proxy.URL, "--path-style", "--region", s3test.Region,
			"--delete", g.ref, "s3://"+bucket+"/"+prefix)
		cmd.Env = env
		return cmd
	}
	// verifySigned runs upgraph verify --trust over the bucket (not
	// through the proxy, whose counts place the kills): accepted, or the
	// refusal's message.
	verifySigned := func(t *testing.T) (bool, string) {
		t.Helper()
		cmd := command(base, "verify", "--trust", filepath.Join(keys, sign.RootFile), "--endpoint", srv.URL, "--path-style",
			"--region", s3test.Region, "s3://"+bucket+"/"+prefix)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return err == nil, stderr.String()
	}
	byIndex := map[string]*crashGen{a.files[manifest.FileName]: a, b.files[manifest.FileName]: b}
	// The user metadata flagging index.json while a publish is under way
	// (metaJournal in site/publish/remote.go).
	const metaJournal = "upgraph-journal"
	rng := crashSeed(t)

	// served checks what the bucket serves after an interrupted publish and
	// returns the generation its index.json is, and the paths it lists
	// whose object holds other content.
	served := func(t *testing.T, what string) (*crashGen, []string) {
		t.Helper()
		v := readBucket(t, srv, bucket, prefix)
		g := byIndex[v.sums[manifest.FileName]]
		if g == nil {
			t.Fatalf("%s: the published index.json is missing, or neither A's nor B's", what)
		}
		meta, _ := v.get(t, manifest.FileName)
		flagged := meta[metaJournal] != ""
		// A journal names what the next run checks; without one (or
		// unreadable), a flagged index.json makes it check everything.
		checksAll, inJournal := true, map[string]bool{}
		if _, ok := v.sums[publish.JournalPath]; ok {
			_, body := v.get(t, publish.JournalPath)
			var j struct{ Paths []string }
			if err := json.Unmarshal(body, &j); err == nil {
				checksAll = false
				for _, p := range j.Paths {
					inJournal[p] = true
				}
			}
		}
		var listed, mismatched []string
		for p, f := range g.manifest.Files {
			sum, ok := v.sums[p]
			if !ok {
				t.Errorf("%s: %s's index.json lists %s, which is not in the bucket", what, g.name, p)
				continue
			}
			listed = append(listed, p)
			if sum != a.files[p] && sum != b.files[p] {
				t.Errorf("%s: %s holds neither A's nor B's content", what, p)
			}
			if sum != f.SHA256 {
				mismatched = append(mismatched, p)
				// The next publish must learn of it: index.json flagged,
				// and the journal naming it (or none, and every object
				// checked).
				if !flagged || !checksAll && !inJournal[p] {
					t.Errorf("%s: %s differs from index.json, which is flagged: %v; the journal names it: %v", what, p, flagged, inJournal[p])
				}
			}
		}
		for p, sum := range v.sums {
			if _, ok := g.manifest.Files[p]; ok || p == manifest.FileName || p == publish.JournalPath || signed && manifest.IsMetadata(p) {
				continue
			}
			if sum != a.files[p] && sum != b.files[p] {
				t.Errorf("%s: %s, not listed, holds neither A's nor B's content", what, p)
			}
		}
		v.checkSample(t, rng, listed, 24, what)
		v.checkSample(t, rng, mismatched, 8, what)
		slices.Sort(mismatched)
		if signed {
			accepted, stderr := verifySigned(t)
			switch {
			case accepted && len(mismatched) > 0:
				t.Errorf("%s: verify --trust accepted %s's index.json while %d files do not match it", what, g.name, len(mismatched))
			case !accepted && !strings.Contains(stderr, " refused ("):
				t.Errorf("%s: verify --trust failed without naming a threat: %s", what, stderr)
			case !accepted:
				t.Logf("%s: verify --trust refused: %s", what, strings.TrimSpace(stderr))
			}
		}
		return g, mismatched
	}
	// converged checks that the bucket holds exactly g and index.json is
	// not flagged. The journal may remain: a publish killed after its
	// index.json went up and before it removed the journal leaves it, and
	// later publishes, finding index.json unflagged, do not look for it.
	// It is harmless (site/publish/journal.go): the next publish that
	// changes objects overwrites it before it uploads anything.
	// leftJournal counts the converged states that still had it.
	leftJournal := 0
	converged := func(t *testing.T, g *crashGen, what string) {
		t.Helper()
		v := readBucket(t, srv, bucket, prefix)
		sums := maps.Clone(v.sums)
		if signed {
			sums = withoutMetadata(sums)
			if ok, stderr := verifySigned(t); !ok {
				t.Errorf("%s: verify --trust refuses the converged %s: %s", what, g.name, stderr)
			}
		}
		if _, ok := sums[publish.JournalPath]; ok {
			leftJournal++
			delete(sums, publish.JournalPath)
		}
		if !maps.Equal(sums, g.files) {
			t.Fatalf("%s: the bucket does not hold exactly %s: %s", what, g.name, diffDigests(sums, g.files))
		}
		if meta, _ := v.get(t, manifest.FileName); meta[metaJournal] != "" {
			t.Errorf("%s: index.json still flagged", what)
		}
		v.checkSample(t, rng, slices.Collect(maps.Keys(g.files)), 24, what)
	}
	publishOK := func(t *testing.T, g *crashGen, what string) time.Duration {
		t.Helper()
		start := time.Now()
		cmd := publishCmd(g)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: publish %s: %v: %s", what, g.name, err, stderr.String())
		}
		took := time.Since(start)
		proxy.Settle()
		converged(t, g, what)
		return took
	}

	first := publishOK(t, a, "first publish")
	// A timed publish each way: how long an incremental publish takes, over
	// which the kill points are spread. The estimate is the median of
	// every whole incremental publish so far (the random points' runs that
	// finish before their kill included), so that it follows the load.
	var pubTimes []time.Duration
	puts, deletes := map[*crashGen]int{}, map[*crashGen]int{}
	for _, g := range []*crashGen{b, a} {
		proxy.Reset()
		pubTimes = append(pubTimes, publishOK(t, g, "timed publish"))
		puts[g], deletes[g] = len(proxy.Keys(s3test.PUT)), len(proxy.Keys(s3test.DELETE))
	}

	type point struct {
		at   float64     // kill at this fraction of a publish's duration, or
		kind s3test.Kind // once the proxy has seen the request of this kind
		n    func(target *crashGen) int
		what string
	}
	// First, kills at given requests, so that each stage surely gets one:
	// the flag on index.json and the journal are the first two PUTs, then
	// the uploads; after index.json, the last PUT, the journal's removal is
	// the first DELETE, and stale objects go after it (B has fewer files
	// than A, and these points go A→B, B→A, A→B).
	points := []point{
		{kind: s3test.PUT, what: "a third into the uploads", n: func(g *crashGen) int { return 2 + (puts[g]-3)/3 }},
		{kind: s3test.DELETE, what: "the journal's removal", n: func(*crashGen) int { return 1 }},
		{kind: s3test.DELETE, what: "halfway through the deletions", n: func(g *crashGen) int { return 1 + deletes[g]/2 }},
	}
	if signed {
		// timestamp.json is the last PUT, after index.json: killed as it
		// is sent, the bucket holds the new index.json under the old
		// timestamp, or both new.
		points = append(points, point{kind: s3test.PUT, what: "the last upload, timestamp.json", n: func(g *crashGen) int { return puts[g] }})
	}
	requestPoints := len(points)
	randomPoints, minKills, maxPoints := 5, 5, 12
	if signed {
		// Seven spare points, as the unsigned run has seven for five: a
		// loaded machine finishes some publishes before their random kill
		// (with three spare, a CI run on a busy 2-core VM killed only 3 of
		// 4).
		randomPoints, minKills, maxPoints = 3, 3, 10
	}
	for _, f := range spread(rng, randomPoints) {
		points = append(points, point{at: f})
	}

	cur := a
	var foundOld, foundNew, completed, randomCompleted, inconsistent int
	var landed []int
	// A publish may finish before its kill comes: random points are added
	// (up to maxPoints in all) until minKills of them killed a publish.
	for i := 0; i < len(points) || i-requestPoints-randomCompleted < minKills && len(points) < maxPoints; i++ {
		if i == len(points) {
			points = append(points, point{at: 0.8 * rng.Float64()})
		}
		pt := points[i]
		target := other(cur)
		delay := time.Duration(pt.at * float64(median(pubTimes)))
		name := fmt.Sprintf("kill %d (%s→%s, after %v)", i+1, cur.name, target.name, delay.Round(time.Millisecond))
		var when func() bool
		if pt.kind != "" {
			n := pt.n(target)
			name = fmt.Sprintf("kill %d (%s→%s, at %s: %s %d of %d)", i+1, cur.name, target.name, pt.what, pt.kind, n,
				map[s3test.Kind]int{s3test.PUT: puts[target], s3test.DELETE: deletes[target]}[pt.kind])
			when = func() bool {
				c := proxy.Counts()
				return map[s3test.Kind]int{s3test.PUT: c.PUTs, s3test.DELETE: c.DELETEs}[pt.kind] >= n
			}
			delay = time.Minute
		}
		proxy.Reset()
		res := startKill(t, publishCmd(target), delay, when)
		// What the server received takes effect before the bucket is read.
		proxy.Settle()
		switch {
		case res.finished && res.code != 0:
			t.Fatalf("%s: the publish failed by itself: exit %d: %s", name, res.code, res.stderr)
		case res.finished:
			completed++
			if pt.kind == "" {
				randomCompleted++
				pubTimes = append(pubTimes, res.ran)
			}
		}
		n := len(proxy.Keys(s3test.PUT))
		landed = append(landed, n)
		got, mismatched := served(t, name)
		if got == cur {
			foundOld++
		} else {
			foundNew++
		}
		if res.finished && got != target {
			t.Errorf("%s: the publish completed, yet the bucket serves %s", name, got.name)
		}
		if len(mismatched) > 0 {
			// Objects keep their keys (static hosting maps a query to a
			// key), so until a publish's index.json goes up, objects it
			// already replaced hold the new generation's bytes: each one a
			// whole file of A or B, the only thing a cluster reads. served
			// has checked that the flag and the journal name every such
			// object, so the next run repairs them, and readers that check
			// digests against index.json (serve --s3, mirror) refuse the
			// mix and keep their previous copy.
			inconsistent++
			t.Logf("%s: %s's index.json, %d of the files it lists hold %s's content, flagged for the next run (e.g. %v)",
				name, got.name, len(mismatched), other(got).name, mismatched[:min(3, len(mismatched))])
		}
		t.Logf("%s: %s served (%s) after %v, %d PUTs landed, %d listed files mismatched",
			name, got.name, map[bool]string{true: "new", false: "old"}[got == target], res.ran.Round(time.Millisecond), n, len(mismatched))

		publishOK(t, target, name+", next publish")
		cur = target
	}
	if kills := len(points) - requestPoints - randomCompleted; kills < minKills {
		t.Errorf("only %d publishes were killed at a random moment, want %d", kills, minKills)
	}
	full := median(pubTimes)
	t.Logf("%d kill points (%d at given requests, %d random over 0–%v, %d more over 0–0.8 × that): %d publishes killed, %d completed before their kill; %d found the old generation, %d the new one; %d left an index.json listing files that do not match it",
		len(points), requestPoints, randomPoints, full.Round(time.Millisecond), len(points)-randomPoints-requestPoints, len(points)-completed, completed, foundOld, foundNew, inconsistent)
	t.Logf("generation A %d files, B %d files, %d differ; first publish %v, a full incremental publish %v (%d/%d PUTs); PUTs landed before each kill %v; %d converged states kept a stale journal; test %v",
		len(a.files), len(b.files), differ, first.Round(time.Millisecond), full.Round(time.Millisecond), puts[b], puts[a], landed, leftJournal, time.Since(began).Round(time.Second))
}
