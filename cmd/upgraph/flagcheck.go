package main

import (
	"fmt"
	"regexp"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/internal/cliflag"
	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// Every command checks all its flags before it reads an input, opens a
// connection or creates a file, and an error names the flag as it is
// typed (--name). The checks shared by several commands are here; each
// command lists its own at the top of its action, in the order of its
// flags, and returns the first that fails (firstError).
//
// A flag given an empty value (--out "") is an error unless "" means
// something for it: an unset shell variable is the likely cause, and
// quietly taking the default (the user cache directory, AWS S3, …) would
// hide it. Leave the flag out for its default.

// channelName and archName are what a client can ask for.
func channelName(s string) error {
	if !policy.ChannelPattern.MatchString(s) {
		return fmt.Errorf("%q is not a channel name (%s)", s, policy.ChannelPattern)
	}
	return nil
}

func archName(s string) error {
	if !policy.ArchPattern.MatchString(s) {
		return fmt.Errorf("%q is not an architecture (%s)", s, policy.ArchPattern)
	}
	return nil
}

// checkReleases checks --releases (generator.CheckReleases).
func checkReleases(c *cli.Context, mirrors bool) error {
	spec, ok, err := cliflag.Given(c, "releases")
	if !ok {
		return err
	}
	return generator.CheckReleases(spec, mirrors)
}

// checkGraphData checks --graph-data: a directory, a .tar.gz, or, with
// images, image:REF.
func checkGraphData(c *cli.Context, images bool) error {
	spec, ok, err := cliflag.Given(c, "graph-data")
	if !ok {
		return err
	}
	return generator.CheckGraphData(spec, images)
}

// checkScrapeFlags checks scrapeFlags, which only registry: and oci:
// sources use: they are checked whatever the source, so that a mistake
// shows at once rather than the day the source changes.
func checkScrapeFlags(c *cli.Context) error {
	return cliflag.FirstError(
		cliflag.CheckOutputDir(c, "cache"),
		checkCAFile(c),
		checkPayloadRepo(c),
		cliflag.CheckTimeout(c, "scrape-timeout"),
	)
}

// checkCAFile checks that --ca-file, when given, holds PEM certificates,
// as registry.TLSConfig reads it.
func checkCAFile(c *cli.Context) error {
	if err := cliflag.CheckInput(c, "ca-file", cliflag.WantFile); err != nil {
		return err
	}
	_, err := registry.TLSConfig(c.String("ca-file"))
	return err
}

// checkPayloadRepo checks that --payload-repo, when given, is a
// repository (HOST/REPO, without tag or digest).
func checkPayloadRepo(c *cli.Context) error {
	repo, ok, err := cliflag.Given(c, "payload-repo")
	if !ok {
		return err
	}
	return registry.CheckRepository("payload-repo", repo)
}

// region is what SigV4 can sign for: AWS's names, and the single words
// S3-compatible stores use ("garage", "auto", "default").
var region = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkS3ClientFlags checks --endpoint and --region (s3ClientFlags, and
// publish's), whether or not an s3:// source is read.
func checkS3ClientFlags(c *cli.Context) error {
	endpoint, ok, err := cliflag.Given(c, "endpoint")
	if ok {
		err = cliflag.CheckHTTPURL("endpoint", endpoint)
	}
	if err != nil {
		return err
	}
	r, ok, err := cliflag.Given(c, "region")
	if ok && !region.MatchString(r) {
		err = fmt.Errorf("--region %q: want a region name such as %s", r, s3tree.DefaultRegion)
	}
	return err
}
