package viewer_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The plan view's tests: a tree of cmd/upgraph/testdata/plan's releases,
// graph-data and four catalogs (named ocp-v4-20 … ocp-v5-0, so the page's
// default mapping applies), and the page's plan compared with
// `upgraph plan --source TREE --format json` on the same tree.

const planFixtures = "../../cmd/upgraph/testdata/plan"

// planTree builds upgraph and generates the tree with it.
func planTree(t *testing.T) (bin, dir string) {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool on PATH to build upgraph")
	}
	bin = filepath.Join(t.TempDir(), "upgraph")
	if out, err := exec.Command(goTool, "build", "-o", bin, "../../cmd/upgraph").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir = filepath.Join(t.TempDir(), "tree")
	args := []string{"generate", "--releases", "metadata:" + filepath.Join(planFixtures, "releases"),
		"--graph-data", filepath.Join(planFixtures, "graph-data"), "--out", dir}
	for _, m := range []string{"4.20", "4.21", "4.22", "5.0"} {
		args = append(args, "--catalog", "ocp-v"+strings.ReplaceAll(m, ".", "-")+"=dir:"+filepath.Join(planFixtures, "catalogs", "v"+m))
	}
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("upgraph generate: %v\n%s", err, out)
	}
	return bin, dir
}

// A plan as both sides write it, reduced to what they share. The CLI's
// refs are objects, the page's hops name bundles: both are read into
// names.
type cmpRef struct {
	Name string `json:"name"`
}

func (r *cmpRef) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		r.Name = s
		return nil
	}
	var o struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal(b, &o)
	r.Name = o.Name
	return err
}

type cmpVia []string

func (v *cmpVia) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*v = cmpVia{}
	for _, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			*v = append(*v, s)
			continue
		}
		var o struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(r, &o); err != nil {
			return err
		}
		*v = append(*v, o.Type)
	}
	return nil
}

type cmpHop struct {
	From cmpRef `json:"from"`
	To   cmpRef `json:"to"`
	Via  cmpVia `json:"via"`
}

type cmpBundle struct {
	Name                     string `json:"name"`
	Version                  string `json:"version"`
	MaxOpenShiftVersion      string `json:"maxOpenShiftVersion"`
	MaxOpenShiftVersionError string `json:"maxOpenShiftVersionError"`
}

type cmpRoute struct {
	Head   *cmpRef   `json:"head"`
	Found  bool      `json:"found"`
	Hops   []cmpHop  `json:"hops"`
	Reason cmpReason `json:"reason"`
}

// cmpReason is why a route stops short: the CLI's reason {code, message,
// bundles}, the page's code, both read into the code ("" for none).
type cmpReason string

func (r *cmpReason) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*r = cmpReason(s)
		return nil
	}
	var o struct {
		Code string `json:"code"`
	}
	err := json.Unmarshal(b, &o)
	*r = cmpReason(o.Code)
	return err
}

type cmpDeprecation struct {
	Schema  string `json:"schema"`
	Name    string `json:"name"`
	Message string `json:"message"`
}

type cmpOperatorHop struct {
	Package   string    `json:"package"`
	Channel   string    `json:"channel"`
	Installed cmpBundle `json:"installed"`
	State     string    `json:"state"`
	Update    *struct {
		To   cmpBundle `json:"to"`
		Hops []cmpHop  `json:"hops"`
	} `json:"update"`
	OtherChannels []struct {
		Channel string    `json:"channel"`
		To      cmpBundle `json:"to"`
		Hops    []cmpHop  `json:"hops"`
	} `json:"otherChannels"`
	// Path is a blocked operator's route in the catalog before the hop
	// (with the reason it stops short: refused-by-v1, prohibited, …).
	Path *cmpRoute `json:"path"`
	Next struct {
		State          string    `json:"state"`
		InChannel      bool      `json:"inChannel"`
		Route          *cmpRoute `json:"route"`
		Channels       []string  `json:"channels"`
		DefaultChannel string    `json:"defaultChannel"`
	} `json:"next"`
	Deprecations []cmpDeprecation `json:"deprecations"`
}

