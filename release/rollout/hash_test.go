package rollout

import (
	"math/rand/v2"
	"testing"
)

// TestMurmurHash2 pins ngx_murmur_hash2 on values computed by its C code
// (nginx 3f6f7824 src/core/ngx_murmurhash.c, compiled and run once; the
// edge tests compare with a running nginx's split_clients).
func TestMurmurHash2(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
	}{
		{"", 0},
		{"a", 0x92685f5e},
		{"ab", 0x1aa14063},
		{"abc", 0x13577c9b},
		{"abcd", 0x26873021},
		{"3e7b9d0a-8a43-4a54-9d1e-5c0f2b1a7e62", 0x7bd37a35},
	} {
		if got := MurmurHash2([]byte(tc.in)); got != tc.want {
			t.Errorf("MurmurHash2(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestSplitBounds(t *testing.T) {
	b := SplitBounds(10)
	// Each 10% part adds 1000·0xffffffff/10000 = 429496729 (rounded down).
	for i, v := range b {
		if want := uint32(429496729 * (i + 1)); v != want {
			t.Errorf("bound %d = %d, want %d", i, v, want)
		}
	}
	if len(SplitBounds(1)) != 0 || HashBucket("x", 1) != 1 {
		t.Errorf("one bucket: every id in bucket 1")
	}
}

func TestCheckBuckets(t *testing.T) {
	for _, n := range []int{1, 2, 4, 5, 8, 10, 16, 20, 25, 100, 10000} {
		if err := CheckBuckets(n); err != nil {
			t.Errorf("%d: %v", n, err)
		}
	}
	for _, n := range []int{0, -1, 3, 7, 12, 20000} {
		if CheckBuckets(n) == nil {
			t.Errorf("%d accepted", n)
		}
	}
}

func TestWarinessBucket(t *testing.T) {
	for _, tc := range []struct {
		w    string
		n    int
		want int
		ok   bool
	}{
		{"0", 10, 0, true}, {"0.000000", 10, 0, true}, {"-3", 10, 0, true},
		{"0.000001", 10, 1, true}, {"0.1", 10, 1, true}, {"0.100000", 10, 1, true},
		{"0.100001", 10, 2, true}, {"0.3", 10, 3, true}, {".35", 10, 4, true},
		{"0.999999", 10, 10, true}, {"1", 10, 10, true}, {"1.000", 10, 10, true}, {"7", 10, 10, true},
		{"0.5", 4, 2, true}, {"0.26", 4, 2, true}, {"0.25", 4, 1, true},
		{"+0.5", 10, 5, true}, {"5.", 10, 10, true},
		{"", 10, 0, false}, {"abc", 10, 0, false}, {"1e-1", 10, 0, false}, {"NaN", 10, 0, false}, {"0.5.1", 10, 0, false},
	} {
		got, ok := WarinessBucket(tc.w, tc.n)
		if got != tc.want || ok != tc.ok {
			t.Errorf("WarinessBucket(%q, %d) = %d, %v, want %d, %v", tc.w, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBucket(t *testing.T) {
	n := 10
	id := "a5b3e0c2-1d3f-4e5a-9b8c-7d6e5f4a3b2c"
	for _, tc := range []struct {
		q    Query
		want int
	}{
		{Query{}, NoIDBucket(n)},
		{Query{Wariness: "0", HasWariness: true, ID: id}, 0},
		{Query{Wariness: "junk", HasWariness: true, ID: id}, HashBucket(id, n)},
		{Query{ID: id}, HashBucket(id, n)},
		{Query{NodeUUID: "abc"}, HashBucket("abc", n)},
		{Query{ID: id, NodeUUID: "abc"}, HashBucket(id, n)},
	} {
		if got := Bucket(tc.q, n); got != tc.want {
			t.Errorf("Bucket(%+v) = %d, want %d", tc.q, got, tc.want)
		}
	}
}

// TestShare: over 100,000 random UUIDs, the share of ids in each bucket
// (so the share offered a release with k buckets open) is within ±1 % of
// its nominal share.
func TestShare(t *testing.T) {
	const ids = 100_000
	for _, n := range []int{10, 4, 100} {
		rng := rand.New(rand.NewPCG(uint64(n), 28))
		count := make([]int, n+1)
		for range ids {
			count[HashBucket(RandomUUID(rng), n)]++
		}
		open := 0
		for k := 1; k <= n; k++ {
			open += count[k]
			share, want := float64(open)/ids, float64(k)/float64(n)
			if share < want-0.01 || share > want+0.01 {
				t.Errorf("n=%d: %d buckets open hold %.4f of ids, want %.2f ± 0.01", n, k, share, want)
			}
		}
		if n == 10 {
			t.Logf("n=10, 100,000 ids: per-bucket counts %v", count[1:])
		}
	}
}
