package sign

import "testing"

func TestParseThresholdsAndCheckRotation(t *testing.T) {
	ths, err := ParseThresholds([]string{"root=2/3", "targets=1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ths) != 2 {
		t.Fatalf("thresholds %v, want root and targets", ths)
	}
	if _, err := ParseThresholds([]string{"nope=1"}); err == nil || err.Error()[:12] != "--threshold " {
		t.Errorf("ParseThresholds(nope=1) = %v, want an error naming --threshold", err)
	}
	for _, tc := range []struct {
		roles []string
		want  string
	}{
		{[]string{"root", "targets"}, ""},
		{[]string{"root", "nope"}, `--role "nope": want one of root, targets, snapshot, timestamp`},
		{[]string{"root"}, "--threshold targets=…: targets is not rotated (add --role targets)"},
	} {
		got := ""
		if err := CheckRotation(tc.roles, ths); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckRotation(%v) = %q, want %q", tc.roles, got, tc.want)
		}
	}
}
