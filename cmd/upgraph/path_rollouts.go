package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/manifest"
	ver "github.com/upgraph/upgraph/tree/version"
)

// clusterFlags name the cluster whose phased-rollout bucket path answers
// for (docs/rollouts.md).
func clusterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "id", Usage: "phased rollouts: the cluster's id (spec.clusterID); say when each hop becomes available to it"},
		&cli.StringFlag{Name: "wariness", Usage: "phased rollouts: the cluster's rollout_wariness, a decimal from 0 to 1, instead of --id"},
	}
}

// HopAvailability says when a hop's target is offered to the cluster's
// bucket: Now, From (RFC 3339), or Never (a rollout without duration that
// does not reach the bucket).
type HopAvailability struct {
	To    string `json:"to"`
	Now   bool   `json:"now"`
	From  string `json:"from,omitempty"`
	Never bool   `json:"never,omitempty"`
}

// ClusterAvailability is path's answer for one cluster of a tree with
// rollouts.
type ClusterAvailability struct {
	Bucket  int               `json:"bucket"`
	Buckets int               `json:"buckets"`
	At      string            `json:"at"`
	Hops    []HopAvailability `json:"hops"`
}

// checkClusterFlags refuses a malformed --wariness or both flags.
func checkClusterFlags(c *cli.Context) error {
	if c.IsSet("id") && c.IsSet("wariness") {
		return fmt.Errorf("--id and --wariness: give one (a cluster sending rollout_wariness is bucketed by it)")
	}
	if c.IsSet("wariness") {
		if _, ok := rollout.WarinessBucket(c.String("wariness"), 10); !ok {
			return fmt.Errorf("--wariness %q: want a plain decimal from 0 to 1", c.String("wariness"))
		}
	}
	if c.IsSet("id") && c.String("id") == "" {
		return fmt.Errorf("--id: empty value: want the cluster's id")
	}
	return nil
}

// clusterAvailability computes, for the cluster the flags name, when each
// hop of r becomes available in the tree's rollouts; nil without the
// flags.
func clusterAvailability(c *cli.Context, src *mirror.Source, r *path.Report) (*ClusterAvailability, error) {
	if !c.IsSet("id") && !c.IsSet("wariness") {
		return nil, nil
	}
	if !src.IsTree() || src.Tree.Manifest().Rollouts == nil {
		return nil, fmt.Errorf("--id/--wariness: %s has no phased rollouts (only a tree records them): every hop is available to every cluster", c.String("source"))
	}
	ro := src.Tree.Manifest().Rollouts
	q := rollout.Query{ID: c.String("id"), Wariness: c.String("wariness"), HasWariness: c.IsSet("wariness")}
	k := rollout.Bucket(q, ro.Buckets)
	out := &ClusterAvailability{Bucket: k, Buckets: ro.Buckets, At: ro.At, Hops: []HopAvailability{}}
	for _, h := range r.Hops {
		out.Hops = append(out.Hops, hopAvailability(ro, k, h))
	}
	return out, nil
}

func hopAvailability(ro *manifest.Rollouts, k int, h path.ReportHop) HopAvailability {
	a := HopAvailability{To: h.To, Now: true}
	to, err := ver.Parse(h.To)
	if err != nil {
		return a
	}
	for _, rel := range ro.Releases {
		rv, err := ver.Parse(rel.Version)
		if err != nil || rv.Key() != to.Key() {
			continue
		}
		if rel.Channels != nil && !slices.ContainsFunc(h.Channels, func(ch string) bool { return slices.Contains(rel.Channels, ch) }) {
			continue
		}
		// The canary (bucket 0) opens at the start; index.json's opens
		// lists buckets 1..N.
		var opens string
		if k == 0 {
			opens = time.Unix(rel.StartEpoch, 0).UTC().Format(time.RFC3339)
		} else {
			opens = rel.Opens[k-1]
		}
		switch {
		case opens == "":
			a.Now, a.Never = false, true
		case opens > ro.At: // RFC 3339 UTC strings order as times
			a.Now, a.From = false, opens
		}
	}
	return a
}

// writeAvailability prints the availability after path's text answer.
func writeAvailability(w io.Writer, a *ClusterAvailability) error {
	fmt.Fprintf(w, "\nphased rollouts: this cluster is in bucket %d of %d (tree generated for %s)\n", a.Bucket, a.Buckets, a.At)
	for i, h := range a.Hops {
		switch {
		case h.Now:
			fmt.Fprintf(w, "  hop %d → %s: available now\n", i+1, h.To)
		case h.Never:
			fmt.Fprintf(w, "  hop %d → %s: not offered to this bucket (the rollout stops short of it)\n", i+1, h.To)
		default:
			at, _ := time.Parse(time.RFC3339, h.From)
			gen, _ := time.Parse(time.RFC3339, a.At)
			fmt.Fprintf(w, "  hop %d → %s: available from %s (%s after the tree's time)\n", i+1, h.To, h.From, at.Sub(gen).Round(time.Minute))
		}
	}
	return nil
}

// writePathJSON writes the report, with the cluster's availability when
// asked for: {"path": report, "cluster": availability}.
func writePathJSON(w io.Writer, r *path.Report, a *ClusterAvailability) error {
	if a == nil {
		return r.WriteJSON(w)
	}
	return writeWithCluster(w, "path", r, a)
}

// writeWithCluster writes {"<key>": answer, "cluster": a}, indented as
// the answers' own JSON.
func writeWithCluster(w io.Writer, key string, answer any, a *ClusterAvailability) error {
	body, err := jsonw.Marshal(answer)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{key: json.RawMessage(body), "cluster": a})
}
