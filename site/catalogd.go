package site

import (
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"net/textproto"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/internal/precompress"
	"github.com/upgraph/upgraph/tree/manifest"
)

// The operator catalogs of a tree (operators/<catalog>/, docs/operators.md)
// are served as catalogd serves a ClusterCatalog: /catalogs/<catalog>/api/v1/all
// and /catalogs/<catalog>/api/v1/metas?schema=&package=&name=, with
// catalogd's statuses, error bodies, Content-Type, Last-Modified and
// conditional requests, and the same bodies byte for byte, from the files
// catalog/metas precomputes (in trees written before the name files, a
// query with name= filters the package or schema file).
// docs/operators.md ("Serving") records catalogd's behaviour and where
// this differs. The other files of a catalog are served at
// their own paths, /operators/<catalog>/…, from any tree.

// MediaJSONL is catalogd's Content-Type for catalog content.
const MediaJSONL = "application/jsonl"

// OperatorsDir holds a tree's catalogs.
const OperatorsDir = "operators/"

// The smallest body catalogd's compression middleware (klauspost/compress
// gzhttp, DefaultMinSize) compresses, 1024 bytes, is precompress.CatalogMin:
// the catalog files that have a gzip copy.

// servedCatalog is a catalog of a generation.
type servedCatalog struct {
	dir string // "operators/<name>/"
	// legacy: the tree was written before the name files
	// (metas/name/…): a query with name= filters the file of its other
	// parameters instead.
	legacy bool
	// modTimes caches each file's modification time, its Last-Modified:
	// the first one read holds for the generation's life.
	modTimes sync.Map // name → time.Time
}

// catalogsOf finds the catalogs of a manifest: those it lists, and any
// directory of operators/ holding an all.jsonl (trees written before the
// manifest listed them).
func catalogsOf(m *manifest.Manifest) map[string]*servedCatalog {
	cats := map[string]*servedCatalog{}
	add := func(name string) {
		if _, ok := m.Files[OperatorsDir+name+"/"+metas.AllFile]; ok && name != "" && !strings.Contains(name, "/") {
			cats[name] = &servedCatalog{dir: OperatorsDir + name + "/"}
		}
	}
	for _, c := range m.Catalogs {
		add(c.Name)
	}
	for name := range m.Files {
		if rest, ok := strings.CutPrefix(name, OperatorsDir); ok {
			if cat, ok := strings.CutSuffix(rest, "/"+metas.AllFile); ok {
				add(cat)
			}
		}
	}
	// Every named blob has its metas/name/ file; a catalog without any
	// either has no named blob (filtering finds none) or predates them.
	named := map[string]bool{}
	for name := range m.Files {
		if rest, ok := strings.CutPrefix(name, OperatorsDir); ok {
			if cat, file, ok := strings.Cut(rest, "/"); ok && strings.HasPrefix(file, metas.NameDir) {
				named[cat] = true
			}
		}
	}
	for name, c := range cats {
		c.legacy = !named[name]
	}
	return cats
}

