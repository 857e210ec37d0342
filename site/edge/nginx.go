package edge

import (
	_ "embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"text/template"

	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/site"
)

// NginxOptions configure NginxConfig.
type NginxOptions struct {
	// Root is the tree directory written by upgraph generate. nginx resolves
	// a relative Root against its prefix (-p), so prefer an absolute path.
	Root string
	// Listen is the argument of nginx's listen directive: "8080",
	// "127.0.0.1:8080", "[::]:8080".
	Listen string
	// Prefixes under which /graph, /v1/graph and /signatures/ are served.
	// nil means "" and "/api/upgrades_info", as the Go handler.
	Prefixes []string
	// CacheControl for graph responses and the tree's files (index.json,
	// the viewer), as the Go handler's; "" means site.DefaultCacheControl.
	CacheControl string

	// Full renders a whole nginx.conf, usable as `nginx -c FILE -p PREFIX`,
	// instead of the http-level snippet (maps and one server block) meant
	// for an existing http block such as /etc/nginx/conf.d/.
	Full bool
	// StateDir holds the pid file, logs and temporary files in Full mode;
	// "" means nginx's prefix (-p).
	StateDir string
	// Foreground adds "daemon off;" in Full mode, for supervisors and tests.
	Foreground bool
	// User sets the worker user in Full mode (nginx only honours it when
	// started as root); "" leaves nginx's default (nobody).
	User string
	// RolloutBuckets is the tree's number of phased-rollout buckets
	// (index.json rollouts.buckets; 0: none): each graph request is then
	// answered from its bucket's copy where the tree has one
	// (nginx_rollouts.go).
	RolloutBuckets int
}

// Validate reports options NginxConfig cannot render safely: values that
// would end a directive early or be read as nginx variables.
func (o NginxOptions) Validate() error {
	var errs []error
	check := func(name, v string, re *regexp.Regexp) {
		if !re.MatchString(v) {
			errs = append(errs, fmt.Errorf("%s %q: must match %s", name, v, re))
		}
	}
	check("root", o.Root, safePath)
	check("listen", o.Listen, safeListen)
	for _, p := range o.Prefixes {
		check("prefix", p, safePrefix)
	}
	if o.StateDir != "" {
		check("state dir", o.StateDir, safePath)
	}
	if o.User != "" {
		check("user", o.User, safeWord)
	}
	if o.RolloutBuckets != 0 {
		if err := rollout.CheckBuckets(o.RolloutBuckets); err != nil {
			errs = append(errs, err)
		}
	}
	if strings.Contains(o.CacheControl, `"`) || strings.Contains(o.CacheControl, "$") {
		errs = append(errs, fmt.Errorf("cache control %q: must not contain '\"' or '$'", o.CacheControl))
	}
	return errors.Join(errs...)
}

var (
	// Paths are quoted in the config, so only quotes, backslashes, '$'
	// (variables in root) and control characters are a problem.
	safePath   = regexp.MustCompile(`^[^"\\$\x00-\x1f\x7f]+$`)
	safeListen = regexp.MustCompile(`^[0-9A-Za-z.:\[\]*_/-]+$`)
	safePrefix = regexp.MustCompile(`^(/[0-9A-Za-z._~-]+)*$`)
	safeWord   = regexp.MustCompile(`^[0-9A-Za-z._-]+$`)
)

//go:embed nginx.conf.tmpl
var nginxTemplate string

var nginxTmpl = template.Must(template.New("nginx").Funcs(template.FuncMap{"q": nginxQuote}).Parse(nginxTemplate))

// NginxConfig renders an nginx configuration that serves the tree at
// opts.Root like site.Handler behind site.CORS: the graph API, release
// signatures and, when the tree carries the viewer, its files. Call opts.Validate first
// when the options come from users.
func NginxConfig(opts NginxOptions) string {
	if opts.Prefixes == nil {
		opts.Prefixes = []string{"", "/api/upgrades_info"}
	}
	if opts.CacheControl == "" {
		opts.CacheControl = site.DefaultCacheControl
	}
	var routes, sigPrefixes []string
	for _, p := range opts.Prefixes {
		p = strings.TrimSuffix(p, "/")
		routes = append(routes, p+"/graph", p+"/v1/graph")
		sigPrefixes = append(sigPrefixes, regexp.QuoteMeta(p))
	}
	data := struct {
		NginxOptions
		Routes    []string
		State     func(string) string
		Maps      []nginxMap
		Media     []nginxMedia
		Responses []nginxResponse
		Vary      string
		MediaJSON string
		MediaV1   string
		// Signatures is the location regex of the signature routes, under
		// every prefix; SigCacheControl their Cache-Control.
		Signatures      string
		SigCacheControl string
		// TreeTypes are the Content-Types of tree files by extension.
		TreeTypes [][2]string
		// MediaJSONL is catalogd's Content-Type, CatalogGzipMin the
		// smallest body its compression middleware compresses.
		MediaJSONL     string
		CatalogGzipMin int
		// RolloutConfig is rolloutNginx's maps when RolloutBuckets is set;
		// RolloutHeader the header naming the bucket.
		RolloutConfig string
		RolloutHeader string
	}{
		NginxOptions: opts,
		Routes:       routes,
		State: func(name string) string {
			if opts.StateDir == "" {
				return name
			}
			return path.Join(opts.StateDir, name)
		},
		Maps:      append(nginxMaps(), catalogMaps()...),
		Media:     []nginxMedia{{"json", site.MediaJSON}, {"v1", site.MediaV1}},
		Responses: append(nginxResponses(), catalogResponses()...),
		Vary:      corsVary,
		MediaJSON: site.MediaJSON,
		MediaV1:   site.MediaV1,

		Signatures:      "^(?:" + strings.Join(sigPrefixes, "|") + ")/signatures/(.*)$",
		SigCacheControl: signatureCacheControl,
		TreeTypes:       treeTypes,
		MediaJSONL:      site.MediaJSONL,
		CatalogGzipMin:  catalogGzipMin,
		RolloutHeader:   rolloutHeader,
	}
	if opts.RolloutBuckets > 0 {
		data.RolloutConfig = rolloutNginx(opts.RolloutBuckets)
	}
	var b strings.Builder
	if err := nginxTmpl.Execute(&b, data); err != nil {
		panic(fmt.Sprintf("nginx template: %v", err)) // the template is fixed at build time
	}
	return b.String()
}

// nginxQuote quotes s as one nginx token. Inside double quotes nginx reads
// \\, \", \n, \r and \t as escapes and every other character as itself.
func nginxQuote(s string) string {
	return `"` + quoteReplacer.Replace(s) + `"`
}

var quoteReplacer = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`)

type nginxMedia struct{ Name, Type string }

// signatureCacheControl is what the Go handler sends with signatures,
// which never change for a digest.
const signatureCacheControl = "public, max-age=86400"

// catalogGzipMin is site's (and catalogd's) smallest compressed catalog
// answer.
const catalogGzipMin = 1024

// treeTypes are site's Content-Types of tree files (mediaTypeOf), by
// extension; any other file is application/octet-stream.
var treeTypes = [][2]string{
	{site.MediaJSON, "json"},
	{"text/html; charset=utf-8", "html"},
	{"text/javascript; charset=utf-8", "js"},
	{"text/css; charset=utf-8", "css"},
	{"text/plain; charset=utf-8", "txt"},
}
