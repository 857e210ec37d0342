package model

// OLM v0 dependencies (issue 25; spec olm-resolution.md §2).
//
// API (stable; tools/plan, tools/mirrorset, the viewer and diff build
// on it):
//
//   - (*Bundle).V0Dependencies() ([]Dependency, error): the dependencies
//     a bundle declares, in property order, as OLM v0's resolver reads
//     them (olm.gvk.required, olm.package.required, olm.label.required,
//     olm.constraint with gvk, package, all, any, not, cel); an error
//     names the bundle and the property OLM v0 refuses.
//   - (Dependency).Matches(*Bundle) bool: whether a bundle satisfies it.
//   - V0CatalogMember{Name, Priority, Catalog}, NewV0Set(members) *V0Set:
//     the CatalogSources a namespace sees (olmv0set.go).
//   - (*V0Set).Resolve([]V0Subscription) V0Resolution: one resolution of
//     a namespace's Subscriptions (OLM v0's Resolve): what each
//     Subscription moves to, the dependency providers installed, each
//     dependency's pick or why none (olmv0set.go).
//   - (*V0Set).ResolvePath(V0SetQuery) V0SetResult: ResolveV0 over the set
//     with dependencies: one resolution at a time until nothing moves;
//     every hop with its dependencies and what was passed over.
//
// Upstream: operator-lifecycle-manager 992bb097749e5994eedc5e4882583df952d8a70e,
// pkg/controller/registry/resolver/resolver.go (predicateConverter,
// legacyPredicateParsers, newPackageRequiredPredicate), cache/predicates.go
// (the predicates and their String texts), and operator-framework/api
// v0.45.0 pkg/constraints (Parse, the CEL environment with semver_compare).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Dependency property types OLM v0 resolves (legacyPredicateParsers and
// constraints.OLMConstraintType). Unknown property types are ignored, as
// upstream does.
const (
	propLabelRequired = "olm.label.required"
	propLabel         = "olm.label"
)

// Dependency is one dependency a bundle declares, as OLM v0's resolver
// turns it into a predicate on bundles.
type Dependency struct {
	// Property is the index of the property in the bundle's properties.
	Property int `json:"property"`
	// Type is the property's type (olm.gvk.required, olm.package.required,
	// olm.label.required, olm.constraint).
	Type string `json:"type"`
	// Text is the predicate as OLM v0 writes it in its messages
	// ("bundle X requires an operator <Text>").
	Text string `json:"text"`
	// FailureMessage is an olm.constraint's failureMessage.
	FailureMessage string `json:"failureMessage,omitempty"`

	pred depPredicate
	// key identifies the predicate: the property's type and value.
	key string
}

// Matches says whether b satisfies the dependency.
func (d Dependency) Matches(b *Bundle) bool { return d.pred != nil && d.pred.test(b) }

// depPredicate is cache.Predicate: a test on a bundle and OLM's text.
type depPredicate interface {
	test(*Bundle) bool
	String() string
}

// v0DepsCache holds a bundle's parsed dependencies and the properties
// the predicates and invariants read (each computed once).
type v0DepsCache struct {
	once sync.Once
	deps []Dependency
	err  error

	factsOnce sync.Once
	facts     bundleFacts
}

// bundleFacts are the properties OLM v0's predicates and invariants read:
// olm.package values (with the version parsed strictly), olm.gvk and
// olm.label values; a value that is not valid JSON for its type is left
// out, as the predicates skip it.
type bundleFacts struct {
	packages []factPackage
	gvks     []gvkPred
	labels   []string
}

type factPackage struct {
	name      string
	version   semver.Version
	versionOK bool
}

// v0Facts returns the bundle's facts, parsed once.
func (b *Bundle) v0Facts() *bundleFacts {
	b.v0deps.factsOnce.Do(func() {
		f := &b.v0deps.facts
		for _, p := range b.Properties {
			switch p.Type {
			case propPackage:
				var v PackageProperty
				if json.Unmarshal(p.Value, &v) == nil {
					fp := factPackage{name: v.PackageName}
					if ver, err := semver.Parse(v.Version); err == nil {
						fp.version, fp.versionOK = ver, true
					}
					f.packages = append(f.packages, fp)
				}
			case propGVK:
				var v struct{ Group, Version, Kind string }
				if json.Unmarshal(p.Value, &v) == nil {
					f.gvks = append(f.gvks, gvkPred{v.Group, v.Version, v.Kind})
				}
			case propLabel:
				var v struct {
					Label string `json:"label"`
				}
				if json.Unmarshal(p.Value, &v) == nil {
					f.labels = append(f.labels, v.Label)
				}
			}
		}
	})
	return &b.v0deps.facts
}

