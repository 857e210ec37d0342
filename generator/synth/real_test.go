package synth

import (
	"os"
	"slices"
	"testing"
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
