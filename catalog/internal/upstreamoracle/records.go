// Package upstreamoracle holds the answers upstream's own resolvers gave on
// fixed inputs — operator-controller's (*CatalogResolver).Resolve with
// NoDependencyValidation (OLM v1) and operator-lifecycle-manager's
// (*Resolver).Resolve (OLM v0) — recorded under
// catalog/testdata/oracle-upstream (README there: commits, functions,
// inputs, harness). Neither module can be built in CI (the Go module proxy
// refuses both), so the answers are data: this package generates the
// queries (and the split catalog set they run on), loads the recorded
// answers and checks that they are complete, for the tests that compare
// upgraph's model with them.
package upstreamoracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A catalog set as a cluster sees it: named catalogs with priorities.
type (
	// CatalogSet is one set of catalogs queries run over.
	CatalogSet struct {
		Name string `json:"name"`
		// GlobalNamespace is the namespace OLM v0's CatalogSources of
		// this set live in (the catalog operator's global catalog
		// namespace); OLM v1's ClusterCatalogs have none.
		GlobalNamespace string       `json:"globalNamespace"`
		Catalogs        []CatalogRef `json:"catalogs"`
	}
	// CatalogRef is one ClusterCatalog / CatalogSource of a set.
	CatalogRef struct {
		Name     string `json:"name"`
		Priority int32  `json:"priority"`
		// Source says where its FBC is: "shared" (the shared real
		// catalog), "shared/<package>" (that package's directory of
		// it), "split/<catalog>" (SplitShared's catalog of that
		// name) or "fixtures/<dir>" (under the recorded data's
		// directory).
		Source string `json:"source"`
		// Labels are extra ClusterCatalog labels (besides
		// olm.operatorframework.io/metadata.name = Name).
		Labels map[string]string `json:"labels,omitempty"`
		// Unavailable is spec.availabilityMode: Unavailable.
		Unavailable bool `json:"unavailable,omitempty"`
		// NotServing: the catalog's Serving condition is False.
		NotServing bool `json:"notServing,omitempty"`
	}
)

// OLM v1 (operator-controller) queries and answers.
type (
	// V1Query is a ClusterExtension over a catalog set.
	V1Query struct {
		ID  string `json:"id"`
		Set string `json:"set"`
		// Cites names the upstream test a fixture query reproduces.
		Cites   string `json:"cites,omitempty"`
		Package string `json:"package"`
		// Installed is the installed bundle: by name (its metadata is
		// what the controller records for that catalog bundle) or,
		// for fixtures copying upstream tests, as explicit metadata.
		Installed               *V1Installed `json:"installed,omitempty"`
		Channels                []string     `json:"channels,omitempty"`
		VersionRange            string       `json:"versionRange,omitempty"`
		UpgradeConstraintPolicy string       `json:"upgradeConstraintPolicy"`
		// Selector is spec.source.catalog.selector (a
		// metav1.LabelSelector as JSON), nil for none.
		Selector json.RawMessage `json:"selector,omitempty"`
	}
	// V1Installed names the installed bundle.
	V1Installed struct {
		Bundle  string  `json:"bundle,omitempty"`
		Name    string  `json:"name,omitempty"`
		Version string  `json:"version,omitempty"`
		Release *string `json:"release,omitempty"`
	}
	// V1Answer is what Resolve returned: a bundle (and the catalog it
	// came from) or the error text.
	V1Answer struct {
		// Installed is the ocv1.BundleMetadata passed to Resolve.
		Installed *BundleMetadata `json:"installed,omitempty"`
		Bundle    string          `json:"bundle,omitempty"`
		Version   string          `json:"version,omitempty"`
		Release   string          `json:"release,omitempty"`
		Catalog   string          `json:"catalog,omitempty"`
		Error     string          `json:"error,omitempty"`
	}
	// BundleMetadata is ocv1.BundleMetadata.
	BundleMetadata struct {
		Name    string  `json:"name"`
		Version string  `json:"version"`
		Release *string `json:"release,omitempty"`
	}
	// V1Record is one query with its recorded answer (a line of v1.jsonl).
	V1Record struct {
		V1Query
		Answer V1Answer `json:"answer"`
	}
)