// V0Dependencies returns the dependencies the bundle declares, in
// property order (predicateConverter.convertDependencyProperties), or
// the error OLM v0 fails its resolution with, naming bundle and property.
// Computed once per bundle.
func (b *Bundle) V0Dependencies() ([]Dependency, error) {
	b.v0deps.once.Do(func() { b.v0deps.deps, b.v0deps.err = parseV0Dependencies(b.Name, b.Properties) })
	return b.v0deps.deps, b.v0deps.err
}

// parseV0Dependencies is convertDependencyProperties.
func parseV0Dependencies(bundle string, props []declcfg.Property) ([]Dependency, error) {
	var out []Dependency
	for i, p := range props {
		var (
			pred depPredicate
			msg  string
			err  error
		)
		switch p.Type {
		case propConstraint:
			pred, msg, err = constraintPredicate(p.Value)
		case propGVKRequired:
			var v struct{ Group, Version, Kind string }
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred = gvkPred{v.Group, v.Version, v.Kind}
			}
		case propPackageRequired:
			var v struct {
				PackageName  string `json:"packageName"`
				VersionRange string `json:"versionRange"`
			}
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred, err = packageRequiredPred(v.PackageName, v.VersionRange)
			}
		case propLabelRequired:
			var v struct {
				Label string `json:"label"`
			}
			if err = json.Unmarshal(p.Value, &v); err == nil {
				pred = labelPred(v.Label)
			}
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("bundle %s: property[%d] of type %q: OLM v0 cannot resolve it: %w", bundle, i, p.Type, err)
		}
		out = append(out, Dependency{Property: i, Type: p.Type, Text: pred.String(), FailureMessage: msg, pred: pred, key: p.Type + "\x00" + string(p.Value)})
	}
	return out, nil
}

// maxConstraintSize is constraints.maxConstraintSize.
const maxConstraintSize = 2 << 16

// v0Constraint is constraints.Constraint (operator-framework/api
// pkg/constraints/constraint.go).
type v0Constraint struct {
	FailureMessage string                 `json:"failureMessage,omitempty"`
	Cel            *struct{ Rule string } `json:"cel,omitempty"`
	Package        *struct {
		PackageName  string `json:"packageName"`
		VersionRange string `json:"versionRange"`
	} `json:"package,omitempty"`
	GVK *struct {
		Group   string `json:"group"`
		Kind    string `json:"kind"`
		Version string `json:"version"`
	} `json:"gvk,omitempty"`
	All *v0Compound `json:"all,omitempty"`
	Any *v0Compound `json:"any,omitempty"`
	Not *v0Compound `json:"not,omitempty"`
}

type v0Compound struct {
	Constraints []v0Constraint `json:"constraints"`
}

// constraintPredicate is predicateForConstraintProperty: constraints.Parse
// (at most 2<<16 bytes, unknown fields refused) then convertConstraints.
func constraintPredicate(value json.RawMessage) (depPredicate, string, error) {
	if len(value) > maxConstraintSize {
		return nil, "", fmt.Errorf("parse olm.constraint: olm.constraint value is greater than max constraint size %d bytes", maxConstraintSize)
	}
	dec := json.NewDecoder(bytes.NewReader(value))
	dec.DisallowUnknownFields()
	var c v0Constraint
	if err := dec.Decode(&c); err != nil {
		return nil, "", fmt.Errorf("parse olm.constraint: %v", err)
	}
	preds, err := convertConstraints(c)
	if err != nil {
		return nil, "", fmt.Errorf("convert olm.constraint to resolver predicate: %v", err)
	}
	return preds[0], c.FailureMessage, nil
}

// convertConstraints is predicateConverter.convertConstraints: the first
// form set wins, in the order gvk, package, all, any, not, cel.
func convertConstraints(cs ...v0Constraint) ([]depPredicate, error) {
	preds := make([]depPredicate, len(cs))
	for i, c := range cs {
		var err error
		switch {
		case c.GVK != nil:
			preds[i] = gvkPred{c.GVK.Group, c.GVK.Version, c.GVK.Kind}
		case c.Package != nil:
			preds[i], err = packageRequiredPred(c.Package.PackageName, c.Package.VersionRange)
		case c.All != nil:
			var subs []depPredicate
			subs, err = convertConstraints(c.All.Constraints...)
			preds[i] = andPred(subs)
		case c.Any != nil:
			var subs []depPredicate
			subs, err = convertConstraints(c.Any.Constraints...)
			preds[i] = orPred(subs)
		case c.Not != nil:
			var subs []depPredicate
			subs, err = convertConstraints(c.Not.Constraints...)
			preds[i] = notPred(subs)
		case c.Cel != nil:
			preds[i], err = newCelPred(c.Cel.Rule, c.FailureMessage)
		default:
			return nil, errors.New("constraint is empty")
		}
		if err != nil {
			return nil, err
		}
	}
	return preds, nil
}

