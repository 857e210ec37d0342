package generator

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
)

// MirrorPrefix names a Cincinnati endpoint to re-host. Its graphs already
// have graph-data applied, so it is not a source.Source (which yields the
// raw release graph) but feeds Applied directly.
const MirrorPrefix = "cincinnati:"

// Inputs name what a generation's releases are built from, as generate's
// flags do (the flags named in messages).
type Inputs struct {
	// Demo builds from the demo data embedded in the binary, instead of
	// Releases and GraphData.
	Demo bool
	// Releases is a release source (source.Kinds) or MirrorPrefix+URL.
	Releases string
	// GraphData is a directory, a .tar.gz or graphdata.ImagePrefix+REF;
	// "" is allowed for a mirrored endpoint only.
	GraphData string
	// Signatures is a directory of release signatures to publish besides
	// graph-data's, "" for none.
	Signatures       string
	GraphDataOptions graphdata.Options
	UpstreamQuirks   bool
	// SourceOptions says how release sources and graph-data images are
	// read; called only when they are.
	SourceOptions func() (source.Options, error)
	// Mirror builds from the Cincinnati endpoint at url, with graph-data
	// gd when given (nil otherwise), and returns the architectures it
	// fetched (tools/airgap.BuildEndpoint: release/mirror reads trees,
	// which sit above this package's tests).
	Mirror func(ctx context.Context, url string, gd fs.FS) (*Built, []string, error)
	// Arches are returned as they are when nothing is mirrored.
	Arches []string
	Logger *slog.Logger
}

// BuildInputs reads the inputs and applies graph-data, or, for a
// mirrored Cincinnati endpoint, fetches graphs that already have it
// applied. It returns the architectures fetched for a mirror (in.Arches
// otherwise).
func BuildInputs(ctx context.Context, in Inputs) (*Built, []string, error) {
	log := in.Logger
	arches := in.Arches
	sigs, err := signatureDir(in.Signatures, in.GraphDataOptions, log)
	if err != nil {
		return nil, arches, err
	}
	buildOpts := BuildOptions{GraphData: in.GraphDataOptions, UpstreamQuirks: in.UpstreamQuirks, Signatures: sigs, Logger: log}
	if in.Demo {
		if in.Releases != "" || in.GraphData != "" {
			return nil, arches, fmt.Errorf("--demo replaces --releases and --graph-data")
		}
		b, err := Build(ctx, &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases(), Logger: log}, upgraph.DemoGraphData(), buildOpts)
		return b, arches, err
	}
	spec := in.Releases
	if spec == "" {
		return nil, arches, fmt.Errorf("--releases is required (or --demo)")
	}
	srcOpts, err := in.SourceOptions()
	if err != nil {
		return nil, arches, err
	}
	var gdfs fs.FS
	if in.GraphData != "" {
		if gdfs, err = OpenGraphData(ctx, in.GraphData, srcOpts.Registry); err != nil {
			return nil, arches, err
		}
	}
	if endpoint, ok := strings.CutPrefix(spec, MirrorPrefix); ok {
		b, fetched, err := in.Mirror(ctx, endpoint, gdfs)
		if err == nil {
			err = b.AddSignatures(sigs)
		}
		if fetched != nil {
			arches = fetched
		}
		return b, arches, err
	}
	if gdfs == nil {
		return nil, arches, fmt.Errorf("--graph-data is required (only a cincinnati: source comes with graph-data applied)")
	}
	releases, err := source.Parse(spec, srcOpts)
	if err != nil {
		return nil, arches, err
	}
	b, err := Build(ctx, releases, gdfs, buildOpts)
	return b, arches, err
}

// signatureDir reads --signatures (nil when not given).
func signatureDir(dir string, gdOpts graphdata.Options, log *slog.Logger) (graphdata.Signatures, error) {
	if dir == "" {
		return nil, nil
	}
	if st, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("--signatures: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("--signatures %s: not a directory", dir)
	}
	sigs, warnings, err := graphdata.LoadSignatures(os.DirFS(dir), dir, gdOpts)
	for _, w := range warnings {
		log.Warn("signatures", "problem", w.Error())
	}
	return sigs, err
}

// OpenGraphData opens a graph-data tree: a directory, a .tar.gz, or
// graphdata.ImagePrefix+REF, an image read with regOpts.
func OpenGraphData(ctx context.Context, spec string, regOpts registry.Options) (fs.FS, error) {
	ref, isImage := strings.CutPrefix(spec, graphdata.ImagePrefix)
	if !isImage {
		return graphdata.Open(spec)
	}
	client, err := registry.New(regOpts)
	if err != nil {
		return nil, err
	}
	return graphdata.OpenImage(ctx, client, ref)
}
