package mirror

import (
	"fmt"
	"log/slog"

	"github.com/upgraph/upgraph/generator/graph"
	"github.com/upgraph/upgraph/generator/policy"
)

// Answer is one policy-engine graph document already at hand: a channel
// graph file of a generated tree, or an answer fetched some other way.
type Answer struct {
	Channel, Arch string
	// Source names the document in messages: a URL or a file name.
	Source string
	Body   []byte
}

// Merge is Fetch without the fetching: it decodes the answers and returns
// their union with builds restored, checked to reproduce every answer,
// exactly as Fetch does. Answers are merged in the order given, which
// only decides which of two conflicting answers an error names first.
func Merge(answers []Answer, log *slog.Logger) (*graph.Graph, error) {
	m := NewMerger(log)
	for _, a := range answers {
		if err := m.Add(a); err != nil {
			return nil, err
		}
	}
	return m.Finish()
}

// Merger is Merge one answer at a time, so that a caller holding many
// large answers need not hold them all: only their union is kept.
type Merger struct{ u *union }

// NewMerger starts an empty union.
func NewMerger(log *slog.Logger) *Merger {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Merger{u: newUnion(log)}
}

// Add decodes and merges one answer; a.Body is not retained.
func (m *Merger) Add(a Answer) error {
	// The generator filters by these names, so an answer under a name
	// clients cannot request could never be served back.
	if !policy.ChannelPattern.MatchString(a.Channel) {
		return fmt.Errorf("%s: channel %q does not match %s", a.Source, a.Channel, policy.ChannelPattern)
	}
	if !policy.ArchPattern.MatchString(a.Arch) {
		return fmt.Errorf("%s: arch %q does not match %s", a.Source, a.Arch, policy.ArchPattern)
	}
	doc, err := decode(a.Source, a.Body)
	if err != nil {
		return fmt.Errorf("channel %s, arch %s: %w", a.Channel, a.Arch, err)
	}
	return m.u.add(job{channel: a.Channel, arch: a.Arch, url: a.Source}, doc)
}

// Finish checks the union against every answer added and returns it.
func (m *Merger) Finish() (*graph.Graph, error) { return m.u.finish() }
