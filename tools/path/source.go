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
		if lo[0] == hi[0] && hi[1]-lo[1] >= MaxEUSMinors {
			return nil // Find refuses the request (EUSSpanError)
		}
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

// MaxEUSMinors bounds the minor versions --via-eus may span against an
// endpoint, which is asked for eus-X.Y of each: the versions' numbers,
// not their length, would otherwise set the work (4.0.0 to
// 4.4294967295.0 is four billion channels). OpenShift 4 has had a few
// dozen minors.
const MaxEUSMinors = 100

// EUSSpanError refuses --via-eus against an endpoint between versions
// more than MaxEUSMinors minors apart.
type EUSSpanError struct {
	From, To string
	Minors   uint64 // minor versions spanned, both ends included
}

func (e *EUSSpanError) Error() string {
	return fmt.Sprintf("--from %s --to %s --via-eus: an endpoint cannot list its channels, so eus-X.Y is asked for each of the %d minor versions between them, more than the %d allowed; give a tree, or versions closer together", e.From, e.To, e.Minors, MaxEUSMinors)
}

// checkEUSSpan returns an *EUSSpanError when EUSChannels would name more
// than MaxEUSMinors candidates for an endpoint.
func checkEUSSpan(from, to string) error {
	a, errA := version.Parse(from)
	b, errB := version.Parse(to)
	if errA != nil || errB != nil || a.Major() != b.Major() {
		return nil
	}
	lo, hi := min(a.Minor(), b.Minor()), max(a.Minor(), b.Minor())
	if hi-lo >= MaxEUSMinors {
		minors := hi - lo
		if minors < ^uint64(0) {
			minors++
		}
		return &EUSSpanError{From: from, To: to, Minors: minors}
	}
	return nil
}

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
