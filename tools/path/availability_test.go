package path

import (
	"testing"

	"github.com/upgraph/upgraph/tree/manifest"
)

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
	hop := func(to string, channels ...string) ReportHop {
		return ReportHop{Hop: Hop{From: "4.16.1", To: to}, Channels: channels}
	}
	for _, tc := range []struct {
		k    int
		hop  ReportHop
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

// TestClusterCheck: one of --id and --wariness, a wariness that is a
// plain decimal from 0 to 1, an id that is not empty.
func TestClusterCheck(t *testing.T) {
	for _, tc := range []struct {
		c    Cluster
		want string
	}{
		{Cluster{}, ""},
		{Cluster{ID: "abc", HasID: true}, ""},
		{Cluster{Wariness: "0.5", HasWariness: true}, ""},
		{Cluster{ID: "abc", HasID: true, Wariness: "0.5", HasWariness: true}, "--id and --wariness: give one (a cluster sending rollout_wariness is bucketed by it)"},
		{Cluster{Wariness: "high", HasWariness: true}, `--wariness "high": want a plain decimal from 0 to 1`},
		{Cluster{Wariness: "1e-1", HasWariness: true}, `--wariness "1e-1": want a plain decimal from 0 to 1`},
		{Cluster{HasID: true}, "--id: empty value: want the cluster's id"},
	} {
		got := ""
		if err := tc.c.Check(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.c, got, tc.want)
		}
	}
}
