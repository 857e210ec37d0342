package airgap

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"strings"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/policy"
)

// EndpointOptions say what BuildEndpoint fetches.
type EndpointOptions struct {
	// URL is the Cincinnati endpoint; GraphData its graph-data when given
	// (nil otherwise), read with GraphDataOptions.
	URL              string
	GraphData        fs.FS
	GraphDataOptions graphdata.Options
	// The channels matching Channels (nil: all) of graph-data, or
	// EndpointChannels when given; the architectures Arches
	// (mirror.DefaultArches when empty); Workers fetches at a time.
	Channels         *regexp.Regexp
	EndpointChannels []string
	Arches           []string
	Workers          int
	Logger           *slog.Logger
}

// BuildEndpoint fetches every channel × arch graph of a Cincinnati
// endpoint, which has graph-data applied already, as a generation's
// input (generate --releases cincinnati:URL); it returns the
// architectures fetched.
func BuildEndpoint(ctx context.Context, in EndpointOptions) (*generator.Built, []string, error) {
	log := in.Logger
	endpoint, gdfs, arches := in.URL, in.GraphData, in.Arches
	if len(arches) == 0 {
		arches = mirror.DefaultArches
	}
	var gd *graphdata.GraphData
	var names []string
	if gdfs != nil {
		var err error
		if gd, err = graphdata.Load(gdfs, in.GraphDataOptions); err != nil {
			return nil, arches, err
		}
		names = gd.ChannelNames()
	}
	if len(in.EndpointChannels) > 0 {
		names = in.EndpointChannels
	}
	if len(names) == 0 {
		return nil, arches, fmt.Errorf("%s%s: which channels? give --graph-data or --channels", generator.MirrorPrefix, endpoint)
	}
	var channels []string
	for _, name := range names {
		if in.Channels != nil && !in.Channels.MatchString(name) {
			continue
		}
		if !policy.ChannelPattern.MatchString(name) {
			return nil, arches, fmt.Errorf("--channels: %q is not a channel name clients can request (%s)", name, policy.ChannelPattern)
		}
		channels = append(channels, name)
	}
	g, err := mirror.Fetch(ctx, mirror.Options{URL: endpoint, Channels: channels, Arches: arches, Workers: in.Workers, Logger: log})
	if err != nil {
		return nil, arches, err
	}
	log.Info("mirrored", "endpoint", endpoint, "channels", len(channels), "arches", strings.Join(arches, ","), "releases", g.Len())
	return generator.Applied(g, channels, "cincinnati", gd), arches, nil
}
