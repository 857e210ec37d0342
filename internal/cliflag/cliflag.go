// Package cliflag holds the flag checks the commands of cmd/upgraph share
// (urfave/cli flags): every command checks all its flags before it reads
// an input, opens a connection or creates a file, and an error names the
// flag as it is typed (--name); a command lists its own checks at the top
// of its action and returns the first that fails (FirstError). It also
// rewords the flag package's parse errors so that they name the flag
// (NameFlagsInUsageErrors).
package cliflag

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// CheckListen checks that --name is HOST:PORT with a port number or name.
func CheckListen(name, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		return fmt.Errorf("--%s %q: want HOST:PORT: %w", name, addr, err)
	}
	return nil
}

// List is the elements of a repeated, comma-separated flag, the
// empty ones left out (CheckList refuses them).
func List(c *cli.Context, name string) []string {
	var out []string
	for _, s := range ListElements(c, name) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// FirstError returns the first error of a command's flag checks.
func FirstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// NameFlagsInUsageErrors rewords the flag package's parse errors of cmds
// and of their subcommands (NamedUsageError). A command's own
// OnUsageError (diff's and path's exit status) still runs, on the
// reworded error. Without one, the error is returned as it is, without
// urfave/cli's help text on stdout.
func NameFlagsInUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		own := cmd.OnUsageError
		cmd.OnUsageError = func(c *cli.Context, err error, isSubcommand bool) error {
			err = NamedUsageError(cmd.Flags, err)
			if own != nil {
				return own(c, err, isSubcommand)
			}
			return err
		}
		NameFlagsInUsageErrors(cmd.Subcommands)
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

// NamedUsageError rewords an error of the flag package so that it names
// the flag as it is typed, --workers rather than -workers, and says what
// one of flags wants instead of "parse error".
func NamedUsageError(flags []cli.Flag, err error) error {
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

// Given returns a string flag's value and whether there is one to check:
// false when the flag was left out and has no default; an error when it
// was Given empty.
func Given(c *cli.Context, name string) (string, bool, error) {
	v := c.String(name)
	if v != "" {
		return v, true, nil
	}
	if c.IsSet(name) {
		return "", false, fmt.Errorf("--%s: empty value (leave the flag out for its default)", name)
	}
	return "", false, nil
}

// CheckEnum checks that --name is one of allowed.
func CheckEnum(c *cli.Context, name string, allowed ...string) error {
	v := c.String(name)
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("--%s: want %s, got %q", name, strings.Join(allowed, ", "), v)
}

// CheckInt checks that the int flag --name is at least min; want says
// what it accepts, e.g. "0 (no limit) or more".
func CheckInt(c *cli.Context, name string, min int, want string) error {
	if n := c.Int(name); n < min {
		return fmt.Errorf("--%s: want %s, got %d", name, want, n)
	}
	return nil
}

// CheckTimeout checks a duration flag where 0 means "no deadline".
func CheckTimeout(c *cli.Context, name string) error {
	if d := c.Duration(name); d < 0 {
		return fmt.Errorf("--%s: want a duration, 0 for none, got %v", name, d)
	}
	return nil
}

// CheckList checks every element of the comma-separated, repeatable
// flag --name: none may be empty (a doubled or trailing comma, or an
// unset shell variable), and each must pass valid when Given.
func CheckList(c *cli.Context, name string, valid func(string) error) error {
	for _, s := range ListElements(c, name) {
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

// ListElements is the one parser of the flags documented as
// "comma-separated or repeated": every value split at its commas, each
// element trimmed, empty ones kept. The app takes every repeatable
// flag's values whole (DisableSliceFlagSeparator), so that the others
// (NAME=SOURCE, SRC=DST, ROLE=T) may hold commas.
func ListElements(c *cli.Context, name string) []string {
	var out []string
	for _, v := range c.StringSlice(name) {
		for _, s := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// Want is what a path flag must name.
type Want int

const (
	WantDir Want = iota
	WantFile
)

// CheckPath checks that p, the value of --name, exists and is what want
// says.
func CheckPath(name, p string, want Want) error {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return fmt.Errorf("--%s: %w", name, err)
	case want == WantDir && !st.IsDir():
		return fmt.Errorf("--%s %s: not a directory", name, p)
	case want == WantFile && !st.Mode().IsRegular():
		return fmt.Errorf("--%s %s: not a regular file", name, p)
	}
	return nil
}

// CheckInput checks that --name, when Given, names an existing directory
// or file, as want says.
func CheckInput(c *cli.Context, name string, want Want) error {
	p, ok, err := Given(c, name)
	if !ok {
		return err
	}
	return CheckPath(name, p, want)
}

// CheckOutputDir checks that --name, a directory created when missing,
// is Given and is not something else.
func CheckOutputDir(c *cli.Context, name string) error {
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

// CheckOutputFile checks that --name, a file written whole, is Given,
// is not a directory, and goes into an existing directory.
func CheckOutputFile(c *cli.Context, name string) error {
	p, ok, err := Given(c, name)
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

// CheckHTTPURL checks that s, the value of --name, is an http:// or
// https:// URL with a host.
func CheckHTTPURL(name, s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("--%s: %w", name, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--%s %q: want an http:// or https:// URL with a host", name, s)
	}
	return nil
}
