package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/source"
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

// firstError returns the first error of a command's flag checks.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// nameFlagsInUsageErrors rewords the flag package's parse errors of cmds
// and of their subcommands (namedUsageError). A command's own
// OnUsageError (diff's and path's exit status) still runs, on the
// reworded error. Without one, the error is returned as it is, without
// urfave/cli's help text on stdout.
func nameFlagsInUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		own := cmd.OnUsageError
		cmd.OnUsageError = func(c *cli.Context, err error, isSubcommand bool) error {
			err = namedUsageError(cmd.Flags, err)
			if own != nil {
				return own(c, err, isSubcommand)
			}
			return err
		}
		nameFlagsInUsageErrors(cmd.Subcommands)
	}
}

var (
	// flagPackageValue is the flag package's error for a value that does
	// not parse: `invalid value "abc" for flag -workers: parse error`, or
	// for a boolean `invalid boolean value "maybe" for -force: parse error`.
	flagPackageValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-([0-9A-Za-z][0-9A-Za-z_-]*): parse error$`)
	// flagPackageName is a flag name in its other errors: "needs an
	// argument: -NAME", "provided but not defined: -NAME".
	flagPackageName = regexp.MustCompile(`(argument: |defined: )-([0-9A-Za-z][0-9A-Za-z_-]*)`)
)

// namedUsageError rewords an error of the flag package so that it names
// the flag as it is typed, --workers rather than -workers, and says what
// one of flags wants instead of "parse error".
func namedUsageError(flags []cli.Flag, err error) error {
	if err == nil {
		return nil
	}
	if m := flagPackageValue.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("--%s: invalid value %s%s", m[2], m[1], wantType(flags, m[2]))
	}
	msg := flagPackageName.ReplaceAllString(err.Error(), "${1}--${2}")
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// wantType says what the flag name of flags parses.
func wantType(flags []cli.Flag, name string) string {
	for _, f := range flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		switch f.(type) {
		case *cli.BoolFlag:
			return ", want true or false"
		case *cli.IntFlag, *cli.Int64Flag:
			return ", want an integer"
		case *cli.Float64Flag:
			return ", want a number"
		case *cli.DurationFlag:
			return ", want a duration such as 90s or 1h30m"
		}
	}
	return ""
}

// given returns a string flag's value and whether there is one to check:
// false when the flag was left out and has no default; an error when it
// was given empty.
func given(c *cli.Context, name string) (string, bool, error) {
	v := c.String(name)
	if v != "" {
		return v, true, nil
	}
	if c.IsSet(name) {
		return "", false, fmt.Errorf("--%s: empty value (leave the flag out for its default)", name)
	}
	return "", false, nil
}

// checkEnum checks that --name is one of allowed.
func checkEnum(c *cli.Context, name string, allowed ...string) error {
	v := c.String(name)
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("--%s: want %s, got %q", name, strings.Join(allowed, ", "), v)
}

// checkInt checks that the int flag --name is at least min; want says
// what it accepts, e.g. "0 (no limit) or more".
func checkInt(c *cli.Context, name string, min int, want string) error {
	if n := c.Int(name); n < min {
		return fmt.Errorf("--%s: want %s, got %d", name, want, n)
	}
	return nil
}

// checkTimeout checks a duration flag where 0 means "no deadline".
func checkTimeout(c *cli.Context, name string) error {
	if d := c.Duration(name); d < 0 {
		return fmt.Errorf("--%s: want a duration, 0 for none, got %v", name, d)
	}
	return nil
}

// checkList checks every element of the comma-separated, repeatable
// flag --name: none may be empty (a doubled or trailing comma, or an
// unset shell variable), and each must pass valid when given.
func checkList(c *cli.Context, name string, valid func(string) error) error {
	for _, s := range listElements(c, name) {
		if s == "" {
			return fmt.Errorf("--%s: empty element in %q", name, strings.Join(c.StringSlice(name), ","))
		}
		if valid != nil {
			if err := valid(s); err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
		}
	}
	return nil
}

// listElements is the one parser of the flags documented as
// "comma-separated or repeated": every value split at its commas, each
// element trimmed, empty ones kept. The app takes every repeatable
// flag's values whole (DisableSliceFlagSeparator), so that the others
// (NAME=SOURCE, SRC=DST, ROLE=T) may hold commas.
func listElements(c *cli.Context, name string) []string {
	var out []string
	for _, v := range c.StringSlice(name) {
		for _, s := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

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

// statWant is what a path flag must name.
type statWant int

const (
	wantDir statWant = iota
	wantFile
)

// checkPath checks that p, the value of --name, exists and is what want
// says.
func checkPath(name, p string, want statWant) error {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return fmt.Errorf("--%s: %w", name, err)
	case want == wantDir && !st.IsDir():
		return fmt.Errorf("--%s %s: not a directory", name, p)
	case want == wantFile && !st.Mode().IsRegular():
		return fmt.Errorf("--%s %s: not a regular file", name, p)
	}
	return nil
}

// checkInput checks that --name, when given, names an existing directory
// or file, as want says.
func checkInput(c *cli.Context, name string, want statWant) error {
	p, ok, err := given(c, name)
	if !ok {
		return err
	}
	return checkPath(name, p, want)
}

// checkOutputDir checks that --name, a directory created when missing,
// is given and is not something else.
func checkOutputDir(c *cli.Context, name string) error {
	p := c.String(name)
	if p == "" {
		if c.IsSet(name) {
			return fmt.Errorf("--%s: empty path", name)
		}
		return nil
	}
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return fmt.Errorf("--%s %s: exists and is not a directory", name, p)
	}
	return nil
}

// checkOutputFile checks that --name, a file written whole, is given,
// is not a directory, and goes into an existing directory.
func checkOutputFile(c *cli.Context, name string) error {
	p, ok, err := given(c, name)
	if !ok {
		return err
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return fmt.Errorf("--%s %s: is a directory", name, p)
	}
	if st, err := os.Stat(filepath.Dir(p)); err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	} else if !st.IsDir() {
		return fmt.Errorf("--%s %s: %s is not a directory", name, p, filepath.Dir(p))
	}
	return nil
}

// isGzip reports whether the file p starts as gzip data does.
func isGzip(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 2)
	_, err = io.ReadFull(f, magic)
	return err == nil && bytes.Equal(magic, []byte{0x1f, 0x8b})
}

// checkHTTPURL checks that s, the value of --name, is an http:// or
// https:// URL with a host.
func checkHTTPURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--%s %q: want an http:// or https:// URL with a host", name, s)
	}
	return nil
}

// checkReleases checks --releases, a release source (source.Kinds, or
// with mirrors cincinnati:URL), as far as it can without reading it: the
// kind, the path a kind reads, a registry repository's name.
func checkReleases(c *cli.Context, mirrors bool) error {
	spec, ok, err := given(c, "releases")
	if !ok {
		return err
	}
	if endpoint, ok := strings.CutPrefix(spec, mirrorPrefix); ok && mirrors {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--releases: release source %q: want %sURL, an http:// or https:// URL with a host", spec, mirrorPrefix)
		}
		return nil
	}
	kinds := source.Kinds
	if mirrors {
		kinds += ", or " + mirrorPrefix + "URL"
	}
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return fmt.Errorf("--releases: release source %q: want KIND:ARG, one of %s", spec, kinds)
	}
	switch kind {
	case "graph":
		return checkPath("releases", arg, wantFile)
	case "metadata", "oci":
		return checkPath("releases", arg, wantDir)
	case "registry":
		if _, err := (&registry.Client{}).Repository(arg); err != nil {
			return fmt.Errorf("--releases: %w", err)
		}
		return nil
	}
	return fmt.Errorf("--releases: release source %q: unknown kind %q, want one of %s", spec, kind, kinds)
}

// checkGraphData checks --graph-data: a directory, a .tar.gz, or, with
// images, image:REF.
func checkGraphData(c *cli.Context, images bool) error {
	spec, ok, err := given(c, "graph-data")
	if !ok {
		return err
	}
	if ref, ok := strings.CutPrefix(spec, graphdata.ImagePrefix); ok && images {
		if _, err := (&registry.Client{}).Reference(ref); err != nil {
			return fmt.Errorf("--graph-data: %w", err)
		}
		return nil
	}
	st, err := os.Stat(spec)
	switch {
	case err != nil:
		return fmt.Errorf("--graph-data: %w", err)
	case !st.IsDir() && !isGzip(spec):
		return fmt.Errorf("--graph-data %s: neither a directory nor a .tar.gz", spec)
	}
	return nil
}

// checkScrapeFlags checks scrapeFlags, which only registry: and oci:
// sources use: they are checked whatever the source, so that a mistake
// shows at once rather than the day the source changes.
func checkScrapeFlags(c *cli.Context) error {
	return firstError(
		checkOutputDir(c, "cache"),
		checkCAFile(c),
		checkPayloadRepo(c),
		checkTimeout(c, "scrape-timeout"),
	)
}

// checkCAFile checks that --ca-file, when given, holds PEM certificates,
// as registry.TLSConfig reads it.
func checkCAFile(c *cli.Context) error {
	if err := checkInput(c, "ca-file", wantFile); err != nil {
		return err
	}
	_, err := registry.TLSConfig(c.String("ca-file"))
	return err
}

// checkPayloadRepo checks that --payload-repo, when given, is a
// repository (HOST/REPO, without tag or digest).
func checkPayloadRepo(c *cli.Context) error {
	repo, ok, err := given(c, "payload-repo")
	if !ok {
		return err
	}
	if _, err := (&registry.Client{}).Repository(repo); err != nil {
		return fmt.Errorf("--payload-repo: %w", err)
	}
	return nil
}

// region is what SigV4 can sign for: AWS's names, and the single words
// S3-compatible stores use ("garage", "auto", "default").
var region = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// checkS3ClientFlags checks --endpoint and --region (s3ClientFlags, and
// publish's), whether or not an s3:// source is read.
func checkS3ClientFlags(c *cli.Context) error {
	endpoint, ok, err := given(c, "endpoint")
	if ok {
		err = checkHTTPURL("endpoint", endpoint)
	}
	if err != nil {
		return err
	}
	r, ok, err := given(c, "region")
	if ok && !region.MatchString(r) {
		err = fmt.Errorf("--region %q: want a region name such as %s", r, s3tree.DefaultRegion)
	}
	return err
}
