package main

import (
	"fmt"
	"io/fs"
	"log/slog"
	"regexp"
	"strings"

	"github.com/upgraph/upgraph/internal/cliflag"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/mirror"
	"github.com/upgraph/upgraph/release/policy"
)

// mirrorPrefix names a Cincinnati endpoint to re-host. Its graphs already
// have graph-data applied, so it is not a source.Source (which yields the
// raw release graph) but feeds generator.Applied directly.
const mirrorPrefix = "cincinnati:"

func buildMirror(c *cli.Context, endpoint string, gdfs fs.FS, gdOpts graphdata.Options, channelRE *regexp.Regexp, arches *[]string, log *slog.Logger) (*generator.Built, error) {
	var gd *graphdata.GraphData
	var names []string
	if gdfs != nil {
		var err error
		if gd, err = graphdata.Load(gdfs, gdOpts); err != nil {
			return nil, err
		}
		names = gd.ChannelNames()
	}
	if explicit := cliflag.List(c, "channels"); len(explicit) > 0 {
		names = explicit
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s%s: which channels? give --graph-data or --channels", mirrorPrefix, endpoint)
	}
	var channels []string
	for _, name := range names {
		if channelRE != nil && !channelRE.MatchString(name) {
			continue
		}
		if !policy.ChannelPattern.MatchString(name) {
			return nil, fmt.Errorf("--channels: %q is not a channel name clients can request (%s)", name, policy.ChannelPattern)
		}
		channels = append(channels, name)
	}
	if len(*arches) == 0 {
		*arches = mirror.DefaultArches
	}
	g, err := mirror.Fetch(c.Context, mirror.Options{URL: endpoint, Channels: channels, Arches: *arches, Workers: c.Int("workers"), Logger: log})
	if err != nil {
		return nil, err
	}
	log.Info("mirrored", "endpoint", endpoint, "channels", len(channels), "arches", strings.Join(*arches, ","), "releases", g.Len())
	return generator.Applied(g, channels, "cincinnati", gd), nil
}
