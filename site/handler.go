package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/schema"
	"github.com/upgraph/upgraph/tree"
	"github.com/upgraph/upgraph/tree/manifest"
)

// Options configure a Handler.
type Options struct {
	// Prefixes under which /graph, /v1/graph, /openapi and /signatures are
	// served. Default: "" and "/api/upgrades_info".
	Prefixes []string
	// CacheControl for graph responses. Default: a short max-age with
	// stale-while-revalidate/stale-if-error, suited to a CDN in front.
	CacheControl string
	// CacheBytes bounds the file content kept in memory: 0 means the
	// default, 512 MiB; a negative value keeps nothing.
	CacheBytes int64
	// VerifyAhead checks every file's digest in the background as soon as
	// a generation is set (see verifyAhead), instead of on its first
	// request only.
	VerifyAhead bool
	// Guard, when set, makes Offer refuse a new generation that would
	// strand clusters; nil serves every generation that loads.
	Guard *Guard
	// Trust, when set, must accept every generation before it is served
	// (serve --trust: package tree/sign's verification of the tree's
	// files and TUF metadata); a refusal keeps the previous one.
	Trust func(ctx context.Context, t tree.Tree) error
	// Metrics, when set, writes more series (Prometheus text format)
	// after the handler's own on /metrics: what a process serving the
	// tree knows and the handler does not, such as its inputs.
	Metrics func(io.Writer)
	Logger  *slog.Logger
}

// DefaultCacheControl keeps CDN copies fresh well within a cluster's
// 2–4 minute polling interval and lets them ride out origin trouble.
const DefaultCacheControl = "public, max-age=60, stale-while-revalidate=300, stale-if-error=86400"

// Handler serves one generation at a time; SetGeneration swaps it
// atomically.
type Handler struct {
	opts    Options
	gen     atomic.Pointer[Generation]
	cache   *cache
	metrics *metrics
	openapi *content
	empty   *content
	// emptyGz is the empty graph's gzip copy, the bytes generate writes
	// (graph/empty.json.gz): answered to clients that accept gzip when
	// the tree served has it.
	emptyGz *content
	log     *slog.Logger

	reloadMu sync.Mutex             // serialises generation loads
	reload   atomic.Pointer[func()] // set by Watch: check for a new generation now

	// sharedFiles bounds the descriptors the generations served keep
	// open (fileBudget).
	sharedFiles *fileBudget

	lifeMu   sync.Mutex    // guards draining and closed (lifetime.go)
	draining []*Generation // retired, still answering requests
	closed   bool
	closing  chan struct{} // closed by Close
}

// NewHandler returns a handler with no generation loaded (not ready).
func NewHandler(opts Options) *Handler {
	if opts.Prefixes == nil {
		opts.Prefixes = []string{"", "/api/upgrades_info"}
	}
	if opts.CacheControl == "" {
		opts.CacheControl = DefaultCacheControl
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = 512 << 20
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	empty := []byte(manifest.EmptyGraph)
	return &Handler{
		opts: opts, cache: newCache(opts.CacheBytes), metrics: newMetrics(), log: opts.Logger,
		openapi: newContent(openAPIFor(opts.Prefixes)),
		empty:   newContent(empty),
		emptyGz: newContent(precompress.Gzip(empty)),
		closing: make(chan struct{}), sharedFiles: newFileBudget(sharedFileLimit()),
	}
}

// Generation returns the generation being served, or nil.
func (h *Handler) Generation() *Generation { return h.gen.Load() }

// ServeHTTP routes a request. Unknown paths get 404 with an empty body, as
// upstream answers them.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	route := h.route(sw, r)
	h.metrics.observe(route, sw.status, time.Since(start))
}

