package cvo

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// graph is the part of a Cincinnati response the CVO decodes. Field names
// without tags match case-insensitively, unknown fields (including the
// top-level "version") are ignored, as with the CVO's json.Unmarshal.
type graph struct {
	Nodes            []node
	Edges            []edge
	ConditionalEdges []conditionalEdges `json:"conditionalEdges"`
}

type node struct {
	Version  semver.Version `json:"version"` // strict semver.Parse: one bad node fails the graph
	Image    string         `json:"payload"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

type edge struct{ Origin, Destination int }

// UnmarshalJSON accepts only a two-element array of ints, like the CVO.
func (e *edge) UnmarshalJSON(data []byte) error {
	var fields []int
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	if len(fields) != 2 {
		return fmt.Errorf("expected 2 fields, found %d", len(fields))
	}
	e.Origin, e.Destination = fields[0], fields[1]
	return nil
}

type conditionalEdges struct {
	Edges []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"edges"`
	Risks []rawRisk `json:"risks"`
}

type rawRisk struct {
	URL           string    `json:"url"`
	Name          string    `json:"name"`
	Message       string    `json:"message"`
	MatchingRules []rawRule `json:"matchingRules"`
}

// rawRule keeps PromQL as a pointer because validity depends on whether the
// promql object is present at all, not only on its query.
type rawRule struct {
	Type   string `json:"type"`
	PromQL *struct {
		PromQL string `json:"promql"`
	} `json:"promql,omitempty"`
}

// pending is a conditional update before its matching rules are pruned.
type pending struct {
	release Release
	risks   []rawRisk
}

// Updates interprets a graph response body as the CVO's GetUpdates does once
// the HTTP exchange has succeeded. The returned values match the CVO's, also
// on error paths (e.g. "no node for conditional update" still returns the
// current release and the unconditional updates), although the CVO discards
// them whenever err != nil.
func Updates(body []byte, channel string, desiredArch, currentArch string, current semver.Version) (Release, []Release, []ConditionalUpdate, error) {
	g, err := Parse(body)
	if err != nil {
		return Release{}, nil, nil, err
	}
	return g.Updates(channel, desiredArch, currentArch, current)
}

// Graph is a parsed graph response; one parse serves the update
// computation of every version in it.
type Graph struct {
	g graph
	// versions caches each node's Version.String(), which the conditional
	// target lookup compares against for every entry.
	versions []string
}

// Parse decodes a graph response as the CVO does.
func Parse(body []byte) (*Graph, error) {
	var g graph
	if err := json.Unmarshal(body, &g); err != nil {
		return nil, &Error{Reason: "ResponseInvalid", Message: err.Error(), cause: err}
	}
	pg := &Graph{g: g, versions: make([]string, len(g.Nodes))}
	for i, n := range g.Nodes {
		pg.versions[i] = n.Version.String()
	}
	return pg, nil
}

// Updates computes what a cluster at current reads from the graph.
func (pg *Graph) Updates(channel string, desiredArch, currentArch string, current semver.Version) (Release, []Release, []ConditionalUpdate, error) {
	var cur Release
	g := pg.g

	currentIdx := -1
	for i, n := range g.Nodes {
		if !current.EQ(n.Version) { // semver precedence: build metadata is ignored
			continue
		}
		currentIdx = i
		var err error
		if cur, err = toRelease(n); err != nil {
			return cur, nil, nil, &Error{Reason: "ResponseInvalid", Message: fmt.Sprintf("invalid current node: %s", err)}
		}
		// Migrating from single to multi architecture: the only valid
		// update is the heterogeneous build of the current version.
		if desiredArch == ArchitectureMulti && currentArch != desiredArch {
			return cur, []Release{cur}, nil, nil
		}
		break
	}
	if currentIdx < 0 {
		return cur, nil, nil, &Error{
			Reason:  "VersionNotFound",
			Message: fmt.Sprintf("currently reconciling cluster version %s not found in the %q channel", current, channel),
		}
	}

	var updates []Release
	for _, e := range g.Edges {
		if e.Origin != currentIdx {
			continue
		}
		// Deviation: the CVO indexes Nodes without a bounds check and its
		// goroutine panics; a test harness is better served by an error.
		if e.Destination < 0 || e.Destination >= len(g.Nodes) {
			return cur, nil, nil, &Error{
				Reason:  "ResponseInvalid",
				Message: fmt.Sprintf("invalid recommended update node: edge [%d,%d] points outside the %d nodes", e.Origin, e.Destination, len(g.Nodes)),
			}
		}
		u, err := toRelease(g.Nodes[e.Destination])
		if err != nil {
			return cur, nil, nil, &Error{Reason: "ResponseInvalid", Message: fmt.Sprintf("invalid recommended update node: %s", err)}
		}
		updates = append(updates, u)
	}

	var conds []pending
	from := current.String() // exact string: "4.1.0" does not match "4.1.0+amd64"
	for _, ce := range g.ConditionalEdges {
		for _, e := range ce.Edges {
			if e.From != from {
				continue
			}
			target := -1
			for i, v := range pg.versions {
				if v == e.To {
					target = i
					break
				}
			}
			if target < 0 {
				return cur, updates, nil, &Error{Reason: "ResponseInvalid", Message: fmt.Sprintf("no node for conditional update %s", e.To)}
			}
			u, err := toRelease(g.Nodes[target])
			if err != nil {
				return cur, updates, nil, &Error{Reason: "ResponseInvalid", Message: fmt.Sprintf("invalid conditional update node: %s", err)}
			}
			conds = append(conds, pending{release: u, risks: ce.Risks})
		}
	}

	// The CVO prefers the conditional update. This runs before pruning, so a
	// target whose conditional entry is dropped below vanishes entirely.
	updates = deleteFunc(updates, func(u Release) bool {
		for _, c := range conds {
			if c.release.Image == u.Image {
				return true
			}
		}
		return false
	})

	// A risk left without valid rules would be rejected by the API server,
	// so the CVO drops the whole conditional update.
	conds = deleteFunc(conds, func(c pending) bool {
		for _, r := range c.risks {
			if len(pruneInvalid(r.MatchingRules)) == 0 {
				return true
			}
		}
		return false
	})

	// Counted after pruning: a duplicate that was pruned away no longer
	// counts against the surviving entry.
	perImage := make(map[string]int, len(conds))
	for _, c := range conds {
		perImage[c.release.Image]++
	}
	conds = deleteFunc(conds, func(c pending) bool { return perImage[c.release.Image] > 1 })

	var out []ConditionalUpdate
	for _, c := range conds {
		out = append(out, ConditionalUpdate{Release: c.release, Risks: exportRisks(c.risks)})
	}
	return cur, updates, out, nil
}

