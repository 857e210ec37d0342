package path

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree/version"
)

// Source is where channel graphs are read from: a tree wherever it
// lives or a graph endpoint (mirror.OpenSource).
type Source = mirror.Source

// Channels returns a tree's channels, in its index.json's order, and
// false for an endpoint, which cannot list them.
func Channels(s *Source) ([]string, bool) {
	if !s.IsTree() {
		return nil, false
	}
	return s.Tree.Manifest().Channels, true
}

// Read returns the channel × arch graph. A tree without that channel or
// arch is an error naming those it has (an endpoint answers an empty
// graph for a channel it does not know, as policy-engines do).
func Read(ctx context.Context, s *Source, channel, arch string) (*Graph, error) {
	if s.IsTree() && !s.HasGraph(channel, arch) {
		switch m := s.Tree.Manifest(); {
		case len(m.Channels) == 0:
			return nil, fmt.Errorf("%s has no release channels at all (a tree of operator catalogs only): no channel %q to plan a cluster update in; use a tree generated with releases", s, channel)
		case !slices.Contains(m.Channels, channel):
			return nil, fmt.Errorf("%s has no channel %q (it has %s)", s, channel, strings.Join(m.Channels, ", "))
		case !slices.Contains(m.Arches, arch):
			return nil, fmt.Errorf("%s has no arch %q (it has %s)", s, arch, strings.Join(m.Arches, ", "))
		}
	}
	label, data, err := s.Fetch(ctx, channel, arch)
	if err != nil {
		return nil, err
	}
	return Decode(label, data)
}

// EUSChannels returns the EUS channels `--via-eus` adds for a path from
// one version to another: every "eus-X.Y" among channels (a tree's, in
// their order) whose X.Y lies between from's major.minor and to's,
// both included. With channels nil (an endpoint, which cannot list its
// channels) it names the candidates instead: eus-X.Y for every minor Y
// from one end's to the other's when both have the same major X, the two
// ends' X.Y otherwise. Unparsable versions give none.
func EUSChannels(channels []string, from, to string) []string {
	a, errA := version.Parse(from)
	b, errB := version.Parse(to)
	if errA != nil || errB != nil {
		return nil
	}
	lo, hi := [2]uint64{a.Major(), a.Minor()}, [2]uint64{b.Major(), b.Minor()}
	if compareMinor(lo, hi) > 0 {
		lo, hi = hi, lo
	}
	if channels == nil {
		var out []string
		if lo[0] != hi[0] {
			for _, m := range [][2]uint64{lo, hi} {
				out = append(out, fmt.Sprintf("eus-%d.%d", m[0], m[1]))
			}
			return out
		}
		for y := lo[1]; y <= hi[1]; y++ {
			out = append(out, fmt.Sprintf("eus-%d.%d", lo[0], y))
		}
		return out
	}
	var out []string
	for _, c := range channels {
		m, ok := eusMinor(c)
		if ok && compareMinor(lo, m) <= 0 && compareMinor(m, hi) <= 0 {
			out = append(out, c)
		}
	}
	return out
}

// eusMinor parses "eus-X.Y".
func eusMinor(channel string) ([2]uint64, bool) {
	rest, ok := strings.CutPrefix(channel, "eus-")
	if !ok {
		return [2]uint64{}, false
	}
	xs, ys, ok := strings.Cut(rest, ".")
	x, errX := strconv.ParseUint(xs, 10, 64)
	y, errY := strconv.ParseUint(ys, 10, 64)
	if !ok || errX != nil || errY != nil {
		return [2]uint64{}, false
	}
	return [2]uint64{x, y}, true
}

func compareMinor(a, b [2]uint64) int { return slices.Compare(a[:], b[:]) }

// Hint is what path suggests when req found no path r in s: the EUS
// channels --via-eus would also search, when there are any and it was not
// given; "" otherwise.
func Hint(s *Source, req Request, r *Report) string {
	if r.Found || req.ViaEUS {
		return ""
	}
	channels, ok := Channels(s)
	if !ok {
		return ""
	}
	if eus := EUSChannels(channels, req.From, req.To); len(eus) > 0 {
		return "hint: --via-eus also searches " + strings.Join(eus, ", ") + "\n"
	}
	return ""
}
