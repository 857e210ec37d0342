package path

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/version"
)

// Cluster names the cluster whose phased-rollout bucket a path is
// answered for (docs/rollouts.md): path's and plan's --id or --wariness.
type Cluster struct {
	ID, Wariness       string
	HasID, HasWariness bool
}

// Asked reports whether a cluster is named at all.
func (c Cluster) Asked() bool { return c.HasID || c.HasWariness }

// Check refuses a malformed --wariness, an empty --id, or both flags.
func (c Cluster) Check() error {
	if c.HasID && c.HasWariness {
		return fmt.Errorf("--id and --wariness: give one (a cluster sending rollout_wariness is bucketed by it)")
	}
	if c.HasWariness {
		if _, ok := rollout.WarinessBucket(c.Wariness, 10); !ok {
			return fmt.Errorf("--wariness %q: want a plain decimal from 0 to 1", c.Wariness)
		}
	}
	if c.HasID && c.ID == "" {
		return fmt.Errorf("--id: empty value: want the cluster's id")
	}
	return nil
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

// Availability computes, for cluster c, when each hop of r becomes
// available in the rollouts of the tree src (named name in the refusal of
// a source without them); nil when no cluster is named.
func Availability(src *mirror.Source, name string, r *Report, c Cluster) (*ClusterAvailability, error) {
	if !c.Asked() {
		return nil, nil
	}
	if !src.IsTree() || src.Tree.Manifest().Rollouts == nil {
		return nil, fmt.Errorf("--id/--wariness: %s has no phased rollouts (only a tree records them): every hop is available to every cluster", name)
	}
	ro := src.Tree.Manifest().Rollouts
	k := rollout.Bucket(rollout.Query{ID: c.ID, Wariness: c.Wariness, HasWariness: c.HasWariness}, ro.Buckets)
	out := &ClusterAvailability{Bucket: k, Buckets: ro.Buckets, At: ro.At, Hops: []HopAvailability{}}
	for _, h := range r.Hops {
		out.Hops = append(out.Hops, hopAvailability(ro, k, h))
	}
	return out, nil
}

func hopAvailability(ro *manifest.Rollouts, k int, h ReportHop) HopAvailability {
	a := HopAvailability{To: h.To, Now: true}
	to, err := version.Parse(h.To)
	if err != nil {
		return a
	}
	for _, rel := range ro.Releases {
		rv, err := version.Parse(rel.Version)
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

// WriteText prints the availability after path's or plan's text answer.
func (a *ClusterAvailability) WriteText(w io.Writer) error {
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

// Answer is what path and plan print: WriteText and WriteJSON.
type Answer interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
}

// WriteWithCluster writes answer in format (text or json) with the
// cluster's availability a when there is one: after the text, or as JSON
// {"<key>": answer, "cluster": a}, indented as the answers' own JSON.
func WriteWithCluster(w io.Writer, format, key string, answer Answer, a *ClusterAvailability) error {
	switch {
	case format == "json" && a == nil:
		return answer.WriteJSON(w)
	case format == "json":
		body, err := jsonw.Marshal(answer)
		if err != nil {
			return err
		}
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{key: json.RawMessage(body), "cluster": a})
	}
	if err := answer.WriteText(w); err != nil || a == nil {
		return err
	}
	return a.WriteText(w)
}
