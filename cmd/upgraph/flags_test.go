package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/upgraph/upgraph/internal/bundletest"
	"github.com/upgraph/upgraph/tree/sign"
)

// TestInvalidFlags is issue 15's acceptance check: every command, run with
// each invalid value of each of its flags, exits non-zero with a message
// naming the flag, does not panic and writes nothing.
//
// Commands and flags come from newApp itself, so a flag without an entry
// in invalidFlags fails the test. Each value replaces the flag in a base
// invocation of the command that is otherwise valid and cheap
// (flagTestBases, each checked to get past flag validation). Besides the
// values listed, every flag that is not a string is given values of the
// wrong type (wrongTypeValues); a boolean flag has no other invalid
// value, so it needs no entry.
func TestInvalidFlags(t *testing.T) {
	fx := newFlagFixture(t)
	fixtureBefore := dirState(t, fx.dir)

	type flagRun struct {
		cmd   string // command path, "" for the global flags
		flag  cli.Flag
		value string
	}
	var runs []flagRun
	used, seen := map[string]bool{}, map[string]bool{}
	commands, flags := 0, 0
	app := newApp()
	addFlag := func(cmd string, f cli.Flag) {
		name := f.Names()[0]
		if name == "help" {
			return
		}
		flags++
		key := "upgraph --" + name
		if cmd != "" {
			seen[cmd+" --"+name] = true
			key = cmd + " --" + name
			if _, own := invalidFlags[key]; !own {
				key = "--" + name // shared
			}
		}
		bad, ok := invalidFlags[key]
		_, isBool := f.(*cli.BoolFlag)
		switch {
		case ok:
			used[key] = true
			if len(bad.bad) == 0 && bad.none == "" {
				t.Errorf("%s: the entry lists no invalid value and does not say why there is none", key)
			}
		case !isBool:
			t.Errorf("%s %s: no entry in invalidFlags: list its invalid values, or say why it has none", cmd, name)
		}
		wrong, known := wrongTypeValues(f)
		if !known {
			t.Errorf("%s --%s: no wrong-type values for a %T", cmd, name, f)
		}
		for _, v := range append(slices.Clone(bad.bad), wrong...) {
			runs = append(runs, flagRun{cmd, f, v})
		}
	}
	for _, f := range app.Flags {
		addFlag("", f)
	}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			commands++
			path := strings.TrimSpace(prefix + " " + cmd.Name)
			for _, f := range cmd.Flags {
				addFlag(path, f)
			}
			walk(path, cmd.Subcommands)
		}
	}
	walk("", app.Commands)
	for key := range invalidFlags {
		if !used[key] {
			t.Errorf("invalidFlags[%q]: no command has this flag", key)
		}
	}
	for key := range flagBases {
		if !seen[key] {
			t.Errorf("flagBases[%q]: no command has this flag", key)
		}
	}
	t.Logf("%d commands, %d flags, %d invalid values", commands, flags, len(runs))

	t.Run("group", func(t *testing.T) {
		// Each base must get past flag validation, or every row using it
		// would pass for the wrong reason.
		for key, b := range flagTestBases {
			t.Run("base "+key, func(t *testing.T) {
				t.Parallel()
				dir := flagScaffold(t, fx, b)
				r := runBounded(t, dir, b.wait(), fx.args(b.args)...)
				switch b.expect {
				case baseWorks:
					if r.code != 0 && !r.ready {
						t.Errorf("upgraph %s: exit %d (timed out: %v), want it to work:\n%s", b.args, r.code, r.timedOut, r.stderr)
					}
				case baseOffline:
					if !r.timedOut && !strings.Contains(r.stderr, "127.0.0.1:1") {
						t.Errorf("upgraph %s: exit %d, want it to get as far as connecting to 127.0.0.1:1:\n%s", b.args, r.code, r.stderr)
					}
				}
			})
		}
		for _, run := range runs {
			name := run.flag.Names()[0]
			t.Run(fmt.Sprintf("%s --%s=%q", orUpgraph(run.cmd), name, run.value), func(t *testing.T) {
				t.Parallel()
				baseKey := run.cmd
				if run.cmd == "" {
					baseKey = "generate"
				}
				if k, ok := flagBases[strings.TrimSpace(run.cmd+" --"+name)]; ok {
					baseKey = k
				}
				b, ok := flagTestBases[baseKey]
				if !ok {
					t.Fatalf("no base invocation %q", baseKey)
				}
				args := withFlagValue(fx.args(b.args), run.cmd, run.flag, fx.expand(run.value))
				dir := flagScaffold(t, fx, b)
				before := dirState(t, dir)
				r := runBounded(t, dir, b.wait(), args...)
				what := "upgraph " + strings.Join(args, " ")
				switch {
				case r.ready:
					t.Errorf("%s: started serving", what)
				case r.timedOut:
					t.Errorf("%s: still running after %v", what, b.wait().timeout)
				case r.code == 0:
					t.Errorf("%s: exit 0, want an error", what)
				}
				if out := r.stdout + r.stderr; strings.Contains(out, "panic:") || strings.Contains(out, "goroutine ") {
					t.Errorf("%s: panicked:\n%s", what, out)
				} else if !namesFlag(r.stderr, name) {
					t.Errorf("%s: the error does not name --%s:\n%s", what, name, r.stderr)
				}
				if d := diffDirState(before, dirState(t, dir)); d != "" {
					t.Errorf("%s wrote in its working directory:\n%s", what, d)
				}
				t.Log(strings.TrimSpace(r.stderr)) // with -v, for reading the messages
			})
		}
	})
	if d := diffDirState(fixtureBefore, dirState(t, fx.dir)); d != "" {
		t.Errorf("the shared fixture changed:\n%s", d)
	}
}

