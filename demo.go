// Package upgraph holds what belongs to the project as a whole: the demo
// data embedded in the binary so "upgraph generate --demo" works anywhere.
package upgraph

import (
	"embed"
	"io/fs"
)

//go:embed testdata/demo
var demo embed.FS

// DemoGraphData is a small graph-data tree: six channels (stable, fast and
// candidate of 4.15 and 4.16), a blocked edge and a conditional risk.
func DemoGraphData() fs.FS { return sub("testdata/demo/graph-data") }

// DemoReleases is a metadata:DIR release set: 4.15.0–4.16.2 for amd64 and arm64.
func DemoReleases() fs.FS { return sub("testdata/demo/releases") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(demo, dir)
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	return f
}
