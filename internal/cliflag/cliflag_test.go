package cliflag

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// run parses args with flags as a command does and calls check on the
// parsed context, returning its error.
func run(t *testing.T, flags []cli.Flag, args []string, check func(*cli.Context) error) error {
	t.Helper()
	var got error
	called := false
	app := &cli.App{Name: "t", Flags: flags, Action: func(c *cli.Context) error {
		called = true
		got = check(c)
		return nil
	}}
	if err := app.Run(append([]string{"t"}, args...)); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	if !called {
		t.Fatalf("parsing %q: action not run", args)
	}
	return got
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:8080", ""},
		{":0", ""},
		{"[::1]:http", ""},
		{"localhost", `--listen "localhost": want HOST:PORT: address localhost: missing port in address`},
		{"", `--listen "": want HOST:PORT: missing port in address`},
		{"127.0.0.1:no-such-service", `--listen "127.0.0.1:no-such-service": want HOST:PORT: `},
	} {
		got := errText(CheckListen("listen", tc.addr))
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) || tc.want != "" && got == "" {
			t.Errorf("CheckListen(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestFirstError(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, tc := range []struct {
		errs []error
		want error
	}{
		{nil, nil},
		{[]error{nil, nil}, nil},
		{[]error{nil, a, b}, a},
		{[]error{b, a}, b},
	} {
		if got := FirstError(tc.errs...); got != tc.want {
			t.Errorf("FirstError(%v) = %v, want %v", tc.errs, got, tc.want)
		}
	}
}

