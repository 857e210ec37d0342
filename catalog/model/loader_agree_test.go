package model

import (
	"context"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// TestDeclcfgLoaderAgrees: the model of the shared catalog is the same
// whether catalog/declcfg's loader or this package's test reader read it:
// the same problems at the same file:line, the same graphs.
func TestDeclcfgLoaderAgrees(t *testing.T) {
	mine := Convert(sharedConfig(t))
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(sharedCatalog))
	if err != nil {
		t.Fatal(err)
	}
	theirs := Convert(cfg)
	if !slices.Equal(mine.Problems, theirs.Problems) {
		for i := range min(len(mine.Problems), len(theirs.Problems)) {
			if mine.Problems[i] != theirs.Problems[i] {
				t.Errorf("first difference:\n test reader %v\n declcfg     %v", mine.Problems[i], theirs.Problems[i])
				break
			}
		}
		t.Fatalf("%d problems vs %d", len(mine.Problems), len(theirs.Problems))
	}
	gm, gt := mine.Graphs(), theirs.Graphs()
	if len(gm) != len(gt) {
		t.Fatalf("%d graphs vs %d", len(gm), len(gt))
	}
	for i := range gm {
		if !reflect.DeepEqual(gm[i].Nodes, gt[i].Nodes) || !slices.Equal(gm[i].AllEdges(), gt[i].AllEdges()) || gm[i].Head != gt[i].Head {
			t.Errorf("%s/%s differs", gm[i].Package, gm[i].Channel)
		}
	}
}
