package generator

import "testing"

// TestSameCuts: a previous segmented copy is carried over only when its
// segments are the parts the file is cut into now.
func TestSameCuts(t *testing.T) {
	for _, tc := range []struct {
		name string
		segs [][2]int64
		cuts []int
		size int
		want bool
	}{
		{"same", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10, 30}, 35, true},
		{"other cut", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{11, 30}, 35, false},
		{"one segment more", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10}, 35, false},
		{"other size", [][2]int64{{10, 5}, {20, 7}, {5, 4}}, []int{10, 30}, 36, false},
		{"no table", nil, []int{10}, 20, false},
	} {
		if got := sameCuts(tc.segs, tc.cuts, tc.size); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
