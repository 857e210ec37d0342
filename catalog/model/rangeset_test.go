package model

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"
	"github.com/upgraph/upgraph/internal/cputime"
)

// rangeTestVersions are versions around every comparator version of the
// range (equal, with a pre-release, with build metadata, one patch, minor
// and major up and down) plus extra, newest first, with duplicates: what
// the binary search must cut right.
func rangeTestVersions(set rangeSet, extra []semver.Version) []semver.Version {
	var out []semver.Version
	near := func(v semver.Version) {
		out = append(out, v)
		w := v
		w.Pre = []semver.PRVersion{{VersionStr: "alpha"}}
		out = append(out, w)
		w = v
		w.Pre = nil
		w.Build = []string{"b1"}
		out = append(out, w, w)
		for _, d := range [][3]int{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {0, 0, -1}, {0, -1, 0}, {-1, 0, 0}} {
			w := semver.Version{Major: v.Major + uint64(d[0]), Minor: v.Minor + uint64(d[1]), Patch: v.Patch + uint64(d[2])}
			if (d[0] < 0 && v.Major == 0) || (d[1] < 0 && v.Minor == 0) || (d[2] < 0 && v.Patch == 0) {
				continue
			}
			out = append(out, w)
		}
	}
	for _, b := range set {
		for _, v := range []*semver.Version{b.lo, b.hi} {
			if v != nil {
				near(*v)
			}
		}
		for _, v := range b.not {
			near(v)
		}
	}
	out = append(out, extra...)
	slices.SortStableFunc(out, func(a, b semver.Version) int { return b.Compare(a) })
	return out
}

// checkRangeSet holds parseRangeSet and rangeSet.spans to blang: the same
// error or not, and over versions the spans the closure gives.
func checkRangeSet(t *testing.T, s string, extra []semver.Version) {
	t.Helper()
	r, err := semver.ParseRange(s)
	set, serr := parseRangeSet(s)
	if errors.Is(serr, errRangeEmptyBranch) {
		if err != nil {
			t.Fatalf("%q: empty branch reported, blang refuses it: %v", s, err)
		}
		return // blang's closure panics: Convert refuses the range
	}
	if (err == nil) != (serr == nil) {
		t.Fatalf("%q: blang error %v, parseRangeSet error %v", s, err, serr)
	}
	if err != nil {
		return
	}
	versions := rangeTestVersions(set, extra)
	for _, v := range versions {
		if got, want := set.holds(v), r(v); got != want {
			t.Fatalf("%q holds %s: rangeSet %v, blang %v", s, v, got, want)
		}
	}
	want := spans(len(versions), func(i int) bool { return r(versions[i]) })
	if got := set.spans(versions); !slices.Equal(got, want) {
		t.Fatalf("%q over %v: spans %v, closure %v", s, versions, got, want)
	}
	if got := rangeSpans(s, r, versions); !slices.Equal(got, want) {
		t.Fatalf("%q over %v: rangeSpans %v, closure %v", s, versions, got, want)
	}
}

func TestRangeSetMatchesBlang(t *testing.T) {
	extra := []semver.Version{semver.MustParse("0.0.0"), semver.MustParse("0.0.1-rc.1"), semver.MustParse("1.0.0"),
		semver.MustParse("1.0.0"), semver.MustParse("1.1.0"), semver.MustParse("2.0.0-0"), semver.MustParse("99.0.0")}
	for _, s := range []string{
		"<1.0.0", "<=1.0.0", ">1.0.0", ">=1.0.0", "1.0.0", "=1.0.0", "==1.0.0", "!1.0.0", "!=1.0.0",
		">=1.0.0 <2.0.0", ">1.0.0 <3.0.0 !2.0.3-beta.2", "<2.0.0 || >=3.0.0", ">1.0.0 <2.0.0 || >3.0.0 !4.2.1",
		">= 1.0.0 < 2.0.0", ">=1.0.0  <2.0.0", " >=1.0.0 ", ">=4.1.0 <4.2.0-0", ">=1.0.0-alpha <1.0.0",
		"<1.0.0+build", "=1.0.0+b2", "!=1.0.0 !=1.1.0 !=1.0.0 >0.9.0 <=1.1.0", ">2.0.0 <1.0.0", ">1.0.0 <1.0.0", "1.0.0 2.0.0",
		"1.x", "1.2.x", "1.x.x", ">1.x", ">=1.x", "<1.x", "<=1.x", "!=1.x", ">1.2.x", "<=1.2.x", "<=1.x.x", "!1.2.x",
		"~1.x", "=>1.x", "1.x.3", ">=1.0.0-xyz", "1.0.0-xyz", "1.2x.x", "99999999999999999999.x", "9223372036854775807.x",
		"1.X", "1.*", "*", "x", "", " ", "||", "|| 1.0.0", "1.0.0 ||", "1.0.0 || || 2.0.0", "1.0.0 ||  || 2.0.0",
		"1 >1.0.0", ">1.0.0 5", ">1.0.0 >", "> 1.0.0", ">1.0.0\t<2.0.0", "\t>1.0.0", ">v1.0.0", "<01.0.0", "<1.0",
		"~1.0.0", "^1.0.0", ">=1.0.0,<2.0.0", "1.0.0 - 2.0.0", ">=١.0.0",
	} {
		t.Run(s, func(t *testing.T) { checkRangeSet(t, s, extra) })
	}
}

