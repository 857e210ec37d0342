package main

import (
	"testing"

	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/manifest"
)

func init() {
	invalidFlags["plan --id"] = badFlag{bad: []string{""}}
	invalidFlags["plan --wariness"] = badFlag{bad: []string{"", "high", "1e-1"}}
}

// TestHopAvailability: a hop into a rolling release is available now to
// an open bucket and to the canary once started, from its bucket's opening
// (the canary's: the start) to the others,
// never past a rollout without duration; a channel-limited rollout leaves
// other channels' hops alone.
func TestHopAvailability(t *testing.T) {
	ro := &manifest.Rollouts{Buckets: 4, At: "2026-01-01T00:00:00Z", Releases: []manifest.RolloutRelease{
		{Version: "4.16.2", Opens: []string{"2025-12-31T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T06:00:00Z", "2026-01-01T12:00:00Z"}},
		{Version: "4.16.3", Channels: []string{"stable-4.16"}, Opens: []string{"2025-12-31T00:00:00Z", "", "", ""}},
		{Version: "4.16.4", StartEpoch: 1767261600, Opens: []string{"2026-01-01T10:00:00Z", "2026-01-01T11:00:00Z", "2026-01-01T12:00:00Z", "2026-01-01T13:00:00Z"}}, // starts 10:00
	}}
	hop := func(to string, channels ...string) path.ReportHop {
		return path.ReportHop{Hop: path.Hop{From: "4.16.1", To: to}, Channels: channels}
	}
	for _, tc := range []struct {
		k    int
		hop  path.ReportHop
		want HopAvailability
	}{
		{0, hop("4.16.2", "fast-4.16"), HopAvailability{To: "4.16.2", Now: true}},
		{0, hop("4.16.4", "fast-4.16"), HopAvailability{To: "4.16.4", From: "2026-01-01T10:00:00Z"}},
		{2, hop("4.16.2", "fast-4.16"), HopAvailability{To: "4.16.2", Now: true}},
		{3, hop("4.16.2", "fast-4.16"), HopAvailability{To: "4.16.2", From: "2026-01-01T06:00:00Z"}},
		{4, hop("4.16.3", "stable-4.16"), HopAvailability{To: "4.16.3", Never: true}},
		{4, hop("4.16.3", "fast-4.16"), HopAvailability{To: "4.16.3", Now: true}},
		{4, hop("4.16.0", "fast-4.16"), HopAvailability{To: "4.16.0", Now: true}},
	} {
		if got := hopAvailability(ro, tc.k, tc.hop); got != tc.want {
			t.Errorf("bucket %d, hop to %s: %+v, want %+v", tc.k, tc.hop.To, got, tc.want)
		}
	}
}