// OLM v0 (operator-lifecycle-manager) queries and answers.
type (
	// V0Query is one namespace's Subscriptions (each with its installed
	// CSV, if any) over a catalog set.
	V0Query struct {
		ID            string           `json:"id"`
		Set           string           `json:"set"`
		Cites         string           `json:"cites,omitempty"`
		Subscriptions []V0Subscription `json:"subscriptions"`
	}
	// V0Subscription is a Subscription's spec and installed CSV.
	V0Subscription struct {
		Package string `json:"package"`
		Channel string `json:"channel,omitempty"`
		// Source is spec.source, a catalog of the set.
		Source      string `json:"source"`
		StartingCSV string `json:"startingCSV,omitempty"`
		// Installed is status.installedCSV ("" for a new install): a
		// bundle of Source in Channel.
		Installed string `json:"installed,omitempty"`
		// InstalledDeprecated: the installed CSV's properties annotation
		// keeps the bundle's legacy olm.deprecated property (it was
		// installed while it had it, which OLM v0 itself never does).
		// False: the annotation lacks it (the bundle was marked after
		// it was installed, the way a cluster gets there).
		InstalledDeprecated bool `json:"installedDeprecated,omitempty"`
	}
	// V0Answer is what Resolve returned: the operators to install (the
	// next bundle of each Subscription that moves, and the dependency
	// providers), or the error text. Empty Operators and no Error: every
	// installed CSV stays.
	V0Answer struct {
		Operators []V0Operator `json:"operators"`
		Error     string       `json:"error,omitempty"`
		// Runs is how many times the query ran; Unstable says the runs
		// disagreed: the first run's answer is Operators/Error, the
		// other distinct answers are Alternatives (in the order first
		// seen). OLM v0's solver gets its input in Go map order, so a
		// query whose constraints leave it a choice may be answered
		// differently from one run to the next; any of them is
		// upstream's answer.
		Runs         int             `json:"runs"`
		Unstable     bool            `json:"unstable,omitempty"`
		Alternatives []V0Alternative `json:"alternatives,omitempty"`
	}
	// V0Alternative is another answer of an unstable query's runs.
	V0Alternative struct {
		Operators []V0Operator `json:"operators"`
		Error     string       `json:"error,omitempty"`
	}
	// V0Operator is one cache.Entry of Resolve's result.
	V0Operator struct {
		Name             string `json:"name"`
		Package          string `json:"package"`
		Channel          string `json:"channel"`
		Catalog          string `json:"catalog"`
		CatalogNamespace string `json:"catalogNamespace"`
		Replaces         string `json:"replaces,omitempty"`
		Version          string `json:"version,omitempty"`
	}
	// V0Record is one query with its recorded answer (a line of v0.jsonl).
	V0Record struct {
		V0Query
		Answer V0Answer `json:"answer"`
	}
)

// ReadJSONL decodes a file of one JSON value per line into T, strictly
// (unknown fields are errors, naming the file and line).
func ReadJSONL[T any](path string) ([]T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []T
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var v T
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ReadSets decodes sets.json.
func ReadSets(path string) ([]CatalogSet, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var sets []CatalogSet
	if err := dec.Decode(&sets); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sets, nil
}

// Files of the recorded data directory.
const (
	SetsFile = "sets.json"
	V1File   = "v1.jsonl"
	V0File   = "v0.jsonl"
)

// Dirs says where a CatalogRef's Source lives: Data is the recorded data
// directory (catalog/testdata/oracle-upstream), Shared the shared
// catalog's FBC root, Split the directory WriteSplit wrote SplitShared's
// catalogs to.
type Dirs struct {
	Data, Shared, Split string
}

// Dir is the FBC directory of ref.
func (d Dirs) Dir(ref CatalogRef) (string, error) {
	switch src := ref.Source; {
	case src == "shared":
		return d.Shared, nil
	case strings.HasPrefix(src, "shared/"):
		// one package directory of the shared catalog
		return filepath.Join(d.Shared, filepath.FromSlash(strings.TrimPrefix(src, "shared/"))), nil
	case strings.HasPrefix(src, "split/"):
		if d.Split == "" {
			return "", fmt.Errorf("catalog %s: source %s needs the split catalogs (WriteSplit)", ref.Name, src)
		}
		return filepath.Join(d.Split, strings.TrimPrefix(src, "split/")), nil
	case strings.HasPrefix(src, "fixtures/"):
		return filepath.Join(d.Data, filepath.FromSlash(src)), nil
	default:
		return "", fmt.Errorf("catalog %s: unknown source %q", ref.Name, src)
	}
}

// Recorded is the whole recorded data: the catalog sets and the OLM v1
// and v0 records.
type Recorded struct {
	Sets []CatalogSet
	V1   []V1Record
	V0   []V0Record
}

// Set returns the set named name.
func (r *Recorded) Set(name string) (CatalogSet, bool) {
	for _, s := range r.Sets {
		if s.Name == name {
			return s, true
		}
	}
	return CatalogSet{}, false
}

// Load reads the recorded data directory.
func Load(dataDir string) (*Recorded, error) {
	sets, err := ReadSets(filepath.Join(dataDir, SetsFile))
	if err != nil {
		return nil, err
	}
	v1, err := ReadJSONL[V1Record](filepath.Join(dataDir, V1File))
	if err != nil {
		return nil, err
	}
	v0, err := ReadJSONL[V0Record](filepath.Join(dataDir, V0File))
	if err != nil {
		return nil, err
	}
	return &Recorded{Sets: sets, V1: v1, V0: v0}, nil
}