type cmpPlan struct {
	Error   string `json:"error"`
	From    string `json:"from"`
	To      string `json:"to"`
	Channel string `json:"channel"`
	Arch    string `json:"arch"`
	ViaEUS  bool   `json:"viaEUS"`
	OLM     string `json:"olm"`
	Release struct {
		Found    bool     `json:"found"`
		Channels []string `json:"channels"`
		Hops     []struct {
			From string `json:"from"`
			To   string `json:"to"`
		} `json:"hops"`
	} `json:"release"`
	Minors    []string `json:"minors"`
	Operators []struct {
		Package   string    `json:"package"`
		Channel   string    `json:"channel"`
		Version   string    `json:"version"`
		Installed cmpBundle `json:"installed"`
	} `json:"operators"`
	Hops []struct {
		From        string `json:"from"`
		To          string `json:"to"`
		ReleaseFrom string `json:"releaseFrom"`
		ReleaseTo   string `json:"releaseTo"`
		OLMChecks   string `json:"olmChecks"`
		EUS         *struct {
			From         string `json:"from"`
			Intermediate string `json:"intermediate"`
			To           string `json:"to"`
			Step         int    `json:"step"`
		} `json:"eus"`
		Blocked   bool             `json:"blocked"`
		Operators []cmpOperatorHop `json:"operators"`
	} `json:"hops"`
	Blocked  bool `json:"blocked"`
	Blockers []struct {
		Hop     string `json:"hop"`
		Package string `json:"package"`
		Channel string `json:"channel"`
	} `json:"blockers"`
}

// normalize makes empty and missing lists alike.
func (p *cmpPlan) normalize() {
	for i := range p.Hops {
		for j := range p.Hops[i].Operators {
			o := &p.Hops[i].Operators[j]
			if len(o.OtherChannels) == 0 {
				o.OtherChannels = nil
			}
			if len(o.Deprecations) == 0 {
				o.Deprecations = nil
			}
			if o.Update != nil && len(o.Update.Hops) == 0 {
				o.Update.Hops = nil
			}
			if r := o.Next.Route; r != nil && len(r.Hops) == 0 {
				r.Hops = nil
			}
			if r := o.Path; r != nil && len(r.Hops) == 0 {
				r.Hops = nil
			}
		}
	}
}

type planViewCase struct {
	name, channel, from, to, operators string
	eus                                bool
	minors                             []string
	typed                              bool   // entered in the textarea rather than linked
	olm                                string // "" for v0
}

var planViewCases = []planViewCase{
	{"major", "candidate-5.0", "4.22.0", "5.0.1", "operators-major.yaml", false, []string{"4.22", "5.0"}, false, ""},
	{"eus", "eus-4.22", "4.20.0", "4.22.0", "operators-eus.yaml", true, []string{"4.20", "4.21", "4.22"}, true, ""},
}

// planViewMoreCases are the other golden cases of cmd/upgraph/plan_test.go,
// linked: OLM v1, --via-eus searching eus-4.22 with candidate-5.0, and no
// path at all.
var planViewMoreCases = []planViewCase{
	{"eus-v1", "eus-4.22", "4.20.0", "4.22.0", "operators-eus.yaml", true, []string{"4.20", "4.21", "4.22"}, false, "v1"},
	{"through", "candidate-5.0", "4.20.1", "5.0.1", "operators-eus.yaml", true, []string{"4.20", "4.21", "4.22", "5.0"}, false, ""},
	// The CLI needs the catalogs of the minors of --from and --to even
	// without a path (v4.21 is noted as not read).
	{"no-path", "stable-4.22", "4.22.1", "4.21.0", "operators-major.yaml", false, []string{"4.21", "4.22"}, false, ""},
	// What the runtimes refuse (upgraph plan's gated goldens): OLM v0
	// never installs prohibited-op's Prohibited update (blocked, and
	// stranded again in v5.0); OLM v1 refuses needs-op's update, which
	// declares olm.gvk.required (blocked, and refused again in v5.0 from
	// a bundle that catalog lacks).
	{"gated", "candidate-5.0", "4.22.0", "5.0.1", "operators-gated.yaml", false, []string{"4.22", "5.0"}, false, ""},
	{"gated-v1", "candidate-5.0", "4.22.0", "5.0.1", "operators-gated.yaml", false, []string{"4.22", "5.0"}, false, "v1"},
}