func (h *Handler) route(w http.ResponseWriter, r *http.Request) string {
	route, rest := h.routeOf(r.URL.Path)
	switch route {
	case "healthz":
		w.Write([]byte("ok\n"))
	case "readyz":
		if h.gen.Load() == nil {
			http.Error(w, "no generation loaded", http.StatusServiceUnavailable)
		} else {
			w.Write([]byte("ok\n"))
		}
	case "metrics":
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		h.metrics.write(w, h.gen.Load(), h.cache.bytes())
		if h.opts.Metrics != nil {
			h.opts.Metrics(w)
		}
	case "graph":
		h.serveGraph(w, r)
	case "openapi":
		if methodAllowed(w, r) {
			h.writeContent(w, r, "application/json", h.openapi, "no-cache")
		}
	case "signatures":
		h.serveSignature(w, r, rest)
	case "catalogs":
		if !h.serveCatalogd(w, r, strings.TrimPrefix(r.URL.EscapedPath(), "/catalogs/")) {
			w.WriteHeader(http.StatusNotFound)
			return "other"
		}
	case "operators":
		if !h.serveOperatorsFile(w, r, rest) {
			w.WriteHeader(http.StatusNotFound)
			return "other"
		}
	default:
		if h.serveTree(w, r) {
			return "tree"
		}
		w.WriteHeader(http.StatusNotFound)
		return "other"
	}
	return route
}

// routeOf names the route of a request path ("graph", "openapi", …, or
// "" for the tree and unknown paths); rest is what follows /signatures/.
// Both servers route with it, so they agree on every path.
func (h *Handler) routeOf(p string) (route, rest string) {
	switch p {
	case "/healthz", "/readyz", "/metrics":
		return p[1:], ""
	}
	// Operator catalogs (catalogd.go): catalogd's API, and their files.
	if strings.HasPrefix(p, "/catalogs/") {
		return "catalogs", ""
	}
	if strings.HasPrefix(p, "/"+OperatorsDir) {
		return "operators", p[1:]
	}
	for _, prefix := range h.opts.Prefixes {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		switch {
		case rest == "/graph" || rest == "/v1/graph":
			return "graph", ""
		case rest == "/openapi" || rest == "/v1/openapi":
			return "openapi", ""
		case strings.HasPrefix(rest, "/signatures/"):
			return "signatures", strings.TrimPrefix(rest, "/signatures/")
		}
	}
	return "", ""
}

func methodAllowed(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	writeError(w, &apiError{http.StatusMethodNotAllowed, "method_not_allowed", "method " + r.Method + " is not allowed; use GET or HEAD"})
	return false
}

func (h *Handler) serveGraph(w http.ResponseWriter, r *http.Request) {
	if !methodAllowed(w, r) {
		return
	}
	accept, present := r.Header["Accept"]
	mediaType, q, apiErr := parseGraphRequest(r.URL.RawQuery, strings.Join(accept, ", "), present)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	for attempt := 0; ; attempt++ {
		t, apiErr := h.locate(q)
		if apiErr != nil {
			writeError(w, apiErr)
			return
		}
		if t.gen == nil {
			if t.emptyGz && acceptsGzip(r.Header.Get("Accept-Encoding")) {
				writeGzipped(w, r, mediaType, h.emptyGz, h.opts.CacheControl)
				return
			}
			writeIdentity(w, r, mediaType, h.empty, h.opts.CacheControl)
			return
		}
		setBucket(w, t.bucket)
		err := h.serveFile(w, r, mediaType, t.gen, t.file)
		t.gen.release()
		if reload := h.reloader(); errors.Is(err, fs.ErrNotExist) && attempt == 0 && reload != nil {
			// The tree was swapped under this generation: pick up the new one.
			reload()
			continue
		}
		if err != nil {
			if _, changed := errors.AsType[*changedError](err); !changed {
				h.log.Error("reading graph", "file", t.file.name, "err", err)
			}
			writeError(w, errorAnswer(t.file.name, err))
		}
		return
	}
}

// parseGraphRequest negotiates the media type and validates the query of
// a /graph request.
func parseGraphRequest(rawQuery, accept string, acceptPresent bool) (mediaType string, q graphQuery, err *apiError) {
	mediaType = negotiate(accept, acceptPresent)
	if mediaType == "" {
		return "", q, errNotAcceptable
	}
	q, err = parseGraphQuery(rawQuery)
	return mediaType, q, err
}

