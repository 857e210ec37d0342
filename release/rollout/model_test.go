package rollout

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestThrottling(t *testing.T) {
	r := Rollout{StartEpoch: 1000, StartValue: 0.2, DurationMinutes: 10} // end 1600
	for _, tc := range []struct {
		now  int64
		want float64
	}{
		{999, 0}, {1000, 0.2}, {1300, 0.6}, {1600, 1}, {1601, 1}, {100000, 1},
	} {
		if got := r.Throttling(tc.now); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Throttling(%d) = %v, want %v", tc.now, got, tc.want)
		}
	}
	flat := Rollout{StartEpoch: 1000, StartValue: 0.3}
	if got := flat.Throttling(5e9); got != 0.3 {
		t.Errorf("no duration: Throttling = %v, want the start value 0.3", got)
	}
	if got := flat.Throttling(999); got != 0 {
		t.Errorf("no duration, before start: %v, want 0", got)
	}
}

// TestOpens: each bucket opens at the first second its upper wariness is
// reached, never before the start; the canary opens at the start.
func TestOpens(t *testing.T) {
	r := Rollout{StartEpoch: 1000, StartValue: 0.1, DurationMinutes: 100} // end 7000
	n := 10
	for k := 0; k <= n; k++ {
		at, ok := r.Opens(k, n)
		if !ok {
			t.Fatalf("bucket %d never opens", k)
		}
		if !r.Offered(k, n, at) || (at > r.StartEpoch && r.Offered(k, n, at-1)) {
			t.Errorf("bucket %d: Opens = %d is not the first second offered", k, at)
		}
		if at < r.StartEpoch {
			t.Errorf("bucket %d opens at %d, before the start", k, at)
		}
	}
	if at, _ := r.Opens(1, n); at != 1000 {
		t.Errorf("bucket 1 (0.1 ≤ start value) opens at %d, want the start", at)
	}
	// Bucket 5 (wariness 0.5): 0.1 + 0.9·(t−1000)/6000 ≥ 0.5 ⇔ t ≥ 1000 + 2666.67.
	if at, _ := r.Opens(5, n); at != 3667 {
		t.Errorf("bucket 5 opens at %d, want 3667", at)
	}
	flat := Rollout{StartEpoch: 1000, StartValue: 0.3}
	if _, ok := flat.Opens(4, n); ok {
		t.Errorf("no duration: bucket 4 (0.4 > 0.3) opens")
	}
}

// TestTimeline steps time from before the start to after the end: the
// share offered never decreases, no bucket once offered is withdrawn, and
// every bucket is offered at the end; NextChange names exactly the
// instants the answer changes.
func TestTimeline(t *testing.T) {
	rs := []Rollout{
		{Version: "4.16.3", StartEpoch: 10_000, StartValue: 0.05, DurationMinutes: 7 * 24 * 60},
		{Version: "4.16.4", StartEpoch: 50_000, StartValue: 0, DurationMinutes: 90},
	}
	for _, n := range []int{1, 4, 10, 100} {
		for i := range rs {
			r := &rs[i]
			prev := make([]bool, n+1)
			prevOpen := -1
			for now := r.StartEpoch - 600; now <= r.End()+600; now += 37 {
				open := r.OpenBuckets(n, now)
				if open < prevOpen {
					t.Fatalf("n=%d %s: %d buckets at %d, %d before", n, r.Version, open, now, prevOpen)
				}
				prevOpen = open
				for k := 1; k <= n; k++ {
					o := r.Offered(k, n, now)
					if prev[k] && !o {
						t.Fatalf("n=%d %s: bucket %d withdrawn at %d", n, r.Version, k, now)
					}
					prev[k] = o
				}
			}
			if prevOpen != n {
				t.Errorf("n=%d %s: %d of %d buckets at the end", n, r.Version, prevOpen, n)
			}
		}
		// NextChange: the answers at now and at next-1 agree, at next they differ.
		for now := int64(9_000); ; {
			next, ok := NextChange(rs, n, now)
			if !ok {
				break
			}
			if same(rs, n, now, next-1) == false || same(rs, n, now, next) {
				t.Fatalf("n=%d: NextChange(%d) = %d is not the next change", n, now, next)
			}
			now = next
		}
	}
}

// same reports whether every bucket, the canary included, is offered the
// same releases at a and at b.
func same(rs []Rollout, n int, a, b int64) bool {
	for i := range rs {
		for k := 0; k <= n; k++ {
			if rs[i].Offered(k, n, a) != rs[i].Offered(k, n, b) {
				return false
			}
		}
	}
	return true
}

