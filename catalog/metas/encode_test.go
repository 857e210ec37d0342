package metas_test

import (
	"strings"
	"testing"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/catalog/views"
)

// TestEncodeIsViews: the metas files and the other files of a catalog
// encode names alike up to metas.MaxEncoded bytes encoded (longer ones
// the metas files split, the others hash).
func TestEncodeIsViews(t *testing.T) {
	for _, s := range []string{"olm.package", "etcd", "Weird+Pkg", ".", "..", ".hidden", "a.", "a_b", "a!b~c", "café", " ",
		"a/b", "\x00\xff", strings.Repeat("a", metas.MaxEncoded), strings.Repeat("A", 100),
		"etcdoperator.v0.9.4-clusterwide", "1.2.3+build.4"} {
		if got, want := metas.Encode(s), views.EncodeName(s); got != want {
			t.Errorf("Encode(%q) = %q, views.EncodeName = %q", s, got, want)
		}
	}
}