// cliPlan runs upgraph plan on the tree with its catalogs.
func cliPlan(t *testing.T, bin, tree string, c planViewCase) (cmpPlan, []byte) {
	t.Helper()
	var cats []string
	for _, m := range c.minors {
		cats = append(cats, "v"+m+"=ocp-v"+strings.ReplaceAll(m, ".", "-"))
	}
	args := []string{"plan", "--source", tree, "--channel", c.channel, "--from", c.from, "--to", c.to,
		"--operators", filepath.Join(planFixtures, c.operators), "--catalogs", strings.Join(cats, ","), "--format", "json"}
	if c.eus {
		args = append(args, "--via-eus")
	}
	if c.olm != "" {
		args = append(args, "--olm", c.olm)
	}
	out, err := exec.Command(bin, args...).Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("upgraph %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	var p cmpPlan
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("upgraph plan: %v\n%s", err, out)
	}
	p.normalize()
	return p, out
}

// pagePlan reads #plan-out[data-plan].
func pagePlan(t *testing.T, p *page) (cmpPlan, string) {
	t.Helper()
	var raw string
	p.eval(t, `document.getElementById('plan-out').dataset.plan || ''`, &raw)
	if raw == "" {
		t.Fatal("the page shows no plan (#plan-out[data-plan] is empty)")
	}
	var out cmpPlan
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("the page's plan: %v\n%s", err, raw)
	}
	if out.Error != "" {
		t.Fatalf("the page's plan: %s", out.Error)
	}
	out.normalize()
	return out, raw
}

func comparePlans(t *testing.T, name string, want, got cmpPlan, wantRaw []byte, gotRaw string) {
	t.Helper()
	if reflect.DeepEqual(want, got) {
		return
	}
	w, _ := json.MarshalIndent(want, "", " ")
	g, _ := json.MarshalIndent(got, "", " ")
	wl, gl := strings.Split(string(w), "\n"), strings.Split(string(g), "\n")
	for i := range max(len(wl), len(gl)) {
		a, b := "", ""
		if i < len(wl) {
			a = wl[i]
		}
		if i < len(gl) {
			b = gl[i]
		}
		if a != b {
			t.Errorf("%s: the page's plan differs from upgraph plan's at line %d:\n cli:  %s\n page: %s", name, i+1, a, b)
			break
		}
	}
	t.Logf("%s: upgraph plan:\n%s\npage:\n%s", name, wantRaw, gotRaw)
}

