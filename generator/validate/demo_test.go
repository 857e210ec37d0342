package validate

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator/source"
)

func demoReleases(t *testing.T) Options {
	t.Helper()
	g, err := (&source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}).Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Options{Releases: ReleaseVersions(g)}
}

// TestValidateDemo validates testdata/demo with its releases. Its only finding is
// graph-data CI's C1: the demo has stable-4.15 but no fast-4.15 (nor
// candidate-4.15). Adding those two channels to the demo makes it clean,
// as TestValidateDemoWithChannelOrder shows; then this expectation becomes empty.
func TestValidateDemo(t *testing.T) {
	ps := Validate(upgraph.DemoGraphData(), demoReleases(t))
	want := []string{"channels/stable-4.15.yaml:1 error C1"}
	if got := briefs(ps); !slices.Equal(got, want) {
		t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(texts(ps), "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestValidateDemoWithChannelOrder(t *testing.T) {
	fsys := fstest.MapFS{}
	err := fs.WalkDir(upgraph.DemoGraphData(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoGraphData(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fast-4.15", "candidate-4.15"} {
		fsys["channels/"+name+".yaml"] = &fstest.MapFile{Data: []byte(channelYAML(name, "4.15.0", "4.15.1", "4.15.2"))}
	}
	if ps := Validate(fsys, demoReleases(t)); len(ps) > 0 {
		t.Errorf("want no problems, got\n\t%s", strings.Join(texts(ps), "\n\t"))
	}
}

func briefs(ps Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, brief(p))
	}
	return out
}
