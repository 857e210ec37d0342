package generator

import (
	"strings"
	"testing"
	"time"

	"github.com/upgraph/upgraph/tree/manifest"
)

func TestSummary(t *testing.T) {
	ro := &manifest.Rollouts{Buckets: 10, At: "2026-11-28T08:00:00Z", SharedFiles: 5, VariantFiles: 3, DistinctVariants: 2}
	for _, tc := range []struct {
		name     string
		m        manifest.Manifest
		releases bool
		want     string
	}{
		{"releases", manifest.Manifest{Counts: manifest.Counts{Files: 9, Graphs: 2, VersionGraphs: 3}}, true,
			"wrote 9 files (2 channel × arch graphs, 3 per-version graphs) to out\n"},
		{"signatures", manifest.Manifest{Counts: manifest.Counts{Files: 9, Graphs: 2, VersionGraphs: 3, Signatures: 4}}, true,
			"wrote 9 files (2 channel × arch graphs, 3 per-version graphs, 4 release signatures) to out\n"},
		{"rollouts", manifest.Manifest{Counts: manifest.Counts{Files: 9, Graphs: 2, VersionGraphs: 3}, Rollouts: ro}, true,
			"wrote 9 files (2 channel × arch graphs, 3 per-version graphs; 0 rollouts over 10 buckets at 2026-11-28T08:00:00Z: 5 graph files shared, 3 per-bucket copies (2 distinct), no further change) to out\n"},
	} {
		if got := Summary(&tc.m, tc.releases, nil, "out"); got != tc.want {
			t.Errorf("%s: Summary = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseAtAndCheckRolloutFlags(t *testing.T) {
	def := time.Unix(42, 0)
	for _, tc := range []struct {
		at    string
		atSet bool
		want  time.Time
		err   string
	}{
		{"", false, def, ""},
		{"1700000000", true, time.Unix(1700000000, 0), ""},
		{"2026-11-28T08:00:00Z", true, time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), ""},
		{"", true, def, "--at is empty"},
		{"yesterday", true, time.Time{}, `--at "yesterday": want RFC 3339`},
	} {
		err := CheckRolloutFlags(10, tc.at, tc.atSet)
		if (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("CheckRolloutFlags(%q, %v) = %v, want %q", tc.at, tc.atSet, err, tc.err)
		}
		if tc.err != "" {
			continue
		}
		if got, err := ParseAt(tc.at, def); err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseAt(%q) = %v, %v, want %v", tc.at, got, err, tc.want)
		}
	}
	if err := CheckRolloutFlags(7, "", false); err == nil {
		t.Error("CheckRolloutFlags(7 buckets): no error, want one (not a divisor of 10000)")
	}
}
