package viewer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	upgraph "github.com/upgraph/upgraph"
	"github.com/upgraph/upgraph/generator"
	"github.com/upgraph/upgraph/release/graphdata"
	"github.com/upgraph/upgraph/release/source"
	"github.com/upgraph/upgraph/site"
	"github.com/upgraph/upgraph/tree/writer"
)

var (
	demoOnce sync.Once
	demoDir  string
	demoErr  error
)

// demoTree renders the demo data with the viewer into a directory shared
// by the tests of this process (removed by TestMain).
func demoTree(t testing.TB) string {
	t.Helper()
	demoOnce.Do(func() {
		demoDir = filepath.Join(testTmp, "demo")
		var b *generator.Built
		b, demoErr = generator.Build(context.Background(), &source.MetadataDir{Dir: "demo", FS: upgraph.DemoReleases()},
			upgraph.DemoGraphData(), generator.BuildOptions{GraphData: graphdata.DefaultOptions()})
		if demoErr == nil {
			_, demoErr = generator.Render(context.Background(), b, generator.RenderOptions{
				Store: writer.DirStore{Dir: demoDir}, GeneratedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
			})
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir
}

var testTmp string

func TestMain(m *testing.M) {
	var err error
	if testTmp, err = os.MkdirTemp("", "upgraph-viewer-test-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(testTmp)
	os.Exit(code)
}

// serveTree serves a tree with the real site handler on 127.0.0.1.
func serveTree(t testing.TB, dir string) string {
	t.Helper()
	g, err := site.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := site.NewHandler(site.Options{})
	h.SetGeneration(g)
	srv := httptest.NewServer(site.CORS(h))
	t.Cleanup(func() {
		srv.Close()
		g.Close()
	})
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Fatalf("test server on %s, want 127.0.0.1", srv.URL)
	}
	return srv.URL
}

// chromium finds the browser: $UPGRAPH_CHROMIUM, else Debian's chromium
// or another Chrome on PATH. Without one the browser tests are skipped,
// except in CI (.ci/deps installs chromium).
func chromium(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("UPGRAPH_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH (apt-get install chromium)")
	}
	t.Skip("no chromium on PATH")
	return ""
}

// newBrowser starts a headless Chromium for the test, with the flags this
// sandbox needs (no sandbox as root, no GPU, no background traffic to
// Google's hosts) and a fresh profile.
func newBrowser(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		cancel()
		cancelAlloc()
		t.Fatalf("starting %s: %v", chromium(t), err)
	}
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	return ctx
}

// page is a browser tab with everything the page reported: console
// messages, uncaught exceptions, browser log entries (failed loads, CSP
// violations) and the URL of every request.
type page struct {
	ctx    context.Context
	origin string

	mu       sync.Mutex
	console  []string
	problems []string
	requests []string
	// allowed are substrings of problems a test expects (a 404 it
	// provokes); they do not fail it.
	allowed []string
}

func newPage(t testing.TB, browser context.Context, origin string) *page {
	t.Helper()
	return newPageWithin(t, browser, origin, 3*time.Minute)
}

// newPageWithin is newPage with the page's whole life bounded by limit
// instead of 3 minutes, for a test that drives one tab through many
// states.
func newPageWithin(t testing.TB, browser context.Context, origin string, limit time.Duration) *page {
	t.Helper()
	p := &page{origin: origin}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithListener(p.listen))
	t.Cleanup(cancel)
	// chromedp enables the runtime, log and network domains on attach.
	if err := chromedp.Do(ctx, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tg, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true})
		return chromedp.Void{}, err
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, limit)
	t.Cleanup(cancelTimeout)
	p.ctx = ctx
	t.Cleanup(func() { p.check(t) })
	return p
}