// badFlag lists the invalid values of a flag, or says why it has none. A
// value may name the shared fixture ({tree}, {bundle}, {gd}, {releases})
// or what flagScaffold puts in every run's working directory: file.txt,
// emptydir, junkdir; "missing" does not exist there.
type badFlag struct {
	bad  []string
	none string
}

// invalidFlags is keyed by "COMMAND --flag", "upgraph --flag" for the
// global flags, or "--flag" for a flag several commands share with the
// same meaning (a command's own entry comes first). Empty values are
// invalid where "" means nothing: given explicitly it is most likely an
// unset shell variable, and leaving the flag out is how to get its default.
var invalidFlags = map[string]badFlag{
	"upgraph --log-level":  {bad: []string{"", "loud"}},
	"upgraph --log-format": {bad: []string{"", "xml"}},

	// Shared.
	"--workers":          {bad: []string{"-1"}},                        // 0 is the default, said in the usage text
	"--shrink-threshold": {bad: []string{"-0.1", "1.5", "NaN", "Inf"}}, // a fraction: 0 refuses any shrink, 1 none
	// A list for generate, mirror and diff, one arch for path and dot:
	// these are invalid either way.
	"--arch":           {bad: []string{"", "amd64,,arm64", "AMD64", "x86/64"}},
	"--channels":       {bad: []string{"", "stable-4.16,,fast-4.16", "Stable 4.16"}},
	"--format":         {bad: []string{"", "yaml"}},
	"--endpoint":       {bad: []string{"", "127.0.0.1:1", "ftp://127.0.0.1:1", "http://"}},
	"--region":         {bad: []string{"", "us east 1", "a/b"}},
	"--cache":          {bad: []string{"", "file.txt"}},                        // a missing directory is created
	"--ca-file":        {bad: []string{"", "missing", "emptydir", "file.txt"}}, // file.txt holds no PEM certificate
	"--payload-repo":   {bad: []string{"", "quay.io/ocp/release@sha256:0", "quay.io/ocp/release:4.16", "quay.io/ocp release"}},
	"--scrape-timeout": {bad: []string{"-1s"}}, // 0: no deadline, said in the usage text
	"--graph-data":     {bad: []string{"", "missing", "file.txt", "image:", "image:quay.io/Bad Ref"}},
	"--releases": {bad: []string{"", "metadata", "bogus:x", "metadata:", "metadata:missing", "metadata:file.txt",
		"graph:missing", "graph:emptydir", "oci:missing", "registry:quay.io/Bad Repo",
		// validate has no cincinnati: source, so these are unknown kinds there.
		"cincinnati:", "cincinnati:ftp://127.0.0.1:1/graph", "cincinnati:http://"}},
	"--source": {bad: badTreeSources},

	"generate --signatures": {bad: []string{"", "missing", "file.txt"}},
	// NAME=SOURCE: NAME a DNS-1123 label, given once; SOURCE an FBC
	// directory, file or image reference (emptydir is a valid, empty one).
	"generate --catalog": {bad: []string{"", "noequals", "Bad_Name=emptydir", "=emptydir", "x=", "x=missing", "x=dir:file.txt",
		"x=file:emptydir", "x=image:quay.io/Bad Ref", "a=emptydir,a=emptydir"}},
	"validate --catalog": {bad: []string{"", "missing", "dir:file.txt", "file:emptydir", "image:quay.io/Bad Ref", "image:"}},
	"--catalog-platform": {bad: []string{"", "linux", "linux amd64", "linux/amd64/v8/x"}},
	"generate --out":     {bad: badOutDirs},
	// "" matches every channel: no filter.
	"generate --channel":         {bad: []string{"(", "a["}},
	"generate --rollout-buckets": {bad: []string{"0", "-1", "3", "7", "20000"}},
	"generate --at":              {bad: []string{"", "yesterday", "2026-13-01T00:00:00Z", "1.5"}},

	"serve --dir":      {bad: []string{"", "missing", "emptydir", "file.txt"}}, // file.txt: neither a tree nor a bundle
	"serve --bundle":   {bad: []string{"", "missing", "emptydir", "file.txt"}},
	"serve --s3":       {bad: []string{"", "http://127.0.0.1:1/b", "s3://"}},
	"serve --listen":   {bad: []string{"", "127.0.0.1", "127.0.0.1:99999", "127.0.0.1:abc"}}, // "" would listen on every interface
	"serve --prefix":   {bad: []string{"a b", "x?y"}},                                        // "" is the root
	"serve --poll":     {bad: []string{"0", "-1s"}},
	"serve --cache-mb": {bad: []string{"-1", "99999999999999"}}, // 0 keeps nothing in memory; the second overflows in bytes
	"serve --pprof":    {bad: []string{"127.0.0.1:abc"}},        // "" is off

	// UpdateService spec.releases: a repository, HOST/REPO.
	"service --releases":         {bad: []string{"", "quay.io/Bad Repo", "quay.io/ocp/release:4.16", "quay.io/ocp/release@sha256:0"}},
	"service --graph-data-image": {bad: []string{"", "quay.io/Bad Ref", "image:"}},
	"service --catalog": {bad: []string{"", "noequals", "Bad_Name=emptydir", "=emptydir", "x=", "x=missing", "x=dir:file.txt",
		"x=file:emptydir", "x=image:quay.io/Bad Ref", "a=emptydir,a=emptydir"}},
	// A missing directory is made; junkdir holds no tree/ and is a
	// working directory like any other.
	"service --data":            {bad: []string{"", "file.txt"}},
	"service --interval":        {bad: []string{"0", "-1s"}},
	"service --rollout-buckets": {bad: []string{"0", "3", "-10"}},
	"service --listen":          {bad: []string{"", "127.0.0.1", "127.0.0.1:99999", "127.0.0.1:abc"}},
	"service --prefix":          {bad: []string{"a b", "x?y"}},
	"service --cache-mb":        {bad: []string{"-1", "99999999999999"}},
	"service --publish":         {bad: []string{"", "http://127.0.0.1:1/b", "s3://"}},

	"synth-releases --graph-data": {bad: []string{"", "missing", "file.txt",
		"image:quay.io/x/gd:1"}}, // images are not read here: a missing path
	"synth-releases --out": {bad: []string{"", "file.txt"}},

	// nginx reads these in the configuration printed: quotes, '$' and ';'
	// would end a directive early or be read as a variable.
	"edge nginx --root":          {bad: []string{"", `tree"x`, "a$b"}}, // the tree may be on another host: not checked to exist
	"edge nginx --listen":        {bad: []string{"", "a b", "8080;"}},
	"edge nginx --prefix":        {bad: []string{"a b", "/x;y", "x?y"}}, // "" is the root
	"edge nginx --cache-control": {bad: []string{`no"cache`, "$x"}},     // "": serve's
	"edge nginx --state-dir":     {bad: []string{`/tmp/a"b`, "a$b"}},    // "": nginx's -p prefix
	"edge nginx --user":          {bad: []string{"a b", "root;"}},       // "": nginx's default
	// Without --catalogs any value is refused; with it, a path that holds
	// no tree (or a tree without catalogs, as {tree}) is.
	"edge cloudfront --root": {bad: []string{"", "/nonexistent/tree"}},
	// Only with --root (a tree with rollouts) and without --catalogs: the
	// base has neither, so any value is refused.
	"edge cloudfront --kvs": {bad: []string{"", "kvs.json"}},

	"diff --max-bytes": {bad: []string{"-1"}}, // 0: no limit, said in the usage text

	"path --from":     {bad: badVersions},
	"path --id":       {bad: []string{""}},
	"path --wariness": {bad: []string{"", "high", "1e-1"}},
	"path --to":       {bad: badVersions},
	"path --channel":  {bad: badChannelNames},
	"dot --channel":   {bad: badChannelNames},
	// The demo tree has no catalog: any name is one it lacks.
	"dot --catalog": {bad: []string{"", "Bad_Name", "missing"}},
	"dot --package": {bad: []string{""}}, // any other name needs --catalog: TestDotCatalog

	"mirror --from":           {bad: badTreeSources},
	"mirror --out":            {bad: badOutDirs},
	"mirror --bundle":         {bad: []string{"", "emptydir", "file.txt", "missing/demo.tar.gz"}}, // file.txt is not a bundle to replace
	"mirror --channel":        {bad: []string{"(", "a["}},                                         // "" matches every channel
	"mirror --payload-mirror": {bad: []string{"", "quay.io", "=registry.local/ocp", "quay.io=registry.local/ocp@sha256:0"}},
	// The demo tree has no catalog: any name is one it lacks.
	"mirror --catalog": {bad: []string{"", "Bad_Name", "a,,b", "missing"}},
	"mirror --package": {bad: []string{"", "a,,b", "missing"}},

	"publish --headers":      {bad: []string{"", "missing", "emptydir", "file.txt"}}, // file.txt is not header rules
	"publish --max-deletes":  {bad: []string{"-2"}},                                  // -1: no limit; 0: delete nothing
	"publish --max-attempts": {bad: []string{"0", "-1"}},

	"--algorithm":             {bad: []string{"", "rsa", "ed448"}},
	"--threshold":             {bad: []string{"", "root", "root=0", "root=3/2", "mirror=1", "root=1/99"}},
	"--root-expiry":           {bad: []string{"0", "-1h"}},
	"keys rotate --role":      {bad: []string{"", "mirror"}},
	"--sign":                  {bad: []string{"", "missing", "emptydir", "file.txt"}},
	"--timestamp-expiry":      {bad: []string{"0", "-1h", "9000h"}}, // longer than targets
	"--targets-expiry":        {bad: []string{"0", "-1h", "1h"}},    // shorter than the timestamp
	"sign --timestamp":        {bad: []string{"", "missing", "emptydir", "file.txt"}},
	"sign --timestamp-expiry": {bad: []string{"0", "-1h"}},
	"--trust":                 {bad: []string{"", "missing", "emptydir", "file.txt"}},
	"--state":                 {bad: []string{"", "emptydir", "file.txt"}}, // missing: created
}