func TestNamedUsageError(t *testing.T) {
	flags := []cli.Flag{
		&cli.IntFlag{Name: "workers"},
		&cli.Int64Flag{Name: "cache-mb"},
		&cli.BoolFlag{Name: "force"},
		&cli.Float64Flag{Name: "shrink-threshold"},
		&cli.DurationFlag{Name: "poll"},
		&cli.StringFlag{Name: "out"},
	}
	for _, tc := range []struct{ in, want string }{
		{`invalid value "abc" for flag -workers: parse error`, `--workers: invalid value "abc", want an integer`},
		{`invalid value "1.5" for flag -cache-mb: parse error`, `--cache-mb: invalid value "1.5", want an integer`},
		{`invalid boolean value "maybe" for -force: parse error`, `--force: invalid value "maybe", want true or false`},
		{`invalid value "x" for flag -shrink-threshold: parse error`, `--shrink-threshold: invalid value "x", want a number`},
		{`invalid value "2" for flag -poll: parse error`, `--poll: invalid value "2", want a duration such as 90s or 1h30m`},
		{`invalid value "a\"b" for flag -out: parse error`, `--out: invalid value "a\"b"`},
		{`invalid value "1" for flag -unknown: parse error`, `--unknown: invalid value "1"`},
		{`flag needs an argument: -out`, `flag needs an argument: --out`},
		{`flag provided but not defined: -nope`, `flag provided but not defined: --nope`},
		{`something else: -x`, `something else: -x`},
	} {
		if got := errText(NamedUsageError(flags, errors.New(tc.in))); got != tc.want {
			t.Errorf("NamedUsageError(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if NamedUsageError(flags, nil) != nil {
		t.Error("NamedUsageError(nil) is not nil")
	}
	other := errors.New("unrelated")
	if NamedUsageError(flags, other) != other {
		t.Error("NamedUsageError rewrapped an error it does not reword")
	}
}

// TestNameFlagsInUsageErrors: a bad value for a subcommand's flag is
// reported by its --name, through the command's own OnUsageError when it
// has one.
func TestNameFlagsInUsageErrors(t *testing.T) {
	var own error
	cmds := []*cli.Command{{
		Name:  "outer",
		Flags: []cli.Flag{&cli.IntFlag{Name: "n"}},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			own = err
			return err
		},
		Action: func(*cli.Context) error { return nil },
		Subcommands: []*cli.Command{{
			Name: "inner", Flags: []cli.Flag{&cli.DurationFlag{Name: "d"}},
			Action: func(*cli.Context) error { return nil },
		}},
	}}
	NameFlagsInUsageErrors(cmds)
	for _, tc := range []struct {
		args   []string
		want   string
		viaOwn bool
	}{
		{[]string{"outer", "--n", "x"}, `--n: invalid value "x", want an integer`, true},
		{[]string{"outer", "inner", "--d", "3"}, `--d: invalid value "3", want a duration such as 90s or 1h30m`, false},
	} {
		own = nil
		app := &cli.App{Name: "t", Commands: cmds, Writer: &strings.Builder{}, ErrWriter: &strings.Builder{}}
		got := errText(app.Run(append([]string{"t"}, tc.args...)))
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
		if (own != nil) != tc.viaOwn {
			t.Errorf("%q: the command's own OnUsageError ran: %v, want %v", tc.args, own != nil, tc.viaOwn)
		}
	}
}

func TestStringChecks(t *testing.T) {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "format", Value: "text"},
		&cli.StringFlag{Name: "name"},
		&cli.IntFlag{Name: "workers", Value: 4},
		&cli.DurationFlag{Name: "timeout"},
		&cli.StringSliceFlag{Name: "arch"},
	}
	enum := func(c *cli.Context) error { return CheckEnum(c, "format", "text", "json") }
	given := func(c *cli.Context) error {
		v, ok, err := Given(c, "name")
		if err == nil && ok != (v != "") {
			return errors.New("ok disagrees with the value")
		}
		return err
	}
	workers := func(c *cli.Context) error { return CheckInt(c, "workers", 1, "1 or more") }
	timeout := func(c *cli.Context) error { return CheckTimeout(c, "timeout") }
	arch := func(c *cli.Context) error {
		return CheckList(c, "arch", func(s string) error {
			if s != "amd64" && s != "arm64" {
				return errors.New(s + ": unknown")
			}
			return nil
		})
	}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(*cli.Context) error
		want  string
	}{
		{"enum default", nil, enum, ""},
		{"enum given", []string{"--format", "json"}, enum, ""},
		{"enum other", []string{"--format", "yaml"}, enum, `--format: want text, json, got "yaml"`},
		{"given left out", nil, given, ""},
		{"given", []string{"--name", "x"}, given, ""},
		{"given empty", []string{"--name", ""}, given, "--name: empty value (leave the flag out for its default)"},
		{"int default", nil, workers, ""},
		{"int low", []string{"--workers", "0"}, workers, "--workers: want 1 or more, got 0"},
		{"timeout none", []string{"--timeout", "0s"}, timeout, ""},
		{"timeout negative", []string{"--timeout", "-1s"}, timeout, "--timeout: want a duration, 0 for none, got -1s"},
		{"list", []string{"--arch", "amd64,arm64", "--arch", " amd64 "}, arch, ""},
		{"list left out", nil, arch, ""},
		{"list doubled comma", []string{"--arch", "amd64,,arm64"}, arch, `--arch: empty element in "amd64,,arm64"`},
		{"list trailing comma", []string{"--arch", "amd64,"}, arch, `--arch: empty element in "amd64,"`},
		{"list invalid", []string{"--arch", "amd64,s390x"}, arch, "--arch: s390x: unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errText(run(t, flags, tc.args, tc.check)); got != tc.want {
				t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestList(t *testing.T) {
	flags := []cli.Flag{&cli.StringSliceFlag{Name: "channel"}}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--channel", "a"}, "a"},
		{[]string{"--channel", "a, b", "--channel", "c"}, "a|b|c"},
	} {
		var got []string
		run(t, flags, tc.args, func(c *cli.Context) error { got = List(c, "channel"); return nil })
		if strings.Join(got, "|") != tc.want {
			t.Errorf("List(%q) = %q, want %s", tc.args, got, tc.want)
		}
	}
}

func TestPathChecks(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.json")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	flags := []cli.Flag{&cli.StringFlag{Name: "in"}, &cli.StringFlag{Name: "out"}}
	inDir := func(c *cli.Context) error { return CheckInput(c, "in", WantDir) }
	inFile := func(c *cli.Context) error { return CheckInput(c, "in", WantFile) }
	outDir := func(c *cli.Context) error { return CheckOutputDir(c, "out") }
	outFile := func(c *cli.Context) error { return CheckOutputFile(c, "out") }
	for _, tc := range []struct {
		name  string
		args  []string
		check func(*cli.Context) error
		want  string
	}{
		{"input left out", nil, inDir, ""},
		{"input dir", []string{"--in", dir}, inDir, ""},
		{"input file", []string{"--in", file}, inFile, ""},
		{"input empty", []string{"--in", ""}, inDir, "--in: empty value (leave the flag out for its default)"},
		{"input missing", []string{"--in", missing}, inFile, "--in: stat " + missing + ": no such file or directory"},
		{"input file for dir", []string{"--in", file}, inDir, "--in " + file + ": not a directory"},
		{"input dir for file", []string{"--in", dir}, inFile, "--in " + dir + ": not a regular file"},
		{"output dir left out", nil, outDir, ""},
		{"output dir new", []string{"--out", missing}, outDir, ""},
		{"output dir exists", []string{"--out", dir}, outDir, ""},
		{"output dir empty", []string{"--out", ""}, outDir, "--out: empty path"},
		{"output dir a file", []string{"--out", file}, outDir, "--out " + file + ": exists and is not a directory"},
		{"output file new", []string{"--out", missing}, outFile, ""},
		{"output file replaced", []string{"--out", file}, outFile, ""},
		{"output file a dir", []string{"--out", dir}, outFile, "--out " + dir + ": is a directory"},
		{"output file in missing dir", []string{"--out", filepath.Join(missing, "x")}, outFile, "--out: stat " + missing + ": no such file or directory"},
		{"output file in a file", []string{"--out", filepath.Join(file, "x")}, outFile, "--out " + filepath.Join(file, "x") + ": " + file + " is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errText(run(t, flags, tc.args, tc.check)); got != tc.want {
				t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestCheckHTTPURL(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://example.com", ""},
		{"https://example.com:8443/graph", ""},
		{"ftp://example.com", `--url "ftp://example.com": want an http:// or https:// URL with a host`},
		{"https:///path", `--url "https:///path": want an http:// or https:// URL with a host`},
		{"example.com", `--url "example.com": want an http:// or https:// URL with a host`},
		{"http://a b", `--url: parse "http://a b": invalid character " " in host name`},
	} {
		if got := errText(CheckHTTPURL("url", tc.url)); got != tc.want {
			t.Errorf("CheckHTTPURL(%q) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