// listen records what the page reports; it runs in the tab's event loop.
func (p *page) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args {
			if len(a.Value) > 0 {
				args = append(args, string(a.Value))
			} else {
				args = append(args, a.Description)
			}
		}
		msg := fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
		p.console = append(p.console, msg)
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert, runtime.ConsoleAPICalledTypeWarning:
			p.problems = append(p.problems, msg)
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		p.problems = append(p.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			p.problems = append(p.problems, fmt.Sprintf("log %s %s: %s (%s)", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

// check fails the test on any console error or warning, exception, log
// error, or request to another origin.
func (p *page) check(t testing.TB) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, msg := range p.problems {
		if !slices.ContainsFunc(p.allowed, func(a string) bool { return strings.Contains(msg, a) }) {
			t.Errorf("page reported: %s", msg)
		}
	}
	for _, u := range p.requests {
		if !strings.HasPrefix(u, p.origin+"/") && !strings.HasPrefix(u, "data:") && !strings.HasPrefix(u, "blob:") {
			t.Errorf("page requested %s, outside %s", u, p.origin)
		}
	}
	if len(p.requests) == 0 {
		t.Error("no request was seen: network events are not being recorded")
	}
}

// allow makes problems containing any of substrings (a 404 the test
// provokes) not fail the test.
func (p *page) allow(substrings ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allowed = append(p.allowed, substrings...)
}

// requested tells whether the page requested the file at path (relative
// to the origin).
func (p *page) requested(path string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.requests, p.origin+"/"+path)
}

func (p *page) do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(p.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into v.
func (p *page) eval(t testing.TB, expr string, v any) {
	t.Helper()
	raw, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluating %.80s: %v", expr, err)
	}
	if v != nil {
		if err := json.Unmarshal(raw, v); err != nil {
			t.Fatalf("evaluating %.80s: %v (%.200s)", expr, err, raw)
		}
	}
}

// renders is the number of completed renders (body[data-ready]).
func (p *page) renders(t testing.TB) int {
	t.Helper()
	var n int
	p.eval(t, `Number(document.body.dataset.ready || 0)`, &n)
	return n
}

// waitRender waits until the page has completed more than after renders.
func (p *page) waitRender(t testing.TB, after int) int {
	t.Helper()
	p.poll(t, fmt.Sprintf(`Number(document.body.dataset.ready || 0) > %d`, after))
	return p.renders(t)
}

// poll waits until a JavaScript expression is true.
func (p *page) poll(t testing.TB, expr string) {
	t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// open navigates to the viewer with a query and waits for its first render.
func (p *page) open(t testing.TB, query url.Values) {
	t.Helper()
	u := p.origin + "/"
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	p.do(t, chromedp.Navigate(u))
	p.waitRender(t, 0)
}

// click clicks the element a CSS selector names and waits for the render
// it causes.
func (p *page) click(t testing.TB, selector string) {
	t.Helper()
	before := p.renders(t)
	p.do(t, chromedp.Click(chromedp.CSS(selector)))
	p.waitRender(t, before)
}

// screenshot saves a PNG of the page as name into $UPGRAPH_ARTIFACTS (for
// CI to keep), or the test's temporary directory.
func (p *page) screenshot(t testing.TB, name string) string {
	t.Helper()
	dir := os.Getenv("UPGRAPH_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	return path
}

// state is what the page shows, read from its DOM.
type state struct {
	Search   string   `json:"search"`
	Arch     string   `json:"arch"`
	Channel  string   `json:"channel"`
	Arches   []string `json:"arches"`
	Channels []string `json:"channels"`
	Current  string   `json:"current"`
	To       string   `json:"to"`
	Versions []string `json:"versions"`
	Selected string   `json:"selected"`
	// Recommended and Conditional are the updates listed for Current.
	Recommended []string     `json:"recommended"`
	Conditional []shownCond  `json:"conditional"`
	Hops        []shownHop   `json:"hops"`
	NoPath      bool         `json:"noPath"`
	GraphNodes  []string     `json:"graphNodes"`
	GraphEdges  [][2]string  `json:"graphEdges"`
	Timings     pageTimings  `json:"timings"`
	Status      string       `json:"status"`
	Location    locationInfo `json:"location"`
	// SummaryFile is where the page read the list of graphs from.
	SummaryFile string `json:"summaryFile"`
}

type shownCond struct {
	To    string      `json:"to"`
	Risks []shownRisk `json:"risks"`
}

type shownRisk struct {
	Name    string `json:"name"`
	Message string `json:"message"`
	URL     string `json:"url"`
}

type shownHop struct {
	From        string      `json:"from"`
	To          string      `json:"to"`
	Conditional bool        `json:"conditional"`
	Risks       []shownRisk `json:"risks"`
}

type pageTimings struct {
	FirstRender float64 `json:"firstRender"`
	GraphLoad   float64 `json:"graphLoad"`
}

type locationInfo struct {
	Search string `json:"search"`
}

const readState = `(() => {
  const $ = (s) => document.querySelector(s);
  const all = (s, root = document) => [...root.querySelectorAll(s)];
  const risks = (li) => all('.risk', li).map((r) => ({
    name: r.dataset.name,
    message: (r.querySelector('.risk-message') || {}).textContent || '',
    url: (r.querySelector('a') || {}).href || '',
  }));
  const v = window.upgraphViewer;
  return {
    search: $('#search').value,
    arch: $('#arch').value,
    channel: $('#channel').value,
    arches: all('#arch option').map((o) => o.value),
    channels: all('#channel option').map((o) => o.value),
    current: ($('#current') || {}).textContent || '',
    to: $('#to').value,
    versions: all('#versions button[data-version]').map((b) => b.dataset.version),
    selected: ($('#versions [aria-current=true]') || { dataset: {} }).dataset.version || '',
    recommended: all('#recommended li[data-to]').map((li) => li.dataset.to),
    conditional: all('#conditional li[data-to]').map((li) => ({ to: li.dataset.to, risks: risks(li) })),
    hops: all('#hops li.hop').map((li) => ({ from: li.dataset.from, to: li.dataset.to, conditional: li.dataset.conditional === 'true', risks: risks(li) })),
    noPath: !!$('#nopath'),
    graphNodes: v.cy ? v.cy.nodes().map((n) => n.id()) : [],
    graphEdges: v.cy ? v.cy.edges().map((e) => [e.source().id(), e.target().id()]) : [],
    timings: v.timings,
    status: $('#status').textContent,
    location: { search: location.search },
    summaryFile: v.summaryFile,
  };
})()`

func (p *page) state(t testing.TB) state {
	t.Helper()
	var s state
	p.eval(t, readState, &s)
	return s
}