var (
	// badTreeSources are not trees to read: file.txt is no bundle either.
	badTreeSources = []string{"", "missing", "file.txt", "emptydir", "ftp://127.0.0.1:1/", "http://", "s3://"}
	// badOutDirs cannot be replaced by a generation: junkdir holds a file
	// and no index.json, and the root is refused. A missing one is made.
	badOutDirs      = []string{"", "file.txt", "junkdir", "/"}
	badVersions     = []string{"", "abc", "4.16", "v4.16.0"}
	badChannelNames = []string{"", "Stable 4.16", "stable/4.16", "("}
)

// wrongTypeValues returns values of the wrong type for f, and false for
// a kind of flag it does not know.
func wrongTypeValues(f cli.Flag) ([]string, bool) {
	switch f.(type) {
	case *cli.StringFlag, *cli.StringSliceFlag:
		return nil, true
	case *cli.BoolFlag:
		return []string{"maybe"}, true
	case *cli.IntFlag, *cli.Int64Flag:
		return []string{"abc", "1.5"}, true
	case *cli.Float64Flag:
		return []string{"abc"}, true
	case *cli.DurationFlag:
		return []string{"abc", "10"}, true // "10": no unit
	}
	return nil, false
}

// flagBase is an invocation of a command that gets past flag validation.
type flagBase struct {
	args   string
	expect flagBaseExpect
	// ownTree copies the demo tree into the working directory, as tree:
	// serve writes its snapshots beside the tree it serves.
	ownTree bool
	// ownKeys makes a key directory in the working directory, as keys:
	// keys rotate writes into it.
	ownKeys bool
	// ownSigned copies the signed demo tree into the working directory,
	// as signed: sign --timestamp writes into it.
	ownSigned bool
}

