package synth

import (
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestRealGraphData(t *testing.T) {
	fsys := realTree(t)
	versions, err := Versions(fsys)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := FromGraphData(os.DirFS(realGraphData))
	if err != nil {
		t.Fatal(err)
	}
	total, maxPrev := 0, 0
	arches := map[string]int{}
	for _, r := range rs {
		total += len(r.Previous)
		maxPrev = max(maxPrev, len(r.Previous))
		arches[r.Arch]++
	}
	t.Logf("%d versions, %d releases, %d previous entries (max %d per release), per arch %v",
		len(versions), len(rs), total, maxPrev, arches)

	if n := len(versions); n < 1300 || n > 1500 {
		t.Errorf("got %d versions, want about 1,384", n)
	}
	if n := len(rs); n < 5000 || n > 6500 {
		t.Errorf("got %d releases, want about 5,700", n)
	}
	if total < 200_000 || total > 900_000 {
		t.Errorf("got %d previous entries, want on the order of 300k", total)
	}

	ids := byID(rs)
	for _, v := range versions {
		_, amd := ids[v+"+amd64"]
		if legacy := isLegacyS390X(v); amd == legacy {
			t.Errorf("version %s: has amd64 = %v, legacy s390x = %v", v, amd, legacy)
		}
	}
	for _, r := range rs {
		for _, p := range r.Previous {
			if _, ok := ids[p+"+"+r.Arch]; !ok {
				t.Fatalf("%s+%s: previous %s does not exist for the arch", r.Version, r.Arch, p)
			}
		}
		if !slices.IsSortedFunc(r.Previous, cmpStrings(t)) {
			t.Fatalf("%s+%s: previous not ascending: %v", r.Version, r.Arch, r.Previous)
		}
	}
}

func BenchmarkFromGraphData(b *testing.B) {
	fsys := realTree(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromGraphData(fsys); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRealGraphDataMajorHop: candidate-5.0 lists 4.22.z beside 5.0.0-ec.N,
// and every synthesised 5.0 release lists the GA 4.22.z as previous, as
// real 5.0 release metadata does (not 4.21, and not 4.22's candidates).
func TestRealGraphDataMajorHop(t *testing.T) {
	fsys := realTree(t)
	var ch struct{ Versions []string }
	if err := yaml.Unmarshal(fsys["channels/candidate-5.0.yaml"].Data, &ch); err != nil {
		t.Fatal(err)
	}
	var ga422, in50 []string
	for _, v := range ch.Versions {
		switch {
		case strings.HasPrefix(v, "4.22.") && !strings.Contains(v, "-"):
			ga422 = append(ga422, v)
		case strings.HasPrefix(v, "5.0."):
			in50 = append(in50, v)
		}
	}
	slices.SortFunc(ga422, cmpStrings(t))
	if len(ga422) < 10 || len(in50) < 5 {
		t.Fatalf("candidate-5.0 lists %d GA 4.22.z and %d 5.0 versions; want the snapshot's 12 and 7", len(ga422), len(in50))
	}
	rs := mustReleases(t, fsys)
	n := 0
	for _, r := range rs {
		if !strings.HasPrefix(r.Version, "5.0.") {
			continue
		}
		n++
		var from422 []string
		for _, p := range r.Previous {
			switch {
			case strings.HasPrefix(p, "4.22."):
				from422 = append(from422, p)
			case !strings.HasPrefix(p, "5.0."):
				t.Errorf("%s+%s: previous %s is neither 4.22 nor 5.0", r.Version, r.Arch, p)
			}
		}
		// The GA 4.22.z (every one the channels name: candidate-5.0's and
		// any other), no 4.22 candidate.
		missing := slices.ContainsFunc(ga422, func(v string) bool { return !slices.Contains(from422, v) })
		if missing || slices.ContainsFunc(from422, func(p string) bool { return strings.Contains(p, "-") }) {
			t.Errorf("%s+%s: 4.22 previous %v, want the GA 4.22.z %v", r.Version, r.Arch, from422, ga422)
		}
	}
	if n != len(in50)*len(archIntros()) {
		t.Errorf("%d 5.0 releases, want %d versions × %d arches", n, len(in50), len(archIntros()))
	}
}
