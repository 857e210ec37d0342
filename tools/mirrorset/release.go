package mirrorset

import (
	"context"
	"fmt"
	"slices"

	"github.com/upgraph/upgraph/tools/path"
	"github.com/upgraph/upgraph/tree/version"
)

// ReleaseSet is what a cluster update needs mirrored: the release
// payloads its path (as `upgraph path` plans it) lands on — the release
// the cluster runs is mirrored already — and the ImageSetConfiguration
// platform channels that select them.
type ReleaseSet struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Channel string `json:"channel"`
	Arch    string `json:"arch"`
	// Searched are the graphs the path was planned on: Channel, then the
	// EUS channels --via-eus adds.
	Searched []string `json:"searched"`
	Found    bool     `json:"found"`
	// Releases are the hops' targets, in path order.
	Releases []Release `json:"releases"`
	// Channels are the ImageSetConfiguration's platform channels: per
	// channel holding hops (the requested one when its graph has the
	// edge, else the first that has it), the lowest release a hop leaves
	// and the highest it reaches, planned by oc-mirror's shortestPath.
	Channels []PlatformChannel `json:"channels"`
	// Images are the payloads, sorted.
	Images []string `json:"images"`
}

// Release is a release the path lands on.
type Release struct {
	Version  string   `json:"version"`
	Payload  string   `json:"payload"`
	Channels []string `json:"channels"`
}

// PlatformChannel is an ImageSetConfiguration mirror.platform.channels
// entry.
type PlatformChannel struct {
	Name       string `json:"name"`
	MinVersion string `json:"minVersion"`
	MaxVersion string `json:"maxVersion"`
}

// PlanRelease plans the path req asks for on src as `upgraph path` does
// (path.Find: fewest hops, then fewest conditional ones, then the newest
// intermediate releases) and returns its releases with their payloads
// (read from the graphs' nodes). No path is a set with Found false.
func PlanRelease(ctx context.Context, src *path.Source, req path.Request) (*ReleaseSet, error) {
	rep, err := path.Find(ctx, src, req)
	if err != nil {
		return nil, err
	}
	rs := &ReleaseSet{From: req.From, To: req.To, Channel: req.Channel, Arch: req.Arch, Searched: rep.Channels,
		Found: rep.Found, Releases: []Release{}, Channels: []PlatformChannel{}, Images: []string{}}
	if !rep.Found {
		return rs, nil
	}
	graphs := make([]*path.Graph, len(rep.Channels))
	for i, ch := range rep.Channels {
		if graphs[i], err = path.Read(ctx, src, ch, req.Arch); err != nil {
			return nil, err
		}
	}
	var hops []releaseHop
	for _, h := range rep.Hops {
		rh := releaseHop{from: h.From, to: h.To, channels: h.Channels}
		for _, g := range graphs {
			if i, ok := g.Lookup(h.To); ok && g.Nodes[i].Payload != "" {
				rh.payload = g.Nodes[i].Payload
				break
			}
		}
		hops = append(hops, rh)
	}
	return rs, rs.add(hops)
}

type releaseHop struct {
	from, to, payload string
	channels          []string
}

func (rs *ReleaseSet) add(hops []releaseHop) error {
	type bounds struct{ lo, hi string }
	per := map[string]*bounds{}
	var order []string
	less := func(a, b string) bool {
		va, ea := version.Parse(a)
		vb, eb := version.Parse(b)
		if ea != nil || eb != nil {
			return a < b
		}
		return version.Less(va, vb)
	}
	for _, h := range hops {
		if h.payload == "" {
			return fmt.Errorf("release %s has no payload in the graph", h.to)
		}
		rs.Releases = append(rs.Releases, Release{Version: h.to, Payload: h.payload, Channels: h.channels})
		if !slices.Contains(rs.Images, h.payload) {
			rs.Images = append(rs.Images, h.payload)
		}
		ch := rs.Channel
		if !slices.Contains(h.channels, ch) && len(h.channels) > 0 {
			ch = h.channels[0]
		}
		b := per[ch]
		if b == nil {
			b = &bounds{lo: h.from, hi: h.to}
			per[ch] = b
			order = append(order, ch)
		}
		if less(h.from, b.lo) {
			b.lo = h.from
		}
		if less(b.hi, h.to) {
			b.hi = h.to
		}
	}
	for _, ch := range order {
		rs.Channels = append(rs.Channels, PlatformChannel{Name: ch, MinVersion: per[ch].lo, MaxVersion: per[ch].hi})
	}
	slices.Sort(rs.Images)
	return nil
}
