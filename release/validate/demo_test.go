package validate

import (
	"context"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/release/source"
)

func demoReleases(t *testing.T) Options {
	t.Helper()
	g, err := (&source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()}).Graph(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return Options{Releases: ReleaseVersions(g)}
}

// TestValidateDemo validates testdata/demo with its releases: it is clean,
// graph-data CI's C1 included (stable-4.15 ⊆ fast-4.15 ⊆ candidate-4.15,
// stable-4.16 ⊆ fast-4.16 ⊆ candidate-4.16).
func TestValidateDemo(t *testing.T) {
	if ps := Validate(upgraph.DemoGraphData(), demoReleases(t)); len(ps) > 0 {
		t.Errorf("want no problems, got\n\t%s", strings.Join(texts(ps), "\n\t"))
	}
}

// TestValidateDemoChannelOrder: the demo's fast-4.15 and candidate-4.15 are
// what C1 asks for. They list the versions of stable-4.15, and without
// either the demo fails C1 again, naming the channel that lacks its
// successor.
func TestValidateDemoChannelOrder(t *testing.T) {
	demo := fstest.MapFS{}
	err := fs.WalkDir(upgraph.DemoGraphData(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(upgraph.DemoGraphData(), p)
		demo[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"stable-4.15", "fast-4.15", "candidate-4.15"} {
		p := "channels/" + name + ".yaml"
		if f, want := demo[p], channelYAML(name, "4.15.0", "4.15.1", "4.15.2"); f == nil || string(f.Data) != want {
			t.Errorf("%s: want\n%s", p, want)
		}
	}
	for _, tc := range []struct{ remove, want string }{
		{"fast-4.15", "channels/stable-4.15.yaml:1 error C1"},
		{"candidate-4.15", "channels/fast-4.15.yaml:1 error C1"},
	} {
		fsys := maps.Clone(demo)
		delete(fsys, "channels/"+tc.remove+".yaml")
		ps := Validate(fsys, demoReleases(t))
		if got := briefs(ps); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("without %s: got\n\t%s\nwant\n\t%s", tc.remove, strings.Join(texts(ps), "\n\t"), tc.want)
		}
	}
}

func briefs(ps Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, brief(p))
	}
	return out
}