// packageRequiredPred is newPackageRequiredPredicate: the package and a
// blang range (ParseRange; an invalid range is an error).
func packageRequiredPred(name, verRange string) (depPredicate, error) {
	r, err := semver.ParseRange(verRange)
	if err != nil {
		return nil, err
	}
	return andPred{pkgPred(name), versionRangePred{r, verRange}}, nil
}

// The predicates of cache/predicates.go, on a bundle's properties.

type gvkPred struct{ group, version, kind string }

func (g gvkPred) test(b *Bundle) bool { return slices.Contains(b.v0Facts().gvks, g) }

func (g gvkPred) String() string {
	return fmt.Sprintf("providing an API with group: %s, version: %s, kind: %s", g.group, g.version, g.kind)
}

type pkgPred string

// test: an olm.package property naming the package, or the bundle's own
// package (cache.Entry.Package()).
func (pkg pkgPred) test(b *Bundle) bool {
	for _, pp := range b.v0Facts().packages {
		if pp.name == string(pkg) {
			return true
		}
	}
	return b.Package != nil && b.Package.Name == string(pkg)
}

func (pkg pkgPred) String() string { return "with package: " + string(pkg) }

type versionRangePred struct {
	r   semver.Range
	str string
}

// test: an olm.package property's version (semver.Parse) in range, or the
// entry's version.
func (v versionRangePred) test(b *Bundle) bool {
	for _, pp := range b.v0Facts().packages {
		if pp.versionOK && v.r(pp.version) {
			return true
		}
	}
	return b.VersionOK && v.r(b.Version)
}

func (v versionRangePred) String() string { return "with version in range: " + v.str }

type labelPred string

func (l labelPred) test(b *Bundle) bool { return slices.Contains(b.v0Facts().labels, string(l)) }

func (l labelPred) String() string { return "with label: " + string(l) }

type andPred []depPredicate

func (p andPred) test(b *Bundle) bool {
	for _, q := range p {
		if !q.test(b) {
			return false
		}
	}
	return true
}

func (p andPred) String() string { return joinPreds(p, " and ") }

type orPred []depPredicate

func (p orPred) test(b *Bundle) bool {
	for _, q := range p {
		if q.test(b) {
			return true
		}
	}
	return false
}

func (p orPred) String() string { return joinPreds(p, " or ") }

type notPred []depPredicate

func (p notPred) test(b *Bundle) bool { return !orPred(p).test(b) }

func (p notPred) String() string { return joinPreds(p, " and not ") }

func joinPreds(ps []depPredicate, sep string) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, sep)
}

// celPred is cache.celPredicate: the rule evaluated on the bundle's
// properties as a list of {type, value} maps (a value that is not JSON
// leaves its slot null); an evaluation error is false.
type celPred struct {
	prog    cel.Program
	rule    string
	message string
}

func (c *celPred) test(b *Bundle) bool {
	props := make([]any, len(b.Properties))
	for i, p := range b.Properties {
		var v any
		if err := json.Unmarshal(p.Value, &v); err != nil {
			continue
		}
		props[i] = map[string]any{"type": p.Type, "value": v}
	}
	out, _, err := c.prog.Eval(map[string]any{"properties": props})
	if err != nil {
		return false
	}
	ok, isBool := out.Value().(bool)
	return isBool && ok
}

func (c *celPred) String() string {
	return fmt.Sprintf("with constraint: %q and message: %q", c.rule, c.message)
}

// celEnv is constraints.NewCelEnvironment: a variable properties (a list
// of string-keyed maps) and semver_compare. Built once; read-only.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("properties", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Function("semver_compare",
			cel.Overload("semver_compare", []*cel.Type{cel.DynType, cel.DynType}, cel.IntType,
				cel.BinaryBinding(semverCompare))),
	)
})

// semverCompare is the semver_compare function: both sides read with
// ParseTolerant from their text, blang's Compare.
func semverCompare(a, b ref.Val) ref.Val {
	v1, err := semver.ParseTolerant(fmt.Sprint(a.Value()))
	if err != nil {
		return types.NewErr("unable to parse '%v' to semver format", a.Value())
	}
	v2, err := semver.ParseTolerant(fmt.Sprint(b.Value()))
	if err != nil {
		return types.NewErr("unable to parse '%v' to semver format", b.Value())
	}
	return types.Int(v1.Compare(v2))
}

// newCelPred is CelEnvironment.Validate: the rule compiles and is Bool.
func newCelPred(rule, message string) (depPredicate, error) {
	env, err := celEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(rule)
	if err := iss.Err(); err != nil {
		return nil, err
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, errors.New("cel expressions must have type Bool")
	}
	prog, err := env.Program(ast)
	if err != nil {
		return nil, err
	}
	return &celPred{prog: prog, rule: rule, message: message}, nil
}