// graphTarget is the file of gen that answers a /graph request, or the
// empty graph when gen is nil (a valid channel the tree does not have:
// upstream answers 200 with an empty graph).
type graphTarget struct {
	gen  *Generation // acquired: released once the answer is written
	file *servedFile
	// emptyGz, with gen nil, tells that the tree has the empty graph's
	// gzip copy.
	emptyGz bool
	// bucket is the phased-rollout bucket answered (-1: no rollouts).
	bucket int
}

// locate finds the file answering q in the generation being served.
func (h *Handler) locate(q graphQuery) (graphTarget, *apiError) {
	gen := h.acquire()
	if gen == nil {
		return graphTarget{}, errNotReady
	}
	file, known, versionFound := gen.lookup(q.channel, q.arch, q.version)
	if !known {
		emptyGz := gen.emptyGz
		gen.release()
		h.metrics.fallback("unknown_channel")
		return graphTarget{emptyGz: emptyGz}, nil
	}
	if q.version != "" && !versionFound {
		h.metrics.fallback("unknown_version")
	}
	file, bucket := forBucket(gen, file, q)
	return graphTarget{gen: gen, file: file, bucket: bucket}, nil
}

func (h *Handler) reloader() func() {
	if f := h.reload.Load(); f != nil {
		return *f
	}
	return nil
}

// serveFile answers with f, a file of gen, or with its gzip copy (written
// by generate) to a client that accepts gzip: nothing is compressed at
// run time, and a tree without copies is answered uncompressed, as nginx
// with gzip_static answers it. Either is streamed from the tree with
// sendfile, as nginx does, while the file is as it was when its digest
// was checked (checkFile): copying tens of kilobytes per request from
// memory into the socket costs more than the kernel's zero-copy path, and
// keeping every body in memory would grow the heap with the tree. It
// returns an error only before anything was written.
func (h *Handler) serveFile(w http.ResponseWriter, r *http.Request, mediaType string, gen *Generation, f *servedFile) error {
	gzipped := false
	if f.gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		f, gzipped = f.gz, true
	}
	file, err := gen.open(f.slot.name)
	if err != nil {
		return err
	}
	defer file.Close()
	data, stream, err := h.checkFile(f, file)
	if err != nil {
		return err
	}
	if !stream {
		c := &content{body: data, etag: f.slot.etag}
		if gzipped {
			writeGzipped(w, r, mediaType, c, h.opts.CacheControl)
		} else {
			writeIdentity(w, r, mediaType, c, h.opts.CacheControl)
		}
		return nil
	}
	if writeHeader(w, r, mediaType, f.slot.etag, h.opts.CacheControl, f.info.Size, gzipped) && r.Method != http.MethodHead {
		// sendfile through http's ReadFrom, of no more than the length sent.
		io.Copy(w, io.LimitReader(file, f.info.Size))
	}
	return nil
}

// newContent wraps a body with its ETag (a prefix of its sha256).
func newContent(body []byte) *content {
	return &content{body: body, etag: etagOf(manifest.SHA256(body))}
}

func etagOf(sha256 string) string { return `"` + sha256[:32] + `"` }

// content returns the cached content of a file of gen.
func (h *Handler) content(gen *Generation, name string) (*content, error) {
	f := gen.Manifest.Files[name]
	if c := h.cache.get(cacheKey{digest: f.SHA256}); c != nil {
		return c, nil
	}
	data, f, err := gen.read(name)
	if err != nil {
		return nil, err
	}
	c := &content{body: data, etag: etagOf(f.SHA256)}
	h.cache.add(cacheKey{digest: f.SHA256}, c)
	return c, nil
}

// writeIdentity answers with c as it is, whatever the client accepts.
func writeIdentity(w http.ResponseWriter, r *http.Request, mediaType string, c *content, cacheControl string) {
	if writeHeader(w, r, mediaType, c.etag, cacheControl, int64(len(c.body)), false) && r.Method != http.MethodHead {
		w.Write(c.body)
	}
}

// writeGzipped answers with c, a gzip encoding (Content-Encoding: gzip).
func writeGzipped(w http.ResponseWriter, r *http.Request, mediaType string, c *content, cacheControl string) {
	if writeHeader(w, r, mediaType, c.etag, cacheControl, int64(len(c.body)), true) && r.Method != http.MethodHead {
		w.Write(c.body)
	}
}