// deleteFunc removes matching elements in place, keeping order; an empty
// result is nil, as the CVO normalises empty slices.
func deleteFunc[T any](s []T, del func(T) bool) []T {
	out := s[:0]
	for _, v := range s {
		if !del(v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// exportRisks copies the risks with pruned rules. Each conditional update
// gets its own copy; in the CVO updates from one conditionalEdges entry share
// a backing array, which is unobservable because pruning is idempotent.
func exportRisks(risks []rawRisk) []Risk {
	var out []Risk
	for _, r := range risks {
		var rules []MatchingRule
		for _, m := range pruneInvalid(r.MatchingRules) {
			rule := MatchingRule{Type: m.Type}
			if m.PromQL != nil {
				rule.PromQL = m.PromQL.PromQL
			}
			rules = append(rules, rule)
		}
		out = append(out, Risk{URL: r.URL, Name: r.Name, Message: r.Message, MatchingRules: rules})
	}
	return out
}

// pruneInvalid keeps the rules the standard CVO registry (Always, PromQL)
// recognises and considers valid, in order; nil if none.
func pruneInvalid(rules []rawRule) []rawRule {
	var valid []rawRule
	for _, r := range rules {
		if ruleError(r) == nil {
			valid = append(valid, r)
		}
	}
	return valid
}

// ruleError returns the error the CVO's PruneInvalid would record for r.
func ruleError(r rawRule) error {
	switch r.Type {
	case "Always":
		if r.PromQL != nil {
			return errors.New("the 'promql' property is not valid for 'type: Always' conditions")
		}
	case "PromQL":
		if r.PromQL == nil {
			return errors.New("the 'promql' property is required for 'type: PromQL' conditions")
		}
		if r.PromQL.PromQL == "" {
			return errors.New("the 'promql.promql' query string must be non-empty for 'type: PromQL' conditions")
		}
	default:
		return fmt.Errorf("skipping unrecognized cluster condition type %q", r.Type)
	}
	return nil
}

func toRelease(n node) (Release, error) {
	r, err := ParseMetadata(n.Metadata)
	r.Version = n.Version.String()
	r.Image = n.Image
	return r, err
}

// ParseMetadata mirrors the CVO's ParseMetadata: it fills URL, Architecture
// and Channels from node metadata and joins every problem into one error,
// still returning what it could parse.
func ParseMetadata(metadata map[string]any) (Release, error) {
	var r Release
	var errs []error
	if v, ok := metadata[MetadataURL]; ok {
		if s, isString := v.(string); !isString {
			errs = append(errs, fmt.Errorf("URL is not a string: %v", v))
		} else if _, err := url.Parse(s); err != nil {
			errs = append(errs, fmt.Errorf("invalid release URL: %w", err))
		} else {
			r.URL = s
		}
	}
	if v, ok := metadata[MetadataArchitecture]; ok {
		if s, isString := v.(string); !isString {
			errs = append(errs, fmt.Errorf("%s is not a string: %v", MetadataArchitecture, v))
		} else if s != "multi" {
			errs = append(errs, fmt.Errorf("unrecognized %s value %q", MetadataArchitecture, s))
		} else {
			r.Architecture = ArchitectureMulti
		}
	}
	if v, ok := metadata[MetadataChannels]; ok {
		channels, err := parseChannels(v)
		r.Channels = channels
		errs = append(errs, err...)
	}
	return r, errors.Join(errs...)
}

func parseChannels(v any) ([]string, []error) {
	s, ok := v.(string)
	if !ok {
		return nil, []error{fmt.Errorf("%s is not a string: %v", MetadataChannels, v)}
	}
	if s == "" {
		return nil, []error{fmt.Errorf("%s is an empty string", MetadataChannels)}
	}
	var errs []error
	channels := strings.Split(s, ",")
	// Walked backwards so the error order matches the CVO's.
	for i := len(channels) - 1; i >= 0; i-- {
		if channels[i] == "" {
			errs = append(errs, fmt.Errorf("%s entry %d is an empty string: %q", MetadataChannels, i, s))
			channels = append(channels[:i], channels[i+1:]...)
		}
	}
	if len(channels) == 0 {
		// The CVO formats the (empty) slice here, not the original string.
		return nil, append(errs, fmt.Errorf("no non-empty channels in %s %q", MetadataChannels, channels))
	}
	sort.Strings(channels)
	return channels, errs
}
