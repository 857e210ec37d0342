package path

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree/version"
)

// Request is what `upgraph path` asks.
type Request struct {
	From, To, Channel, Arch string
	// ViaEUS adds the EUS channels of EUSChannels to the channel's graph.
	ViaEUS bool
	Options
}

// Check checks the request as the commands take it, naming the flag of
// the first value that is wrong: --channel and --arch against the
// patterns a tree's names follow, then --from and --to as versions.
func (r Request) Check() error {
	if err := CheckGraph(r.Channel, r.Arch); err != nil {
		return err
	}
	for _, v := range []struct{ flag, value string }{{"from", r.From}, {"to", r.To}} {
		if _, err := version.Parse(v.value); err != nil {
			return fmt.Errorf("--%s: %w", v.flag, err)
		}
	}
	return nil
}

// CheckGraph checks --channel and --arch, which name a graph of a tree,
// against the patterns a tree's names follow.
func CheckGraph(channel, arch string) error {
	if !policy.ChannelPattern.MatchString(channel) {
		return fmt.Errorf("--channel %q does not match %s", channel, policy.ChannelPattern)
	}
	if !policy.ArchPattern.MatchString(arch) {
		return fmt.Errorf("--arch %q does not match %s", arch, policy.ArchPattern)
	}
	return nil
}

// Report is a planned path with what it was planned on.
type Report struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Channel string `json:"channel"`
	Arch    string `json:"arch"`
	// Channels are the graphs searched, in order: Channel, then any EUS
	// channels (--via-eus).
	Channels []string `json:"channels"`
	// UnconditionalOnly: conditional edges were left out.
	UnconditionalOnly bool `json:"unconditionalOnly,omitempty"`
	// Found is false when no path exists; Hops is then empty.
	Found           bool        `json:"found"`
	Hops            []ReportHop `json:"hops"`
	ConditionalHops int         `json:"conditionalHops"`
}

// ReportHop is a hop and the channels whose graph has its edge: with
// --via-eus, a hop only an EUS channel has means switching to it.
type ReportHop struct {
	Hop
	Channels []string `json:"channels"`
}

// Find reads the request's graphs from s and plans the path on their
// union. No path is a Report with Found false, not an error; a version in
// none of the graphs is an error wrapping an *UnknownVersionError.
func Find(ctx context.Context, s *Source, r Request) (*Report, error) {
	channels := []string{r.Channel}
	if r.ViaEUS {
		tree, _ := Channels(s)
		if tree == nil {
			if err := checkEUSSpan(r.From, r.To); err != nil {
				return nil, err
			}
		}
		for _, c := range EUSChannels(tree, r.From, r.To) {
			if !slices.Contains(channels, c) {
				channels = append(channels, c)
			}
		}
	}
	graphs := make([]*Graph, len(channels))
	for i, c := range channels {
		var err error
		if graphs[i], err = Read(ctx, s, c, r.Arch); err != nil {
			return nil, err
		}
	}
	g := graphs[0]
	if len(graphs) > 1 {
		g = Union(graphs...)
	}
	return plan(g, graphs, channels, r)
}

// plan is Find on graphs already read.
func plan(g *Graph, graphs []*Graph, channels []string, r Request) (*Report, error) {
	rep := &Report{From: r.From, To: r.To, Channel: r.Channel, Arch: r.Arch, Channels: channels,
		UnconditionalOnly: r.UnconditionalOnly, Hops: []ReportHop{}}
	p, err := Plan(g, r.From, r.To, r.Options)
	var unknown *UnknownVersionError
	switch {
	case errors.As(err, &unknown):
		return nil, fmt.Errorf("%s (%s) has no release %s (--%s): %w", strings.Join(channels, " + "), r.Arch, unknown.Version, unknown.Role, err)
	case errors.Is(err, ErrNoPath):
		return rep, nil
	case err != nil:
		return nil, err
	}
	rep.Found = true
	rep.ConditionalHops = p.Conditional()
	for _, h := range p.Hops {
		rh := ReportHop{Hop: h, Channels: []string{}}
		for i, gi := range graphs {
			from, ok1 := gi.Lookup(h.From)
			to, ok2 := gi.Lookup(h.To)
			if !ok1 || !ok2 {
				continue
			}
			if _, ok := gi.Edge(from, to); ok {
				rh.Channels = append(rh.Channels, channels[i])
			}
		}
		rep.Hops = append(rep.Hops, rh)
	}
	return rep, nil
}

// WriteJSON writes the report as indented JSON, ending in a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	return jsonw.WriteIndented(w, r)
}

// WriteText writes the report for people: a summary line, then one line
// per hop, a conditional hop followed by its risks (name, matching rule
// types, message, URL). With several channels, each hop names those that
// have it.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	where := fmt.Sprintf("in %s (%s)", strings.Join(r.Channels, " + "), r.Arch)
	if r.UnconditionalOnly {
		where += ", unconditional edges only"
	}
	switch {
	case !r.Found:
		fmt.Fprintf(&b, "No update path from %s to %s %s.\n", r.From, r.To, where)
	case len(r.Hops) == 0:
		fmt.Fprintf(&b, "Already at %s %s: no update needed.\n", r.To, where)
	default:
		fmt.Fprintf(&b, "%s → %s %s: %s, %d conditional\n\n", r.From, r.To, where, english.Count(len(r.Hops), "hop"), r.ConditionalHops)
	}
	for i, h := range r.Hops {
		fmt.Fprintf(&b, "%3d. %s → %s", i+1, h.From, h.To)
		if h.Conditional {
			fmt.Fprintf(&b, "  conditional: %s", english.Count(len(h.Risks), "risk"))
		}
		if len(r.Channels) > 1 {
			fmt.Fprintf(&b, "  [%s]", strings.Join(h.Channels, ", "))
		}
		b.WriteByte('\n')
		for _, risk := range h.Risks {
			b.WriteString("       - " + risk.Name)
			if len(risk.MatchingRules) > 0 {
				b.WriteString(" (" + strings.Join(risk.MatchingRules, ", ") + ")")
			}
			b.WriteByte('\n')
			if m := strings.TrimSpace(risk.Message); m != "" {
				b.WriteString("         " + strings.ReplaceAll(m, "\n", "\n         ") + "\n")
			}
			if risk.URL != "" {
				b.WriteString("         " + risk.URL + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