// TestCanary: wariness 0 (bucket 0, rollout_wariness=0) is offered
// everything that has started and nothing that has not, as issue 28
// says (FCOS offers it a release before its start: docs/rollouts.md);
// it opens at the start, which NextChange names even when no other
// bucket opens then.
func TestCanary(t *testing.T) {
	const n = 10
	for _, tc := range []struct {
		name string
		r    Rollout
		now  int64
		want bool
	}{
		{"before the start", Rollout{StartEpoch: 1000, StartValue: 0.1, DurationMinutes: 100}, 999, false},
		{"at the start", Rollout{StartEpoch: 1000, StartValue: 0.1, DurationMinutes: 100}, 1000, true},
		{"start value 0, at the start", Rollout{StartEpoch: 1000, DurationMinutes: 100}, 1000, true},
		{"no duration, start value 0", Rollout{StartEpoch: 1000}, 5000, true},
		{"no duration, before the start", Rollout{StartEpoch: 1000, StartValue: 1}, 999, false},
		{"after the end", Rollout{StartEpoch: 1000, DurationMinutes: 1}, 2000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Offered(0, n, tc.now); got != tc.want {
				t.Errorf("Offered(0) at %d = %v, want %v", tc.now, got, tc.want)
			}
			if got, ok := tc.r.Opens(0, n); !ok || got != tc.r.StartEpoch {
				t.Errorf("Opens(0) = %d, %v; want the start %d", got, ok, tc.r.StartEpoch)
			}
			for k := 1; k <= n; k++ {
				if tc.now < tc.r.StartEpoch && tc.r.Offered(k, n, tc.now) {
					t.Errorf("bucket %d offered before the start", k)
				}
			}
		})
	}
	// Start value 0: only the canary opens at the start.
	r := []Rollout{{StartEpoch: 1000, DurationMinutes: 100}}
	if next, ok := NextChange(r, n, 500); !ok || next != 1000 {
		t.Errorf("NextChange before the start = %d, %v; want the start (the canary opens)", next, ok)
	}
	if k, ok := WarinessBucket("0.000000", n); !ok || k != 0 {
		t.Errorf("rollout_wariness=0.000000 is bucket %d, want the canary 0", k)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, wantErr string
		want                Rollout
	}{
		{"full", "version: 4.16.3\nchannels: [stable-4.16]\nstart_epoch: 1790000000\nstart_percentage: 0.1\nduration_minutes: 2880\n", "",
			Rollout{Version: "4.16.3", Channels: []string{"stable-4.16"}, StartEpoch: 1790000000, StartValue: 0.1, DurationMinutes: 2880}},
		{"minimal", "version: 4.16.3\nstart_epoch: 0\nstart_percentage: 1\n", "", Rollout{Version: "4.16.3", StartValue: 1}},
		{"percent not fraction", "version: 4.16.3\nstart_epoch: 1\nstart_percentage: 10\n", "f.yaml:3: start_percentage", Rollout{}},
		{"unknown key", "version: 4.16.3\nstart_epoch: 1\nstart_percentage: 0\nstart: now\n", `f.yaml:4: unknown key "start"`, Rollout{}},
		{"missing", "version: 4.16.3\n", "f.yaml:1: missing start_epoch", Rollout{}},
		{"zero duration", "version: 4.16.3\nstart_epoch: 1\nstart_percentage: 0\nduration_minutes: 0\n", "f.yaml:4: duration_minutes", Rollout{}},
		{"bad version", "version: four\nstart_epoch: 1\nstart_percentage: 0\n", "f.yaml:1: version", Rollout{}},
		{"bad channel", "version: 4.16.3\nchannels: [Stable]\nstart_epoch: 1\nstart_percentage: 0\n", "f.yaml:2: channels", Rollout{}},
		{"epoch string", "version: 4.16.3\nstart_epoch: '1'\nstart_percentage: 0\n", "f.yaml:2: start_epoch", Rollout{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse("f.yaml", []byte(tc.yaml))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.File, tc.want.Line = "f.yaml", 1
			if got.Version != tc.want.Version || got.StartEpoch != tc.want.StartEpoch || got.StartValue != tc.want.StartValue ||
				got.DurationMinutes != tc.want.DurationMinutes || strings.Join(got.Channels, ",") != strings.Join(tc.want.Channels, ",") {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestConflicts(t *testing.T) {
	rs := []Rollout{
		{Version: "4.16.3", Channels: []string{"fast-4.16"}, File: "a.yaml", Line: 1},
		{Version: "4.16.3", Channels: []string{"stable-4.16"}, File: "b.yaml", Line: 1},
		{Version: "4.16.3", File: "c.yaml", Line: 1},
	}
	errs := conflicts(rs)
	if len(errs) != 2 {
		t.Fatalf("conflicts: %v, want c.yaml against a.yaml and b.yaml", errs)
	}
	if conflicts(rs[:2]) != nil {
		t.Errorf("rollouts in distinct channels conflict")
	}
}

// TestOfferedShare is issue 28's share check: over 100,000 random cluster
// ids, stepping T from before the start to past the end, the fraction of
// clusters offered the release (their id's bucket offered) is the
// fraction of open buckets within ±1 %, never decreases, no cluster once
// offered loses it, and every cluster has it at the end.
func TestOfferedShare(t *testing.T) {
	const ids, n = 100_000, 10
	r := Rollout{Version: "4.16.3", StartEpoch: 1_000_000, StartValue: 0.05, DurationMinutes: 48 * 60}
	rng := rand.New(rand.NewPCG(100, 28))
	buckets := make([]int, ids)
	for i := range buckets {
		buckets[i] = HashBucket(RandomUUID(rng), n)
	}
	offered := make([]bool, ids)
	prevShare := -1.0
	worst := 0.0
	for now := r.StartEpoch - 3600; now <= r.End()+3600; now += 1800 {
		count := 0
		for i, k := range buckets {
			o := r.Offered(k, n, now)
			if offered[i] && !o {
				t.Fatalf("cluster %d (bucket %d) withdrawn at %d", i, k, now)
			}
			offered[i] = o
			if o {
				count++
			}
		}
		share, want := float64(count)/ids, float64(r.OpenBuckets(n, now))/n
		worst = max(worst, math.Abs(share-want))
		if math.Abs(share-want) > 0.01 {
			t.Errorf("at %d: %.4f of clusters offered, %.2f of buckets open", now, share, want)
		}
		if share < prevShare {
			t.Errorf("at %d: share fell from %.4f to %.4f", now, prevShare, share)
		}
		prevShare = share
	}
	if prevShare != 1 {
		t.Errorf("share at the end %.4f, want 1", prevShare)
	}
	t.Logf("100,000 ids, 10 buckets: largest gap between the share offered and the open buckets' share %.4f", worst)
}