func TestPlanView(t *testing.T) {
	if _, err := os.Stat(planFixtures); err != nil {
		t.Skipf("no plan fixtures: %v", err)
	}
	bin, tree := planTree(t)
	origin := serveTree(t, tree)
	p := newPage(t, newBrowser(t), origin)

	var firstQuery string
	for i, c := range planViewCases {
		want, wantRaw := cliPlan(t, bin, tree, c)
		if len(want.Hops) != len(c.minors)-1 {
			t.Fatalf("%s: upgraph plan has %d hops, want %d", c.name, len(want.Hops), len(c.minors)-1)
		}
		q := url.Values{"plan": {""}, "arch": {"amd64"}, "channel": {c.channel}, "from": {c.from}, "to": {c.to}}
		if c.eus {
			q.Set("eus", "1")
		}
		data, err := os.ReadFile(filepath.Join(planFixtures, c.operators))
		if err != nil {
			t.Fatal(err)
		}
		if c.typed {
			// Opened without operators, the list typed in and planned:
			// the state is pushed into the URL.
			before := p.renders(t)
			if i == 0 {
				p.open(t, q)
			} else {
				p.eval(t, fmt.Sprintf(`(history.pushState(null, '', '?%s'), dispatchEvent(new PopStateEvent('popstate')), true)`, q.Encode()), nil)
				p.waitRender(t, before)
			}
			p.do(t, chromedp.SetValue(chromedp.CSS("#plan-ops"), string(data)))
			p.click(t, "#plan-run")
		} else {
			q.Set("ops", compactOps(t, string(data)))
			p.open(t, q)
		}
		got, gotRaw := pagePlan(t, p)
		comparePlans(t, c.name, want, got, wantRaw, gotRaw)
		// The page resolves no OLM v0 dependency (upgraph plan does: the
		// fixtures' dependencies are all satisfied, so the states agree):
		// with OLM v0 it says so and points to upgraph plan.
		var depsNote string
		p.eval(t, `(document.getElementById('plan-deps-note') || {}).textContent || ''`, &depsNote)
		if wantNote := c.olm != "v1"; wantNote != strings.Contains(depsNote, "are not checked on this page") || wantNote && !strings.Contains(depsNote, "upgraph plan") {
			t.Errorf("%s (OLM %q): the dependency note is %q", c.name, c.olm, depsNote)
		}
		var search string
		p.eval(t, `location.search`, &search)
		if !strings.Contains(search, "ops=") || !strings.Contains(search, "plan=") {
			t.Errorf("%s: the URL %q does not hold the plan's state", c.name, search)
		}
		var tab bool
		p.eval(t, `document.getElementById('mode-plan').getAttribute('aria-pressed') === 'true' && !document.getElementById('mode-plan').hidden`, &tab)
		if !tab {
			t.Errorf("%s: the Plan tab is not shown pressed", c.name)
		}
		p.screenshot(t, "viewer-plan-"+c.name+".png")
		if i == 0 {
			firstQuery = search
		}
	}

	// Back (past the second case's state before its operators were
	// entered) restores the first case's plan.
	before := p.renders(t)
	p.eval(t, `(history.back(), true)`, nil)
	p.waitRender(t, before)
	before = p.renders(t)
	p.eval(t, `(history.back(), true)`, nil)
	p.waitRender(t, before)
	p.poll(t, fmt.Sprintf(`location.search === %q`, firstQuery))
	p.eval(t, `window.upgraphViewer.idle().then(() => true)`, nil)
	want, wantRaw := cliPlan(t, bin, tree, planViewCases[0])
	got, gotRaw := pagePlan(t, p)
	comparePlans(t, "back", want, got, wantRaw, gotRaw)

	// The catalog of a minor can be changed: mapping 5.0 to the 4.22
	// catalog is recorded in the URL and changes the next-catalog states.
	before = p.renders(t)
	p.do(t, chromedp.SetValue(chromedp.CSS(`#plan-catalogs select[data-minor="5.0"]`), "ocp-v4-22"))
	p.eval(t, `(document.querySelector('#plan-catalogs select[data-minor="5.0"]').dispatchEvent(new Event('change', {bubbles: true})), true)`, nil)
	p.waitRender(t, before)
	var search string
	p.eval(t, `location.search`, &search)
	if !strings.Contains(search, "cats=") || !strings.Contains(search, "ocp-v4-22") {
		t.Errorf("the mapping is not in the URL: %q", search)
	}
	got, _ = pagePlan(t, p)
	if len(got.Hops) != 1 || got.Hops[0].Operators[0].Next.State != "reaches-head" {
		t.Errorf("with 5.0 → ocp-v4-22: %+v", got.Hops)
	}
	for _, o := range got.Hops[0].Operators {
		if o.Package == "free-op" && o.Next.State != "reaches-head" {
			t.Errorf("with 5.0 → ocp-v4-22, free-op's next state is %s, want reaches-head (its channel is there)", o.Next.State)
		}
	}

	for _, c := range planViewMoreCases {
		want, wantRaw := cliPlan(t, bin, tree, c)
		if want.Release.Found && len(want.Hops) != len(c.minors)-1 || !want.Release.Found && (len(want.Hops) != 0 || !want.Blocked) {
			t.Fatalf("%s: upgraph plan has %d hops (path found: %v, blocked: %v), want %d", c.name, len(want.Hops), want.Release.Found, want.Blocked, len(c.minors)-1)
		}
		q := url.Values{"plan": {""}, "arch": {"amd64"}, "channel": {c.channel}, "from": {c.from}, "to": {c.to}}
		if c.eus {
			q.Set("eus", "1")
		}
		if c.olm != "" {
			q.Set("olm", c.olm)
		}
		data, err := os.ReadFile(filepath.Join(planFixtures, c.operators))
		if err != nil {
			t.Fatal(err)
		}
		q.Set("ops", compactOps(t, string(data)))
		p.open(t, q)
		got, gotRaw := pagePlan(t, p)
		comparePlans(t, c.name, want, got, wantRaw, gotRaw)
		var search, olm string
		p.eval(t, `location.search`, &search)
		p.eval(t, `document.getElementById('plan-olm').value`, &olm)
		if wantOLM := cmp.Or(c.olm, "v0"); olm != wantOLM || (c.olm != "" && !strings.Contains(search, "olm="+c.olm)) {
			t.Errorf("%s: the runtime select is %q, the URL %q: want %s", c.name, olm, search, wantOLM)
		}
		if strings.HasPrefix(c.name, "gated") {
			// The blocked operator's row names the runtime's refusal.
			reason := map[string]string{"gated": "prohibited", "gated-v1": "refused-by-v1"}[c.name]
			var row string
			p.eval(t, fmt.Sprintf(`(document.querySelector('#plan-out tr[data-state=blocked][data-reason=%q]') || {}).textContent || ''`, reason), &row)
			if !want.Blocked || !strings.Contains(row, "cannot update") {
				t.Errorf("%s: the blocked row does not say %s: %q", c.name, reason, row)
			}
		}
		if !want.Release.Found {
			var shown bool
			p.eval(t, `!!document.getElementById('plan-nopath') && /BLOCKED/.test(document.getElementById('plan-verdict').textContent)`, &shown)
			if !shown || !got.Blocked || len(got.Hops) != 0 {
				t.Errorf("%s: the page does not show the missing path as blocking (blocked %v, %d hops)", c.name, got.Blocked, len(got.Hops))
			}
		}
		p.screenshot(t, "viewer-plan-"+c.name+".png")
	}
}