// writeContent answers with c: ETag and If-None-Match, gzip when accepted,
// no body for HEAD.
func (h *Handler) writeContent(w http.ResponseWriter, r *http.Request, mediaType string, c *content, cacheControl string) {
	body, etag := c.body, c.etag
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		body, etag = c.gzipped()
	}
	if !writeHeader(w, r, mediaType, etag, cacheControl, int64(len(body)), gz) {
		return
	}
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeHeader sets the headers every file answer carries and answers 304
// when If-None-Match matches. It reports whether a body should follow.
func writeHeader(w http.ResponseWriter, r *http.Request, mediaType, etag, cacheControl string, size int64, gzipped bool) bool {
	hdr := w.Header()
	hdr.Set("Content-Type", mediaType)
	hdr.Set("Cache-Control", cacheControl)
	hdr.Add("Vary", "Accept, Accept-Encoding")
	hdr.Set("ETag", etag)
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return false
	}
	if gzipped {
		hdr.Set("Content-Encoding", "gzip")
	}
	hdr.Set("Content-Length", strconv.FormatInt(size, 10))
	w.WriteHeader(http.StatusOK)
	return true
}

// etagMatches implements If-None-Match's weak comparison.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

var signaturePath = regexp.MustCompile(`^([^/=]+)=([0-9a-f]{64})/(signature-[1-9][0-9]?)$`)

// serveSignature serves release signatures in the layout clusters use for
// signature stores: /signatures/sha256=<hex>/signature-<N>.
func (h *Handler) serveSignature(w http.ResponseWriter, r *http.Request, rest string) {
	if !methodAllowed(w, r) {
		return
	}
	m := signaturePath.FindStringSubmatch(rest)
	if m == nil || (m[1] != "sha256" && m[1] != "sha") || strings.Count(rest, "=") != 1 {
		writeError(w, &apiError{http.StatusBadRequest, "invalid_params", "invalid client parameters: signature path must be sha256=<hex digest>/signature-<N>"})
		return
	}
	gen := h.acquire()
	name := "signatures/" + rest
	if gen == nil {
		writeError(w, errNotReady)
		return
	}
	defer gen.release()
	if _, ok := gen.Manifest.Files[name]; !ok {
		writeError(w, &apiError{http.StatusNotFound, "does_not_exist", "does not exist: " + rest})
		return
	}
	c, err := h.content(gen, name)
	if err != nil {
		h.log.Error("reading signature", "file", name, "err", err)
		writeError(w, errorAnswer(rest, err))
		return
	}
	h.writeContent(w, r, "application/octet-stream", c, "public, max-age=86400")
}

// writeError writes upstream's error body, {"kind","value"} in that order.
func writeError(w http.ResponseWriter, e *apiError) {
	b := jsonw.Key([]byte{'{'}, "kind")
	b = jsonw.String(b, e.kind)
	b = append(b, ',')
	b = jsonw.Key(b, "value")
	b = jsonw.String(b, e.value)
	b = append(b, '}')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	w.Write(b)
}

// openAPIFor prefixes the document's paths with the last (by default the
// production, /api/upgrades_info) prefix, as upstream does for its one.
func openAPIFor(prefixes []string) []byte {
	var doc map[string]any
	if err := json.Unmarshal(schema.OpenAPI, &doc); err != nil {
		panic(fmt.Sprintf("embedded openapi.json: %v", err)) // fixed at build time
	}
	prefix := prefixes[len(prefixes)-1]
	paths := map[string]any{}
	for p, v := range doc["paths"].(map[string]any) {
		paths[prefix+p] = v
	}
	doc["paths"] = paths
	b, _ := json.Marshal(doc)
	return b
}

// statusWriter records the status for metrics and access logs.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusWriter) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

// ReadFrom keeps net/http's sendfile path available through the wrapper.
func (s *statusWriter) ReadFrom(src io.Reader) (int64, error) {
	s.wrote = true
	if rf, ok := s.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{s.ResponseWriter}, src)
}
