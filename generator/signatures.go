package generator

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/writer"
)

var (
	payloadDigest = regexp.MustCompile(`@(sha256:[0-9a-f]{64})$`)
	sha256Digest  = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// putSignatures publishes the signatures of every release a rendered graph
// serves, at manifest.SignaturePath, so that the tree's signatures/ is the
// signature store its clusters verify updates against. Signatures of other
// releases stay out: the tree vouches only for what it serves. Each list
// is cut where a cluster stops reading it, with a warning.
func putSignatures(ctx context.Context, b *Built, served []bool, st writer.Staging, m *manifest.Manifest, log *slog.Logger) error {
	if len(b.Signatures) == 0 {
		return nil
	}
	releases := map[string][]string{} // digest → versions served with it
	for i, ok := range served {
		if ok {
			n := b.Graph.Node(i)
			for _, d := range releaseDigests(n) {
				releases[d] = append(releases[d], n.Version)
			}
		}
	}
	unsigned := 0
	for _, d := range slices.Sorted(maps.Keys(releases)) {
		sigs := b.Signatures[d]
		versions := strings.Join(releases[d], ",")
		n := 0
		for n < len(sigs) && len(sigs[n]) > 0 {
			n++
		}
		kept := min(n, graphdata.MaxSignatures)
		if dropped := countPresent(sigs[kept:]); dropped > 0 {
			if n >= graphdata.MaxSignatures {
				log.Warn("clusters read signature-1 to signature-9 only; the rest are not published",
					"releases", versions, "digest", d, "dropped", dropped)
			} else {
				log.Warn("a release signature is missing; clusters stop at the first missing number, so the ones after it are not published",
					"releases", versions, "digest", d, "missing", fmt.Sprintf("signature-%d", n+1), "dropped", dropped)
			}
		}
		if kept == 0 {
			unsigned++
		}
		for i, data := range sigs[:kept] {
			name := manifest.SignaturePath(d, i+1)
			if len(data) > graphdata.MaxSignatureSize {
				return fmt.Errorf("%s (release %s): %d bytes, over the %d clusters read of a signature", name, versions, len(data), graphdata.MaxSignatureSize)
			}
			if _, err := putFile(ctx, st, m, name, data); err != nil {
				return err
			}
			m.Counts.Signatures++
		}
	}
	log.Info("signatures published", "files", m.Counts.Signatures, "digests", len(releases)-unsigned, "unsignedDigests", unsigned)
	return nil
}

// releaseDigests are the digests clusters verify a release by: its
// payload's, and the manifestref a scrape records (the same digest, unless
// the payload names a tag).
func releaseDigests(n *graph.Node) []string {
	var out []string
	if sm := payloadDigest.FindStringSubmatch(n.Payload); sm != nil {
		out = append(out, sm[1])
	}
	if ref := n.Metadata[graph.KeyManifestRef]; sha256Digest.MatchString(ref) && !slices.Contains(out, ref) {
		out = append(out, ref)
	}
	return out
}

func countPresent(sigs [][]byte) int {
	c := 0
	for _, s := range sigs {
		if len(s) > 0 {
			c++
		}
	}
	return c
}