// compactOps is the URL form of an operators file: package[/channel]@version.
func compactOps(t *testing.T, yaml string) string {
	t.Helper()
	var parts []string
	for _, line := range strings.Split(yaml, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- {") {
			continue
		}
		kv := map[string]string{}
		for _, f := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "- {"), "}"), ",") {
			k, v, _ := strings.Cut(f, ":")
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		s := kv["package"]
		if kv["channel"] != "" {
			s += "/" + kv["channel"]
		}
		parts = append(parts, s+"@"+kv["version"])
	}
	if len(parts) == 0 {
		t.Fatal("no operator in the file")
	}
	return strings.Join(parts, ",")
}

// TestPlanViewCatalogSet: on a tree generated with --catalog-set (each
// catalog's priority recorded in its catalog.json), the page's default
// sets (every catalog named for the minor) and OLM v1 across them equal
// `upgraph plan --catalog-set testdata/plan/catalog-set-gated.yaml` (its
// golden gated-set-v1): at 4.22 ocp over the lower-priority mirror, with
// needs-op's update refused; at 5.0 ocp and tie of equal priority,
// prohibited-op's best bundle in both (a tie).
func TestPlanViewCatalogSet(t *testing.T) {
	if _, err := os.Stat(planFixtures); err != nil {
		t.Skipf("no plan fixtures: %v", err)
	}
	bin, _ := planTree(t)
	abs, err := filepath.Abs(filepath.Join(planFixtures, "catalogs"))
	if err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(t.TempDir(), "set.yaml")
	// The tree's catalogs named per minor (the page's set names drop the
	// minor: ocp-v4-22 is "ocp"), with the set file's priorities.
	body := fmt.Sprintf("catalogs:\n- {name: ocp-v4-22, source: 'dir:%[1]s/v4.22'}\n- {name: mirror-v4-22, priority: -10, source: 'dir:%[1]s/v4.22'}\n"+
		"- {name: ocp-v5-0, source: 'dir:%[1]s/v5.0'}\n- {name: tie-v5-0, source: 'dir:%[1]s/tie-v5.0'}\n", abs)
	if err := os.WriteFile(set, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(t.TempDir(), "tree")
	if out, err := exec.Command(bin, "generate", "--releases", "metadata:"+filepath.Join(planFixtures, "releases"),
		"--graph-data", filepath.Join(planFixtures, "graph-data"), "--out", tree, "--catalog-set", set).CombinedOutput(); err != nil {
		t.Fatalf("upgraph generate --catalog-set: %v\n%s", err, out)
	}
	args := []string{"plan", "--source", tree, "--channel", "candidate-5.0", "--from", "4.22.0", "--to", "5.0.1", "--olm", "v1",
		"--operators", "testdata/plan/operators-gated-set.yaml", "--catalog-set", "testdata/plan/catalog-set-gated.yaml", "--format", "json"}
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Join(planFixtures, "..", "..")
	wantRaw, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("upgraph %s: %v\n%s", strings.Join(args, " "), err, wantRaw)
	}
	var want cmpPlan
	if err := json.Unmarshal(wantRaw, &want); err != nil {
		t.Fatalf("upgraph plan: %v\n%s", err, wantRaw)
	}
	want.normalize()
	if len(want.Hops) != 1 || !want.Blocked {
		t.Fatalf("upgraph plan: %d hops, blocked %v; want 1, blocked", len(want.Hops), want.Blocked)
	}

	p := newPage(t, newBrowser(t), serveTree(t, tree))
	q := url.Values{"plan": {""}, "arch": {"amd64"}, "channel": {"candidate-5.0"}, "from": {"4.22.0"}, "to": {"5.0.1"}, "olm": {"v1"},
		"ops": {"needs-op@1.0.0@ocp,prohibited-op@1.0.0@ocp"}}
	p.open(t, q)
	got, gotRaw := pagePlan(t, p)
	comparePlans(t, "gated-set-v1", want, got, wantRaw, gotRaw)
	var sets string
	p.eval(t, `[...document.querySelectorAll('#plan-catalogs select[data-minor]')].map((s) => s.dataset.minor + ':' + [...s.selectedOptions].map((o) => o.value).sort().join('+')).join(',')`, &sets)
	if sets != "4.22:mirror-v4-22+ocp-v4-22,5.0:ocp-v5-0+tie-v5-0" {
		t.Errorf("the default catalog sets shown: %q", sets)
	}
	for _, c := range []struct{ pkg, reason, next string }{{"needs-op", "refused-by-v1", "stranded"}, {"prohibited-op", "", "stranded"}} {
		var row string
		p.eval(t, fmt.Sprintf(`(document.querySelector('#plan-out tr[data-package=%q][data-next=%q]') || {}).textContent || ''`, c.pkg, c.next), &row)
		if row == "" || c.pkg == "prohibited-op" && !strings.Contains(row, "same priority [ocp tie]") {
			t.Errorf("%s: the row does not show %s/%s: %q", c.pkg, c.reason, c.next, row)
		}
	}
	p.screenshot(t, "viewer-plan-gated-set-v1.png")

	// Without the operators' catalog, two catalogs of 4.22 have each
	// package: the page refuses as the CLI does.
	q.Set("ops", "needs-op@1.0.0,prohibited-op@1.0.0")
	p.open(t, q)
	var msg string
	p.eval(t, `(document.getElementById('plan-error') || {}).textContent || ''`, &msg)
	if !strings.Contains(msg, "catalogs ocp, mirror have the package: name the one its Subscription uses") && !strings.Contains(msg, "catalogs mirror, ocp have the package") {
		t.Errorf("without catalog: %q", msg)
	}
	// Dropping the mirror from 4.22 is recorded in the URL, and the
	// operators need no catalog then.
	before := p.renders(t)
	p.eval(t, `(() => { const s = document.querySelector('#plan-catalogs select[data-minor="4.22"]'); for (const o of s.options) o.selected = o.value === 'ocp-v4-22'; s.dispatchEvent(new Event('change', {bubbles: true})); return true; })()`, nil)
	p.waitRender(t, before)
	var search string
	p.eval(t, `location.search`, &search)
	if !strings.Contains(search, "cats=4.22%3Aocp-v4-22%2C5.0%3Aocp-v5-0%2Btie-v5-0") {
		t.Errorf("the sets are not in the URL: %q", search)
	}
	got, _ = pagePlan(t, p)
	if len(got.Hops) != 1 || len(got.Hops[0].Operators) != 2 {
		t.Errorf("with 4.22 = ocp alone: %+v", got.Hops)
	}
}
