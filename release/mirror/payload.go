package mirror

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
)

// PayloadMirror says that the images of repositories under Source are
// mirrored under Mirror, path for path, as `oc mirror` and registry
// mirroring do: quay.io/openshift-release-dev → registry.local:5000/ocp
// moves quay.io/openshift-release-dev/ocp-release@sha256:X to
// registry.local:5000/ocp/ocp-release@sha256:X. Digests are content
// addresses, so they are kept; that is what makes the rewrite safe.
type PayloadMirror struct{ Source, Mirror string }

// ParsePayloadMirror reads "SRC=DST".
func ParsePayloadMirror(s string) (PayloadMirror, error) {
	src, dst, ok := strings.Cut(s, "=")
	pm := PayloadMirror{Source: strings.TrimSpace(src), Mirror: strings.TrimSpace(dst)}
	if !ok {
		return pm, fmt.Errorf("payload mirror %q: want SOURCE=MIRROR", s)
	}
	for _, r := range []string{pm.Source, pm.Mirror} {
		if err := checkRepository(r); err != nil {
			return pm, fmt.Errorf("payload mirror %q: %w", s, err)
		}
	}
	return pm, nil
}

// checkRepository accepts a registry host or a repository path under
// one, without tag or digest: a prefix that a pull spec's repository
// can start with.
func checkRepository(r string) error {
	switch {
	case r == "":
		return fmt.Errorf("empty repository")
	case strings.ContainsAny(r, "@ \t\n"):
		return fmt.Errorf("%q: want a repository without digest", r)
	case strings.HasSuffix(r, "/") || strings.HasPrefix(r, "/") || strings.Contains(r, "//"):
		return fmt.Errorf("%q: empty path component", r)
	}
	if i := strings.LastIndexByte(r, '/'); i >= 0 && strings.Contains(r[i:], ":") {
		return fmt.Errorf("%q: want a repository without tag", r)
	}
	return nil
}

// PayloadRewriter rewrites pull specs by their longest matching mirror.
type PayloadRewriter struct{ rules []PayloadMirror }

// NewPayloadRewriter checks that no source is given twice: which of two
// mirrors would apply would otherwise depend on the order of the flags.
func NewPayloadRewriter(rules []PayloadMirror) (*PayloadRewriter, error) {
	rules = slices.Clone(rules)
	for _, r := range rules {
		if err := checkRepository(r.Source); err != nil {
			return nil, err
		}
		if err := checkRepository(r.Mirror); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(rules, func(a, b PayloadMirror) int {
		return cmp.Or(cmp.Compare(len(b.Source), len(a.Source)), strings.Compare(a.Source, b.Source))
	})
	for i := 1; i < len(rules); i++ {
		if rules[i].Source == rules[i-1].Source {
			return nil, fmt.Errorf("payload mirror for %s given twice (%s and %s)", rules[i].Source, rules[i-1].Mirror, rules[i].Mirror)
		}
	}
	return &PayloadRewriter{rules: rules}, nil
}

// splitPullSpec separates a pull spec's repository from its "@digest"
// or ":tag" (ref is "" when there is neither). A colon before the last
// slash is a registry port, not a tag.
func splitPullSpec(spec string) (repo, ref string) {
	if i := strings.IndexByte(spec, '@'); i >= 0 {
		return spec[:i], spec[i:]
	}
	if i := strings.LastIndexByte(spec, ':'); i > strings.LastIndexByte(spec, '/') {
		return spec[:i], spec[i:]
	}
	return spec, ""
}

// Rewrite maps one pull spec; ok is false when no mirror matches. A
// source matches whole path components only: quay.io/a does not match
// quay.io/ab/c.
func (r *PayloadRewriter) Rewrite(spec string) (string, bool) {
	repo, ref := splitPullSpec(spec)
	for _, m := range r.rules {
		if rest, ok := strings.CutPrefix(repo, m.Source); ok && (rest == "" || rest[0] == '/') {
			return m.Mirror + rest + ref, true
		}
	}
	return spec, false
}

// RewriteResult says what Apply did, for the caller to report.
type RewriteResult struct {
	Rewritten int
	// Unmatched are releases whose payload no mirror matched: clusters
	// behind the mirror may not be able to pull them.
	Unmatched []string
	// Tagged are releases whose payload names a tag, not a digest: the
	// mirror may hold other content under the same tag, and a cluster
	// cannot check it against the release signature.
	Tagged []string
}

// Apply rewrites the payload of every concrete release of g in place.
func (r *PayloadRewriter) Apply(g *graph.Graph) RewriteResult {
	var res RewriteResult
	for _, n := range g.Nodes() {
		if n.Abstract {
			continue
		}
		if _, ref := splitPullSpec(n.Payload); !strings.HasPrefix(ref, "@") {
			res.Tagged = append(res.Tagged, n.Version)
		}
		if len(r.rules) == 0 {
			continue
		}
		p, ok := r.Rewrite(n.Payload)
		if !ok {
			res.Unmatched = append(res.Unmatched, n.Version)
			continue
		}
		if p != n.Payload {
			n.Payload = p
			res.Rewritten++
		}
	}
	return res
}

// PayloadDigest is the "sha256:<hex>" a digest-pinned pull spec names,
// or "" for a tag.
func PayloadDigest(spec string) string {
	_, ref := splitPullSpec(spec)
	d, ok := strings.CutPrefix(ref, "@")
	if !ok {
		return ""
	}
	return d
}
