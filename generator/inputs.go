package generator

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/policy"
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
	// For a mirrored endpoint: the channels matching Channels (nil: all)
	// of graph-data, or EndpointChannels when given; the architectures
	// Arches (mirror.DefaultArches when empty); Workers fetches at a time.
	Channels         *regexp.Regexp
	EndpointChannels []string
	Arches           []string
	Workers          int
	Logger           *slog.Logger
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
		if len(arches) == 0 {
			arches = mirror.DefaultArches
		}
		b, err := buildMirror(ctx, in, endpoint, gdfs, arches)
		if err == nil {
			err = b.AddSignatures(sigs)
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

func buildMirror(ctx context.Context, in Inputs, endpoint string, gdfs fs.FS, arches []string) (*Built, error) {
	log := in.Logger
	var gd *graphdata.GraphData
	var names []string
	if gdfs != nil {
		var err error
		if gd, err = graphdata.Load(gdfs, in.GraphDataOptions); err != nil {
			return nil, err
		}
		names = gd.ChannelNames()
	}
	if len(in.EndpointChannels) > 0 {
		names = in.EndpointChannels
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s%s: which channels? give --graph-data or --channels", MirrorPrefix, endpoint)
	}
	var channels []string
	for _, name := range names {
		if in.Channels != nil && !in.Channels.MatchString(name) {
			continue
		}
		if !policy.ChannelPattern.MatchString(name) {
			return nil, fmt.Errorf("--channels: %q is not a channel name clients can request (%s)", name, policy.ChannelPattern)
		}
		channels = append(channels, name)
	}
	g, err := mirror.Fetch(ctx, mirror.Options{URL: endpoint, Channels: channels, Arches: arches, Workers: in.Workers, Logger: log})
	if err != nil {
		return nil, err
	}
	log.Info("mirrored", "endpoint", endpoint, "channels", len(channels), "arches", strings.Join(arches, ","), "releases", g.Len())
	return Applied(g, channels, "cincinnati", gd), nil
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