type flagBaseExpect int

const (
	baseWorks   flagBaseExpect = iota // exits 0, or serves
	baseOffline                       // fails connecting to 127.0.0.1:1 (nothing listens there), or keeps trying
)

// flagTestBases are keyed by command path, or by a name flagBases uses.
// Flags go before arguments, and a flag under test replaces the base's.
var flagTestBases = map[string]flagBase{
	"generate":        {args: "generate --demo --out out"},
	"generate inputs": {args: "generate --releases metadata:{releases} --graph-data {gd} --out out"},
	"serve":           {args: "serve --dir tree --listen 127.0.0.1:0", ownTree: true},
	"serve bundle":    {args: "serve --bundle {bundle} --listen 127.0.0.1:0"},
	"serve s3":        {args: "serve --s3 s3://b/p --endpoint http://127.0.0.1:1 --listen 127.0.0.1:0", expect: baseOffline},
	"synth-releases":  {args: "synth-releases --graph-data {gd} --out out"},
	"service":         {args: "service --releases 127.0.0.1:1/ocp/release --graph-data-image 127.0.0.1:1/ocp/graph-data:latest --data data --listen 127.0.0.1:0"},
	"edge nginx":      {args: "edge nginx --root {tree}"},
	"edge cloudfront": {args: "edge cloudfront"},
	"edge nginx full": {args: "edge nginx --root {tree} --full"},
	"diff":            {args: "diff {tree} {tree}"},
	"validate":        {args: "validate --graph-data {gd}"},
	"path":            {args: "path --source {tree} --channel stable-4.16 --from 4.15.0 --to 4.16.1"},
	"dot":             {args: "dot --source {tree} --channel stable-4.16"},
	"verify":          {args: "verify {tree}"},
	"mirror":          {args: "mirror --from {tree} --out out"},
	"mirror bundle":   {args: "mirror --from {tree} --bundle demo.tar.gz"},
	"publish": {args: "publish --endpoint http://127.0.0.1:1 --path-style --dry-run --max-attempts 1 {tree} s3://b/p",
		expect: baseOffline},
	"push":            {args: "push {tree} oci://127.0.0.1:1/upgraph/tree:v1", expect: baseOffline},
	"keys init":       {args: "keys init keys"},
	"keys rotate":     {args: "keys rotate keys", ownKeys: true},
	"service signed":  {args: "service --releases 127.0.0.1:1/ocp/release --graph-data-image 127.0.0.1:1/ocp/graph-data:latest --data data --listen 127.0.0.1:0 --sign {keys}"},
	"diff trusted":    {args: "diff --trust {keys}/root.json {signed} {signed}"},
	"publish trusted": {args: "publish --trust {keys}/root.json --endpoint http://127.0.0.1:1 --path-style --dry-run --max-attempts 1 {signed} s3://b/p", expect: baseOffline},
	"serve trusted":   {args: "serve --trust {keys}/root.json --dir signed --listen 127.0.0.1:0", ownSigned: true},
	"mirror trusted":  {args: "mirror --from {signed} --trust {keys}/root.json --out out"},
	"mirror signed":   {args: "mirror --from {tree} --out out --sign {keys}"},
	"generate signed": {args: "generate --demo --out out --sign {keys}"},
	"sign":            {args: "sign --timestamp {keys} signed", ownSigned: true},
	"verify signed":   {args: "verify --trust {keys}/root.json {signed}"},
}