func TestSkipRangeSpansTable(t *testing.T) {
	vs := func(s ...string) []semver.Version {
		out := make([]semver.Version, len(s))
		for i, x := range s {
			out[i] = semver.MustParse(x)
		}
		return out
	}
	list := vs("3.0.0", "2.1.0", "2.0.0", "2.0.0+b", "2.0.0-rc.1", "1.5.0", "1.0.0", "0.9.0")
	for _, c := range []struct {
		rng  string
		want []Span
	}{
		{"<2.0.0", []Span{{4, 7}}},
		{"<=2.0.0", []Span{{2, 7}}}, // 2.0.0+b is 2.0.0 for blang
		{">=1.0.0 !=2.0.0", []Span{{0, 1}, {4, 6}}},
		{"<1.0.0 || >2.0.0", []Span{{0, 1}, {7, 7}}},
		{"<1.5.0 || >=1.5.0 <2.0.0", []Span{{4, 7}}}, // adjacent branches: one span
		{">5.0.0", nil},
		{"1.x || 3.x", []Span{{0, 0}, {4, 6}}}, // 2.0.0-rc.1 < 2.0.0
	} {
		r := semver.MustParseRange(c.rng)
		got := rangeSpans(c.rng, r, list)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.rng, got, c.want)
		}
		checkRangeSet(t, c.rng, list)
	}
}

func TestConvertRefusesEmptyRangeBranch(t *testing.T) {
	_, err := parseRangeSet(">1.0.0 || || <0.5.0")
	if !errors.Is(err, errRangeEmptyBranch) {
		t.Fatalf("got %v", err)
	}
}

// FuzzSkipRangeSpans holds parseRangeSet and rangeSet.spans to blang's
// ParseRange and its closure: a random range and versions (comma
// separated; those that do not parse are left out) plus versions around
// each comparator of the range.
func FuzzSkipRangeSpans(f *testing.F) {
	for _, s := range []string{">=1.0.0 <2.0.0", "<2.0.0 || >=3.0.0 !=3.1.0", "1.x", "<=1.2.x", "!=1.x || =2.0.0-rc.1",
		"> 1.0.0 <= 2.0.0+b", "~1.x", "1.0.0 || || 2.0.0", ">1.0.0 5"} {
		f.Add(s, "1.0.0,1.5.0,2.0.0-rc.1,2.0.0,3.1.0,0.1.0")
	}
	f.Fuzz(func(t *testing.T, rng, list string) {
		if len(rng) > 400 || len(list) > 2000 {
			return
		}
		var extra []semver.Version
		for _, s := range strings.Split(list, ",") {
			if v, err := semver.Parse(s); err == nil {
				extra = append(extra, v)
			}
		}
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%q: %v", rng, fmt.Sprint(p))
			}
		}()
		checkRangeSet(t, rng, extra)
	})
}

