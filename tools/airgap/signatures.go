package airgap

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strconv"

	"github.com/upgraph/upgraph/release/graph"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/tree"
)

var signatureName = regexp.MustCompile(`^signatures/sha256=([0-9a-f]{64})/signature-([1-9][0-9]*)$`)

// sourceSignatures reads the source tree's signature files of the
// releases g holds, checked against the source's index.json, in the form
// generator.Built carries them; Render then publishes those of the
// releases it serves. A signature covers a payload's digest, which a
// payload mirror keeps, so it still verifies the rewritten pull spec.
// Other releases' signatures are not even read: over HTTP each is a
// request.
func sourceSignatures(ctx context.Context, src tree.Tree, g *graph.Graph) (map[string][][]byte, error) {
	held := map[string]bool{}
	for _, n := range g.Nodes() {
		if d := mirror.PayloadDigest(n.Payload); d != "" {
			held[d] = true
		}
		if d := n.Metadata[graph.KeyManifestRef]; d != "" {
			held[d] = true
		}
	}
	out := map[string][][]byte{}
	for _, name := range slices.Sorted(maps.Keys(src.Manifest().Files)) {
		sm := signatureName.FindStringSubmatch(name)
		if sm == nil || !held["sha256:"+sm[1]] {
			continue
		}
		n, err := strconv.Atoi(sm[2])
		if err != nil || n > graphdata.MaxSignatures {
			continue // not a number a cluster asks for; Render would drop it
		}
		data, err := src.ReadFile(ctx, name)
		if err != nil {
			return nil, err
		}
		d := "sha256:" + sm[1]
		list := out[d]
		if len(list) < n {
			list = append(list, make([][]byte, n-len(list))...)
		}
		list[n-1] = data
		out[d] = list
	}
	return out, nil
}
