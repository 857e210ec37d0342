package synth

import (
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/Masterminds/semver/v3"
)

// realGraphData is the shared graph-data snapshot, relative to this package.
const realGraphData = "../../../shared/graph-data"

// channelTree builds a graph-data tree whose channels/<name> files list the
// given versions.
func channelTree(channels map[string][]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, versions := range channels {
		var b strings.Builder
		b.WriteString("name: " + strings.TrimSuffix(name, ".yaml") + "\nversions:\n")
		for _, v := range versions {
			b.WriteString("- " + v + "\n")
		}
		fsys["channels/"+name] = &fstest.MapFile{Data: []byte(b.String())}
	}
	return fsys
}

// mustReleases runs FromGraphData on fsys, failing the test on error.
func mustReleases(tb testing.TB, fsys fstest.MapFS) []Release {
	tb.Helper()
	rs, err := FromGraphData(fsys)
	if err != nil {
		tb.Fatalf("FromGraphData: %v", err)
	}
	return rs
}

// byID indexes releases by "<version>+<arch>".
func byID(rs []Release) map[string]Release {
	m := make(map[string]Release, len(rs))
	for _, r := range rs {
		m[r.Version+"+"+r.Arch] = r
	}
	return m
}

// realTree loads the shared graph-data snapshot into memory, skipping the
// test when it is missing.
func realTree(tb testing.TB) fstest.MapFS {
	tb.Helper()
	if _, err := os.Stat(realGraphData); err != nil {
		tb.Skipf("graph-data snapshot not available: %v", err)
	}
	root := os.DirFS(realGraphData)
	entries, err := fs.ReadDir(root, "channels")
	if err != nil {
		tb.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		data, err := fs.ReadFile(root, "channels/"+e.Name())
		if err != nil {
			tb.Fatal(err)
		}
		fsys["channels/"+e.Name()] = &fstest.MapFile{Data: data}
	}
	return fsys
}

// isLegacyS390X reports whether v uses the legacy "-s390x" naming.
func isLegacyS390X(v string) bool {
	return strings.HasSuffix(v, "-s390x")
}

// cmpStrings returns a comparison of version strings by SemVer precedence.
func cmpStrings(tb testing.TB) func(a, b string) int {
	return func(a, b string) int {
		va, errA := semver.StrictNewVersion(a)
		vb, errB := semver.StrictNewVersion(b)
		if errA != nil || errB != nil {
			tb.Fatalf("comparing %q and %q: %v %v", a, b, errA, errB)
		}
		return va.Compare(vb)
	}
}