// flagBases names the base of a flag that the command's base cannot try.
var flagBases = map[string]string{
	"generate --releases":         "generate inputs", // --demo replaces the inputs
	"generate --graph-data":       "generate inputs",
	"serve --bundle":              "serve bundle", // one of --dir, --bundle and --s3
	"serve --s3":                  "serve s3",
	"edge nginx --state-dir":      "edge nginx full", // only with --full
	"edge nginx --user":           "edge nginx full",
	"mirror --bundle":             "mirror bundle",   // one of --out and --bundle
	"verify --state":              "verify signed",   // only with --trust
	"generate --timestamp-expiry": "generate signed", // only with --sign
	"generate --targets-expiry":   "generate signed",
}

// wait bounds a run: serve is stopped as soon as it says it serves.
func (b flagBase) wait() runLimit {
	w := runLimit{timeout: 30 * time.Second}
	if strings.HasPrefix(b.args, "serve ") || strings.HasPrefix(b.args, "service ") {
		w.ready = "serving "
	}
	if b.expect == baseOffline {
		w.timeout = 5 * time.Second
	}
	return w
}

// withFlagValue returns args with --NAME=value in place of the flag (or added
// after the command path, before the arguments; before the command for
// a global flag).
func withFlagValue(args []string, cmd string, f cli.Flag, value string) []string {
	takesValue := true
	if tv, ok := f.(interface{ TakesValue() bool }); ok {
		takesValue = tv.TakesValue()
	}
	var out []string
	for i := 0; i < len(args); i++ {
		name, _, _ := strings.Cut(args[i], "=")
		if strings.HasPrefix(name, "-") && slices.Contains(f.Names(), strings.TrimLeft(name, "-")) {
			if takesValue && !strings.Contains(args[i], "=") {
				i++
			}
			continue
		}
		out = append(out, args[i])
	}
	at := len(strings.Fields(cmd))
	return slices.Insert(out, at, "--"+f.Names()[0]+"="+value)
}