// BenchmarkSkipRangeSpans: the skipRange spans of a channel of n
// bundles 1.0.0 … each replacing the one before with skipRange
// "<1.0.i" (holding every older one), what Channel.Graph computes;
// "closure" asks blang's closure about every entry for every range (the
// graph before rangeSet), "intervals" is rangeSpans. CPU time per
// channel.
func BenchmarkSkipRangeSpans(b *testing.B) {
	for _, way := range []string{"closure", "intervals"} {
		for _, n := range []int{500, 1000, 2000, 4000} {
			b.Run(fmt.Sprintf("%s/%d", way, n), func(b *testing.B) {
				versions := make([]semver.Version, n)
				ranges := make([]string, n)
				for i := range n {
					versions[i] = semver.Version{Major: 1, Patch: uint64(n - 1 - i)} // newest first
					ranges[i] = fmt.Sprintf("<1.0.%d", n-1-i)
				}
				parsed := make([]semver.Range, n)
				for i, s := range ranges {
					parsed[i] = semver.MustParseRange(s)
				}
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					for i, r := range parsed {
						var sp []Span
						if way == "closure" {
							sp = spans(n, func(j int) bool { return r(versions[j]) })
						} else {
							sp = rangeSpans(ranges[i], r, versions)
						}
						if i < n-1 && (len(sp) != 1 || sp[0] != Span{i + 1, n - 1}) {
							b.Fatalf("range %s: %v", ranges[i], sp)
						}
					}
				}
				reportCPU(b, cpu0)
			})
		}
	}
}

// TestGraphSkipRangesMatchClosure: the spans of every channel and
// package graph of generated channels and of the shared catalog are
// blang's closure asked about every node.
func TestGraphSkipRangesMatchClosure(t *testing.T) {
	var cats []*Catalog
	for seed := range uint64(100) {
		rng := rand.New(rand.NewPCG(seed, 3))
		cats = append(cats, Convert(generatedChannel(t, rng, 1+rng.IntN(60))))
	}
	cats = append(cats, Convert(sharedConfig(t)))
	ranged := 0
	for _, c := range cats {
		for _, p := range c.Packages {
			for _, ch := range p.Channels {
				g := ch.Graph()
				for i, n := range g.Nodes {
					e := ch.Entry(n.Name)
					if e.Range == nil {
						continue
					}
					ranged++
					want := spans(len(g.Nodes), func(j int) bool {
						x := ch.Entry(g.Nodes[j].Name).Bundle
						return x != nil && x.VersionOK && e.Range(x.Version)
					})
					if !slices.Equal(g.Nodes[i].SkipRangeFrom, want) {
						t.Errorf("%s/%s/%s %q: %v, want %v", p.Name, ch.Name, n.Name, e.SkipRange, g.Nodes[i].SkipRangeFrom, want)
					}
				}
			}
			g := p.Graph()
			for _, n := range g.Nodes {
				for _, sr := range n.SkipRanges {
					r, err := semver.ParseRange(sr.Range)
					var want []Span
					if err != nil {
						want = []Span{}
					} else {
						want = spans(len(g.Nodes), func(j int) bool {
							b := p.Bundle(g.Nodes[j].Name)
							return b.VersionOK && r(b.Version)
						})
					}
					if !slices.Equal(sr.From, want) || (sr.From == nil) != (want == nil) {
						t.Errorf("package %s/%s %q: %v, want %v", p.Name, n.Name, sr.Range, sr.From, want)
					}
				}
			}
		}
	}
	t.Logf("%d entries with a skipRange", ranged)
}

// TestConvertRefusesEmptyRangeBranchCatalog: a skipRange with an empty
// "||" branch is an F19 error and draws nothing (blang's range would
// panic in Graph).
func TestConvertRefusesEmptyRangeBranchCatalog(t *testing.T) {
	cfg := replacesChain(t, 3)
	cfg.Channels[0].Entries[2].SkipRange = ">1.0.0 || || <0.5.0"
	c := Convert(cfg)
	e := c.Package("p").Channel("stable").Entry("p.v1.0.2")
	if e.Range != nil || !errors.Is(e.RangeErr, errRangeEmptyBranch) {
		t.Fatalf("range %v, error %v", e.Range != nil, e.RangeErr)
	}
	found := false
	for _, p := range c.Problems {
		found = found || p.Rule == RuleSkipRange && strings.Contains(p.Message, "empty branch")
	}
	if !found {
		t.Errorf("no F19 problem: %v", c.Problems)
	}
	for _, n := range c.Package("p").Channel("stable").Graph().Nodes {
		if len(n.SkipRangeFrom) > 0 {
			t.Errorf("%s holds %v", n.Name, n.SkipRangeFrom)
		}
	}
	c.Package("p").Graph()
}