// CatalogNames returns the names of the catalogs a tree with manifest m
// serves under /catalogs/ (as upgraph serve finds them), sorted.
func CatalogNames(m *manifest.Manifest) []string {
	var names []string
	for name := range catalogsOf(m) {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// modTime returns the modification time of name, a file of gen.
func (c *servedCatalog) modTime(gen *Generation, name string) time.Time {
	if t, ok := c.modTimes.Load(name); ok {
		return t.(time.Time)
	}
	var t time.Time
	if st, err := gen.root.Stat(name); err == nil {
		t = st.ModTime()
	}
	actual, _ := c.modTimes.LoadOrStore(name, t)
	return actual.(time.Time)
}

// serveCatalogd answers a request under /catalogs/; rest is the escaped
// path after it. It reports false, writing nothing, for a path that is
// none of catalogd's routes.
func (h *Handler) serveCatalogd(w http.ResponseWriter, r *http.Request, rest string) bool {
	// catalogd's routes are /catalogs/{catalog}/api/v1/all and …/metas,
	// matched on the escaped path, segment by segment.
	segment, endpoint, ok := strings.Cut(rest, "/")
	if !ok || (endpoint != "api/v1/all" && endpoint != "api/v1/metas") {
		return false
	}
	catalog, err := url.PathUnescape(segment)
	if err != nil {
		return false
	}
	// catalogd's compression middleware varies every answer by encoding.
	w.Header().Add("Vary", "Accept-Encoding")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		catalogdError(w, http.StatusMethodNotAllowed, http.StatusText(http.StatusMethodNotAllowed))
		return true
	}
	if msg := catalogNameErrors(catalog); msg != "" {
		catalogdError(w, http.StatusBadRequest, "invalid catalog name: "+msg)
		return true
	}
	metasQuery := endpoint == "api/v1/metas"
	var query url.Values
	if metasQuery {
		query = r.URL.Query() // as catalogd reads it: pairs it cannot parse are dropped
		for key := range query {
			if key != "schema" && key != "package" && key != "name" {
				catalogdError(w, http.StatusBadRequest, "400 Bad Request")
				return true
			}
		}
	}
	gen := h.acquire()
	if gen == nil {
		writeError(w, errNotReady)
		return true
	}
	defer gen.release()
	c := gen.catalogs[catalog]
	if c == nil {
		catalogdError(w, http.StatusNotFound, "404 Not Found")
		return true
	}
	if metasQuery {
		h.serveMetas(w, r, gen, c, query.Get("schema"), query.Get("package"), query.Get("name"))
	} else {
		h.serveAll(w, r, gen, c)
	}
	return true
}

// serveAll answers /api/v1/all as catalogd does, with http.ServeContent:
// ranges, If-Range, and the conditional requests (here with an ETag).
func (h *Handler) serveAll(w http.ResponseWriter, r *http.Request, gen *Generation, c *servedCatalog) {
	name := c.dir + metas.AllFile
	modtime := c.modTime(gen, name)
	hdr := w.Header()
	hdr.Set("Content-Type", MediaJSONL)
	hdr.Set("Cache-Control", h.opts.CacheControl)
	// From the gzip copy generate wrote (catalog files of catalogd's
	// minimum compressed size and more have one), for the requests
	// catalogd's middleware compresses (not a range): nothing is
	// compressed at run time.
	if gzName := precompress.Name(name); r.Header.Get("Range") == "" && acceptsGzip(r.Header.Get("Accept-Encoding")) && hasFile(gen, gzName) {
		gz, err := h.content(gen, gzName)
		if err != nil {
			h.catalogReadError(w, gzName, err)
			return
		}
		hdr.Set("ETag", gz.etag)
		if !isZeroTime(modtime) {
			hdr.Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
		}
		if !answeredConditionally(w, r, modtime) {
			writeCatalogBody(w, r, gz.body, true)
		}
		return
	}
	content, err := h.content(gen, name)
	if err != nil {
		h.catalogReadError(w, name, err)
		return
	}
	hdr.Set("ETag", content.etag)
	http.ServeContent(w, r, "", modtime, bytes.NewReader(content.body))
}

// serveMetas answers /api/v1/metas as catalogd does: the blobs matching
// every non-empty parameter, in catalog order.
func (h *Handler) serveMetas(w http.ResponseWriter, r *http.Request, gen *Generation, c *servedCatalog, schema, pkg, name string) {
	file, filter := metas.Resolve(schema, pkg, name), false
	if c.legacy && name != "" {
		file, filter = metas.FilterSource(schema, pkg), true
	}
	file = c.dir + file
	if _, ok := gen.Manifest.Files[file]; !ok {
		// No blob has that value: the empty answer.
		file, filter = c.dir+metas.EmptyFile, false
	}
	modtime := c.modTime(gen, file)
	var body []byte
	var etag string
	var cached *content
	if _, ok := gen.Manifest.Files[file]; ok {
		var err error
		if cached, err = h.content(gen, file); err != nil {
			h.catalogReadError(w, file, err)
			return
		}
		body, etag = cached.body, cached.etag
	} else {
		// A tree without metas/empty.jsonl: empty, as of the catalog.
		modtime = c.modTime(gen, c.dir+metas.AllFile)
		body, etag = []byte{}, etagOf(manifest.SHA256(nil))
	}
	if filter {
		cached = nil
		body = metas.Filter(body, name)
		etag = etagOf(manifest.SHA256(body))
	}
	// The file's gzip copy, when the tree has it (generate writes one for
	// every file of catalogd's minimum compressed size and more; HEAD is
	// answered from it too, as nginx's gzip_static answers); nothing is
	// compressed at run time.
	var gzCopy *content
	if gzName := precompress.Name(file); cached != nil && !filter && acceptsGzip(r.Header.Get("Accept-Encoding")) && hasFile(gen, gzName) {
		var err error
		if gzCopy, err = h.content(gen, gzName); err != nil {
			h.catalogReadError(w, gzName, err)
			return
		}
		body, etag = gzCopy.body, gzCopy.etag
	}
	gzipped := gzCopy != nil
	hdr := w.Header()
	hdr.Set("Content-Type", MediaJSONL)
	hdr.Set("Cache-Control", h.opts.CacheControl)
	hdr.Set("ETag", etag)
	// catalogd sets it on every metas answer.
	hdr.Set("Last-Modified", modtime.UTC().Format(http.TimeFormat))
	if answeredConditionally(w, r, modtime) {
		return
	}
	writeCatalogBody(w, r, body, gzipped)
}

// hasFile reports whether gen's tree lists name.
func hasFile(gen *Generation, name string) bool {
	_, ok := gen.Manifest.Files[name]
	return ok
}

// answeredConditionally answers 304 or 412 when the request's conditions
// (and the ETag set) call for it, and reports whether it did.
func answeredConditionally(w http.ResponseWriter, r *http.Request, modtime time.Time) bool {
	hdr := w.Header()
	switch status := preconditions(r, modtime, hdr.Get("ETag")); status {
	case http.StatusNotModified:
		hdr.Del("Content-Type")
		hdr.Del("Last-Modified") // as net/http's ServeContent, when there is an ETag
		w.WriteHeader(status)
		return true
	case http.StatusPreconditionFailed:
		w.WriteHeader(status)
		return true
	}
	return false
}

// writeCatalogBody finishes a metas (or compressed all) answer: the body,
// none for HEAD.
func writeCatalogBody(w http.ResponseWriter, r *http.Request, body []byte, gzipped bool) {
	hdr := w.Header()
	if gzipped {
		hdr.Set("Content-Encoding", "gzip")
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// preconditions evaluates a request's conditions (RFC 9110 §13.2.2) as
// catalogd's metas handler does (internal/catalogd/server/
// http_preconditions_check.go, net/http's checkPreconditions), with an
// ETag: it returns 304, 412 or 0 to answer normally. An invalid
// If-Modified-Since is ignored (catalogd answers 500 with the catalog
// appended to the error; see docs/operators.md).
func preconditions(r *http.Request, modtime time.Time, etag string) int {
	modtime = modtime.Truncate(time.Second) // Last-Modified has whole seconds
	failed := false
	if im := r.Header.Get("If-Match"); im != "" {
		failed = !etagListMatches(im, etag, true)
	} else if ius := r.Header.Get("If-Unmodified-Since"); ius != "" && !isZeroTime(modtime) {
		if t, err := http.ParseTime(ius); err == nil && modtime.After(t) {
			failed = true
		}
	}
	if failed {
		return http.StatusPreconditionFailed
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etagListMatches(inm, etag, false) {
			return http.StatusNotModified
		}
		return 0
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !isZeroTime(modtime) {
		if t, err := http.ParseTime(ims); err == nil && !modtime.After(t) {
			return http.StatusNotModified
		}
	}
	return 0
}

// etagListMatches reports whether an If-Match (strong) or If-None-Match
// (weak comparison) list names etag or is "*".
func etagListMatches(list, etag string, strong bool) bool {
	for _, t := range strings.Split(list, ",") {
		t = textproto.TrimString(t)
		if t == "*" {
			return true
		}
		if strong && strings.HasPrefix(t, "W/") {
			continue
		}
		if strings.TrimPrefix(t, "W/") == etag && etag != "" {
			return true
		}
	}
	return false
}

// isZeroTime is net/http's: a modification time that says nothing.
func isZeroTime(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }

// catalogdError answers as catalogd's handlers do, with http.Error.
func catalogdError(w http.ResponseWriter, status int, msg string) {
	http.Error(w, msg, status)
}

func (h *Handler) catalogReadError(w http.ResponseWriter, name string, err error) {
	if _, changed := errors.AsType[*changedError](err); !changed {
		h.log.Error("reading catalog file", "file", name, "err", err)
	}
	w.Header().Del("Content-Type")
	w.Header().Del("Cache-Control")
	writeError(w, errorAnswer(name, err))
}

// dns1123Subdomain is k8s.io/apimachinery's IsDNS1123Subdomain, which
// catalogd checks catalog names with.
var dns1123Subdomain = regexp.MustCompile(`^` + dns1123SubdomainFmt + `$`)

const (
	dns1123SubdomainFmt = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
	// CatalogNameTooLong and CatalogNameInvalid are apimachinery's
	// messages, which catalogd joins with "; " after "invalid catalog name: ".
	CatalogNameTooLong = "must be no more than 253 characters"
	CatalogNameInvalid = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', " +
		"and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '" + dns1123SubdomainFmt + "')"
)

// catalogNameErrors returns what catalogd says of an invalid catalog name,
// or "".
func catalogNameErrors(name string) string {
	var errs []string
	if len(name) > 253 {
		errs = append(errs, CatalogNameTooLong)
	}
	if !dns1123Subdomain.MatchString(name) {
		errs = append(errs, CatalogNameInvalid)
	}
	return strings.Join(errs, "; ")
}

// serveOperatorsFile answers GET and HEAD for a file of a catalog
// (operators/…) at its own path, from any tree: the summary, graphs and
// per installed bundle files are plain GETs. It reports false, writing
// nothing, when the generation has no such file.
func (h *Handler) serveOperatorsFile(w http.ResponseWriter, r *http.Request, name string) bool {
	gen := h.acquire()
	if gen == nil {
		return false
	}
	defer gen.release()
	if _, ok := gen.Manifest.Files[name]; !ok || !fs.ValidPath(name) {
		return false
	}
	if !methodAllowed(w, r) {
		return true
	}
	mediaType := mediaTypeOf(name)
	if path.Ext(name) == ".jsonl" {
		mediaType = MediaJSONL
	}
	gz, c, err := h.copyContent(gen, r, name)
	if err == nil && !gz {
		c, err = h.content(gen, name)
	}
	if err != nil {
		h.log.Error("reading catalog file", "file", name, "err", err)
		writeError(w, errorAnswer(name, err))
		return true
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if gz {
		writeGzipped(w, r, mediaType, c, h.opts.CacheControl)
	} else {
		h.writeContent(w, r, mediaType, c, h.opts.CacheControl)
	}
	return true
}