// namesFlag reports whether msg names --name (not merely a longer flag
// that starts with it, as --channels does --channel).
func namesFlag(msg, name string) bool {
	return regexp.MustCompile(`(^|[^\w-])--` + regexp.QuoteMeta(name) + `([^\w-]|$)`).MatchString(msg)
}

func orUpgraph(cmd string) string {
	if cmd == "" {
		return "upgraph"
	}
	return cmd
}

// flagFixture is the shared, read-only input of every run.
type flagFixture struct {
	dir         string
	replacement *strings.Replacer
}

// newFlagFixture writes a demo tree, a bundle of it, release metadata
// and a graph-data that validate accepts.
func newFlagFixture(t *testing.T) *flagFixture {
	t.Helper()
	dir := t.TempDir()
	tree, bundleFile := filepath.Join(dir, "tree"), filepath.Join(dir, "demo.tar.gz")
	gd, releases := filepath.Join(dir, "graph-data"), filepath.Join(dir, "releases")
	env := []string{"SOURCE_DATE_EPOCH=1700000000"}
	if _, stderr, code := run(t, dir, env, "generate", "--demo", "--out", tree); code != 0 {
		t.Fatalf("generate: %s", stderr)
	}
	if _, stderr, code := run(t, dir, env, "mirror", "--from", tree, "--bundle", bundleFile); code != 0 {
		t.Fatalf("mirror: %s", stderr)
	}
	// A signed tree, at the time the test runs: its timestamp is fresh.
	keys, signed := filepath.Join(dir, "keys"), filepath.Join(dir, "signed")
	if _, err := sign.Init(keys, sign.InitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, dir, nil, "generate", "--demo", "--out", signed, "--sign", keys); code != 0 {
		t.Fatalf("generate --sign: %s", stderr)
	}
	bundletest.CopyTree(t, "../../testdata/demo/graph-data", gd)
	bundletest.CopyTree(t, "../../testdata/demo/releases", releases)
	return &flagFixture{dir: dir, replacement: strings.NewReplacer(
		"{tree}", tree, "{bundle}", bundleFile, "{keys}", keys, "{signed}", signed, "{gd}", gd, "{releases}", releases)}
}

func (fx *flagFixture) expand(s string) string {
	return fx.replacement.Replace(s)
}

// args splits a base invocation into arguments, expanded.
func (fx *flagFixture) args(s string) []string {
	args := strings.Fields(s)
	for i, a := range args {
		args[i] = fx.expand(a)
	}
	return args
}

// flagScaffold makes a run's working directory: what values name, and an
// empty TMPDIR.
func flagScaffold(t *testing.T, fx *flagFixture, b flagBase) string {
	t.Helper()
	dir := t.TempDir()
	if b.ownKeys {
		if _, err := sign.Init(filepath.Join(dir, "keys"), sign.InitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if b.ownSigned {
		bundletest.CopyTree(t, fx.expand("{signed}"), filepath.Join(dir, "signed"))
	}
	if b.ownTree {
		bundletest.CopyTree(t, fx.expand("{tree}"), filepath.Join(dir, "tree"))
	}
	write(t, filepath.Join(dir, "file.txt"), "neither a tree, a bundle, PEM nor header rules\n")
	write(t, filepath.Join(dir, "junkdir", "junk.txt"), "not a generation\n")
	for _, d := range []string{"emptydir", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type runLimit struct {
	timeout time.Duration
	ready   string // stop once stdout has it
}

type flagResult struct {
	stdout, stderr  string
	code            int
	timedOut, ready bool
}

// runBounded runs upgraph in dir, where its caches, temporary files and
// AWS configuration go, without credentials it could find elsewhere.
func runBounded(t *testing.T, dir string, w runLimit, args ...string) flagResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), w.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"HOME="+filepath.Join(dir, "home"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "TMPDIR="+filepath.Join(dir, "tmp"),
		"AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "AWS_SESSION_TOKEN=", "AWS_PROFILE=",
		"AWS_CONFIG_FILE="+filepath.Join(dir, "aws-config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "aws-credentials"),
		"AWS_EC2_METADATA_DISABLED=true", "SOURCE_DATE_EPOCH=", killAtEnv+"=")
	stdout := &watchWriter{marker: w.ready, seen: make(chan struct{})}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	// serve stops as it does in production, removing what it made.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var r flagResult
	var err error
	select {
	case err = <-done:
	case <-stdout.seen:
		r.ready = true
		cancel()
		err = <-done
	case <-ctx.Done():
		err = <-done
	}
	r.timedOut = !r.ready && ctx.Err() == context.DeadlineExceeded
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil && !r.ready && !r.timedOut {
		t.Fatal(err)
	}
	r.stdout, r.stderr = stdout.String(), stderr.String()
	return r
}

// watchWriter closes seen once what was written contains marker.
type watchWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	seen   chan struct{}
	once   sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.marker != "" && bytes.Contains(w.buf.Bytes(), []byte(w.marker)) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// dirState describes everything below dir: type, size and modification
// time by path. A directory's time changes when an entry is made in it,
// even one removed since.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		size := info.Size()
		if info.IsDir() {
			size = 0
		}
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%v %d %s", info.Mode(), size, info.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffDirState lists what was made, removed or changed.
func diffDirState(before, after map[string]string) string {
	var lines []string
	for _, p := range slices.Sorted(maps.Keys(after)) {
		if b, ok := before[p]; !ok {
			lines = append(lines, "  made "+p)
		} else if b != after[p] {
			lines = append(lines, fmt.Sprintf("  changed %s: %s → %s", p, b, after[p]))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if _, ok := after[p]; !ok {
			lines = append(lines, "  removed "+p)
		}
	}
	return strings.Join(lines, "\n")
}
