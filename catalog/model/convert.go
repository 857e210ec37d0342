package model

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blang/semver/v4"

	"github.com/upgraph/upgraph/catalog/declcfg"
)

// Convert builds the model of cfg and validates it as operator-registry's
// declcfg.ConvertToModel and Model.Validate do (opm validate), reporting
// every problem rather than the first, plus the warnings of Rules. The
// catalog is opm-valid exactly when no problem is an Error. cfg is not
// modified; the model keeps its slices (properties, related images).
func Convert(cfg *declcfg.DeclarativeConfig) *Catalog {
	b := &builder{cat: &Catalog{byName: map[string]*Package{}}}
	b.packages(cfg.Packages)
	b.channels(cfg.Channels)
	b.bundles(cfg.Bundles)
	b.deprecations(cfg.Deprecations)
	pkgs := b.cat.Packages
	perPkg := make([]Problems, len(pkgs))
	parallel(len(pkgs), func(i int) { perPkg[i] = checkPackage(pkgs[i]) })
	all := b.problems
	for _, ps := range perPkg {
		all = append(all, ps...)
	}
	b.cat.Problems = sortProblems(all)
	for _, p := range b.cat.Problems {
		if pkg := b.cat.byName[p.Package]; pkg != nil {
			pkg.problems = append(pkg.problems, p)
		}
	}
	return b.cat
}

type builder struct {
	cat      *Catalog
	problems Problems
}

func (b *builder) add(pos declcfg.Position, sev Severity, rule, pkg, ch, bundle, format string, args ...any) {
	b.problems = append(b.problems, newProblem(pos, sev, rule, pkg, ch, bundle, format, args...))
}

func newProblem(pos declcfg.Position, sev Severity, rule, pkg, ch, bundle, format string, args ...any) Problem {
	return Problem{File: pos.File, Line: pos.Line, Severity: sev, Rule: rule, Message: fmt.Sprintf(format, args...),
		Package: pkg, Channel: ch, Bundle: bundle}
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// isDNS1123Label is k8s.io/apimachinery's validation.IsDNS1123Label.
func isDNS1123Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1123Label.MatchString(v) {
		if dns1123Subdomain.MatchString(v) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
		}
	}
	return errs
}

func (b *builder) packages(in []declcfg.Package) {
	for i := range in {
		p := &in[i]
		if p.Name == "" {
			b.add(p.Pos, Error, RulePackageName, "", "", "", "config contains package with no name")
			continue
		}
		if _, dup := b.cat.byName[p.Name]; dup {
			b.add(p.Pos, Error, RuleDuplicatePackage, p.Name, "", "", "duplicate package %q", p.Name)
			continue
		}
		if errs := isDNS1123Label(p.Name); len(errs) > 0 {
			b.add(p.Pos, Error, RulePackageName, p.Name, "", "", "invalid package name %q: %v", p.Name, errs)
		}
		pkg := &Package{
			Name:               p.Name,
			DefaultChannelName: p.DefaultChannel,
			Description:        p.Description,
			Icon:               p.Icon,
			Properties:         p.Properties,
			Pos:                p.Pos,
			channelByName:      map[string]*Channel{},
			bundleByName:       map[string]*Bundle{},
		}
		b.cat.byName[p.Name] = pkg
		b.cat.Packages = append(b.cat.Packages, pkg)
	}
	slices.SortFunc(b.cat.Packages, func(x, y *Package) int { return cmp.Compare(x.Name, y.Name) })
}

func (b *builder) channels(in []declcfg.Channel) {
	for i := range in {
		c := &in[i]
		pkg := b.cat.byName[c.Package]
		if pkg == nil {
			b.add(c.Pos, Error, RuleChannel, c.Package, c.Name, "", "unknown package %q for channel %q", c.Package, c.Name)
			continue
		}
		if c.Name == "" {
			b.add(c.Pos, Error, RuleChannel, c.Package, "", "", "package %q contains channel with no name", c.Package)
			continue
		}
		if pkg.channelByName[c.Name] != nil {
			b.add(c.Pos, Error, RuleChannel, c.Package, c.Name, "", "package %q has duplicate channel %q", c.Package, c.Name)
			continue
		}
		ch := &Channel{Package: pkg, Name: c.Name, Properties: c.Properties, Pos: c.Pos,
			Entries: make([]*Entry, 0, len(c.Entries)), entryByName: make(map[string]*Entry, len(c.Entries))}
		for j := range c.Entries {
			e := &c.Entries[j]
			if ch.entryByName[e.Name] != nil {
				b.add(c.Pos, Error, RuleChannelEntries, c.Package, c.Name, e.Name,
					"invalid package %q, channel %q: duplicate entry %q", c.Package, c.Name, e.Name)
				continue
			}
			ent := &Entry{Channel: ch, Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange}
			if e.SkipRange != "" {
				ent.Range, ent.RangeErr = semver.ParseRange(e.SkipRange)
				if _, err := parseRangeSet(e.SkipRange); ent.RangeErr == nil && errors.Is(err, errRangeEmptyBranch) {
					// blang's Range would panic (a nil branch): refused
					// as an invalid skipRange, which draws nothing.
					ent.Range, ent.RangeErr = nil, err
				}
			}
			ch.Entries = append(ch.Entries, ent)
			ch.entryByName[e.Name] = ent
		}
		pkg.channelByName[c.Name] = ch
		pkg.Channels = append(pkg.Channels, ch)
	}
	for _, pkg := range b.cat.Packages {
		slices.SortFunc(pkg.Channels, func(x, y *Channel) int { return cmp.Compare(x.Name, y.Name) })
		pkg.DefaultChannel = pkg.channelByName[pkg.DefaultChannelName]
	}
}

// parsedBundle is the per-bundle work done in parallel: properties,
// version, release, pull specs.
type parsedBundle struct {
	props       propInfo
	propErr     error
	version     semver.Version
	versionErr  error
	tolerant    *semver.Version
	release     Release
	releaseErr  error
	imageErrs   []string
	maxOCP      string
	maxOCPErr   error
	releaseRaw  string
	versionRaw  string
	packageName string
}

func parseBundle(in *declcfg.Bundle, sc *scanner, images map[string]error) parsedBundle {
	var pb parsedBundle
	pb.props, pb.propErr = parseProperties(in.Properties, sc)
	if len(pb.props.packages) > 0 {
		pp := pb.props.packages[0]
		pb.versionRaw, pb.releaseRaw, pb.packageName = pp.Version, pp.Release, pp.PackageName
		pb.version, pb.versionErr = semver.Parse(pp.Version)
		if pb.versionErr != nil {
			if v, err := semver.ParseTolerant(pp.Version); err == nil {
				pb.tolerant = &v
			}
		}
		pb.release, pb.releaseErr = NewRelease(pp.Release)
	}
	pb.maxOCP, pb.maxOCPErr = maxOpenShiftVersion(pb.props.maxOpenShift)
	// related is the index of the related image checked, -1 for the
	// bundle's image (the field named only when refused).
	check := func(ref string, related int) {
		if ref == "" {
			return
		}
		err, seen := images[ref]
		if !seen {
			err = parseNormalizedNamed(ref)
			images[ref] = err
		}
		if err != nil {
			what := "image"
			if related >= 0 {
				what = fmt.Sprintf("relatedImages[%d].image", related)
			}
			pb.imageErrs = append(pb.imageErrs, fmt.Sprintf("package %q bundle %q %s: invalid image pull spec %q: %v", in.Package, in.Name, what, ref, err))
		}
	}
	check(in.Image, -1)
	for i, ri := range in.RelatedImages {
		check(ri.Image, i)
	}
	return pb
}

func (b *builder) bundles(in []declcfg.Bundle) {
	parsed := make([]parsedBundle, len(in))
	workers := runtime.GOMAXPROCS(0)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			sc := &scanner{}
			images := map[string]error{}
			for i := int(next.Add(1) - 1); i < len(in); i = int(next.Add(1) - 1) {
				parsed[i] = parseBundle(&in[i], sc, images)
			}
		})
	}
	wg.Wait()

	for i := range in {
		src, pb := &in[i], &parsed[i]
		if src.Package == "" {
			b.add(src.Pos, Error, RuleBundlePackage, "", "", src.Name, "package name must be set for bundle %q", src.Name)
			continue
		}
		pkg := b.cat.byName[src.Package]
		if pkg == nil {
			b.add(src.Pos, Error, RuleBundlePackage, src.Package, "", src.Name, "unknown package %q for bundle %q", src.Package, src.Name)
			continue
		}
		if pkg.bundleByName[src.Name] != nil {
			b.add(src.Pos, Error, RuleBundlePackage, src.Package, "", src.Name, "package %q has duplicate bundle %q", src.Package, src.Name)
			continue
		}
		bun := &Bundle{Package: pkg, Name: src.Name, Image: src.Image, Properties: src.Properties,
			RelatedImages: src.RelatedImages, HasObjects: pb.props.objects > 0, Pos: src.Pos}
		pkg.bundleByName[src.Name] = bun
		pkg.Bundles = append(pkg.Bundles, bun)
		if len(pb.props.packages) > 0 {
			bun.legacyVR, bun.legacyErr = parseLegacyVersionRelease(pb.versionRaw)
			bun.legacyReady = true
		}
		at := func(sev Severity, rule, format string, args ...any) {
			b.add(src.Pos, sev, rule, src.Package, "", src.Name, format, args...)
		}
		if src.Name == "" {
			at(Error, RuleBundleName, "bundle of package %q: name must be set", src.Package)
		}
		if pb.propErr != nil {
			at(Error, RuleProperties, "parse properties for bundle %q: %v", src.Name, pb.propErr)
		} else if n := len(pb.props.packages); n != 1 {
			at(Error, RulePackageProperty, "package %q bundle %q must have exactly 1 %q property, found %d", src.Package, src.Name, propPackage, n)
		}
		if len(pb.props.packages) > 0 {
			bun.PackageProperty = pb.props.packages[0]
			if pb.packageName != src.Package {
				at(Error, RulePackageProperty, "package %q does not match %q property %q", src.Package, propPackage, pb.packageName)
			}
			if pb.versionErr != nil {
				at(Error, RuleVersion, "error parsing bundle %q version %q: %v", src.Name, pb.versionRaw, pb.versionErr)
				if pb.tolerant != nil {
					at(Warning, RuleVersionTolerant, "bundle %q version %q is not semver: OLM v0 reads it as %s (semver.ParseTolerant), opm and OLM v1 reject it",
						src.Name, pb.versionRaw, pb.tolerant)
				}
			} else {
				bun.Version, bun.VersionOK = pb.version, true
			}
			if pb.releaseErr != nil {
				at(Error, RuleRelease, "error parsing bundle %q release version %q: %v", src.Name, pb.releaseRaw, pb.releaseErr)
			} else {
				bun.Release = pb.release
			}
		}
		for _, msg := range pb.imageErrs {
			at(Error, RuleImage, "%s", msg)
		}
		if pb.maxOCPErr != nil {
			at(Warning, RuleMaxOpenShift, "bundle %q: invalid %s property: %v; OLM reports the operator as blocking cluster minor updates", src.Name, propMaxOpenShift, pb.maxOCPErr)
		} else {
			bun.MaxOpenShiftVersion = pb.maxOCP
			if v := pb.props.maxOpenShift; len(v) == 1 && len(v[0]) > 0 && v[0][0] != '"' {
				// A number: the catalog's text is gone (YAML 4.20 is the
				// number 4.2), and OLM reads what is left.
				at(Warning, RuleMaxOpenShiftNum, "bundle %q: %s is the number %s, not a string: OLM reads %s, and a YAML or JSON number loses trailing zeros (4.20 is 4.2); quote the value, e.g. \"4.20\"",
					src.Name, propMaxOpenShift, v[0], pb.maxOCP)
			}
		}
		if pb.props.legacyDeprecated {
			bun.Prohibited = true
			at(Warning, RuleLegacyDeprecated, "bundle %q has the legacy %s property: OLM v0 never installs it (not even by startingCSV); OLM v1 ignores the property",
				src.Name, propLegacyDeprecate)
		}
	}

	// Link entries and bundles.
	for _, pkg := range b.cat.Packages {
		for _, ch := range pkg.Channels {
			var missing []string
			for _, e := range ch.Entries {
				if bun := pkg.bundleByName[e.Name]; bun != nil {
					e.Bundle = bun
					bun.Entries = append(bun.Entries, e)
				} else {
					missing = append(missing, e.Name)
				}
			}
			if len(missing) > 0 {
				sort.Strings(missing)
				b.add(ch.Pos, Error, RuleEntryBundle, pkg.Name, ch.Name, "",
					"no olm.bundle blobs found in package %q for olm.channel entries %v (channel %q)", pkg.Name, missing, ch.Name)
			}
		}
		for _, bun := range pkg.Bundles {
			if len(bun.Entries) == 0 {
				b.add(bun.Pos, Error, RuleBundleChannel, pkg.Name, "", bun.Name,
					"package %q, bundle %q not found in any channel entries", pkg.Name, bun.Name)
			}
		}
	}
}

func (b *builder) deprecations(in []declcfg.Deprecation) {
	seen := map[string]bool{}
	for i := range in {
		d := &in[i]
		if d.Package == "" {
			b.add(d.Pos, Error, RuleDeprecation, "", "", "", "package name must be set for deprecation item %v", i)
			continue
		}
		pkg := b.cat.byName[d.Package]
		if pkg == nil {
			b.add(d.Pos, Error, RuleDeprecation, d.Package, "", "", "cannot apply deprecations to an unknown package %q", d.Package)
			continue
		}
		if seen[d.Package] {
			b.add(d.Pos, Error, RuleDeprecation, d.Package, "", "", "expected a maximum of one deprecation per package: %q", d.Package)
			continue
		}
		seen[d.Package] = true
		pkg.DeprecationPos = d.Pos
		refs := map[declcfg.PackageScopedReference]bool{}
		for j, e := range d.Entries {
			fail := func(ch, bundle, format string, args ...any) {
				b.add(d.Pos, Error, RuleDeprecation, d.Package, ch, bundle, format, args...)
			}
			if e.Reference.Schema == "" {
				fail("", "", "schema must be set for deprecation entry [%d] for package %q", j, d.Package)
				continue
			}
			if refs[e.Reference] {
				fail("", "", "duplicate deprecation entry %#v for package %q", e.Reference, d.Package)
				continue
			}
			refs[e.Reference] = true
			dep := &Deprecation{Message: e.Message}
			switch e.Reference.Schema {
			case declcfg.SchemaBundle:
				bun := pkg.bundleByName[e.Reference.Name]
				if bun == nil {
					fail("", e.Reference.Name, "cannot deprecate bundle %q for package %q: bundle not found", e.Reference.Name, d.Package)
					continue
				}
				bun.Deprecation = dep
			case declcfg.SchemaChannel:
				ch := pkg.channelByName[e.Reference.Name]
				if ch == nil && e.Reference.Name != "" && e.Reference.Name == pkg.DefaultChannelName {
					// opm made an empty channel of the missing default
					// channel's name (F3 reports it); deprecating it is
					// accepted there, and an empty message then fails.
					if e.Message == "" {
						fail(e.Reference.Name, "", "invalid channel %q of package %q: invalid deprecation: message must be set", e.Reference.Name, d.Package)
					}
					continue
				}
				if ch == nil {
					fail(e.Reference.Name, "", "cannot deprecate channel %q for package %q: channel not found", e.Reference.Name, d.Package)
					continue
				}
				ch.Deprecation = dep
			case declcfg.SchemaPackage:
				if e.Reference.Name != "" {
					fail("", "", "package name must be empty for deprecated package %q (specified %q)", d.Package, e.Reference.Name)
					continue
				}
				pkg.Deprecation = dep
			default:
				fail("", "", "cannot deprecate object %#v referenced by entry %v for package %q: object schema unknown", e.Reference, j, d.Package)
			}
		}
	}
}

// checkPackage runs Model.Validate's checks on one package and the
// warnings; it reads only the package.
func checkPackage(pkg *Package) Problems {
	var ps Problems
	add := func(pos declcfg.Position, sev Severity, rule, ch, bundle, format string, args ...any) {
		ps = append(ps, newProblem(pos, sev, rule, pkg.Name, ch, bundle, format, args...))
	}
	switch {
	case pkg.DefaultChannelName == "":
		add(pkg.Pos, Error, RuleDefaultChannel, "", "", "invalid package %q: default channel must be set", pkg.Name)
		if len(pkg.Channels) == 0 {
			add(pkg.Pos, Error, RuleNoChannels, "", "", "invalid package %q: package must contain at least one channel", pkg.Name)
		}
	case pkg.DefaultChannel == nil:
		// opm adds an empty channel of that name, which fails with
		// "channel must contain at least one bundle".
		add(pkg.Pos, Error, RuleDefaultChannel, pkg.DefaultChannelName, "",
			"invalid package %q: default channel %q is not a channel of the package (opm: invalid channel %q: channel must contain at least one bundle)",
			pkg.Name, pkg.DefaultChannelName, pkg.DefaultChannelName)
	}
	if pkg.Deprecation != nil && pkg.Deprecation.Message == "" {
		add(pkg.DeprecationPos, Error, RuleDeprecation, "", "", "invalid package %q: invalid deprecation: message must be set", pkg.Name)
	}
	for _, ch := range pkg.Channels {
		checkChannel(ch, add)
	}
	for _, bun := range pkg.Bundles {
		if len(bun.Entries) == 0 {
			continue // F9 already; opm validates bundles through channels
		}
		at := func(sev Severity, rule, format string, args ...any) {
			add(bun.Pos, sev, rule, "", bun.Name, format, args...)
		}
		if bun.VersionOK && len(bun.Release) > 0 {
			if want := pkg.Name + "-v" + bun.VersionString(); bun.Name != want {
				at(Error, RuleReleaseName, "invalid bundle %q: name %q does not match normalized name %q", bun.Name, bun.Name, want)
			}
			if len(bun.Version.Build) > 0 {
				at(Error, RuleBuildAndRelease, "invalid bundle %q: cannot use build metadata in version with a release version", bun.Name)
			}
		}
		if bun.Image == "" && !bun.HasObjects {
			at(Error, RuleImage, "invalid bundle %q: bundle image must be set", bun.Name)
		}
		if bun.Deprecation != nil && bun.Deprecation.Message == "" {
			add(pkg.DeprecationPos, Error, RuleDeprecation, "", bun.Name, "invalid bundle %q: invalid deprecation: message must be set", bun.Name)
		}
	}
	ps = append(ps, duplicateVersions(pkg)...)
	ps = append(ps, lintPackage(pkg)...)
	return ps
}

func checkChannel(ch *Channel, add func(pos declcfg.Position, sev Severity, rule, ch, bundle, format string, args ...any)) {
	pkg := ch.Package
	ch.head, ch.headErr = channelHead(ch.Entries)
	ch.v0Chain, ch.v0Err = SortChannelV0(pkg.Name, ch.Name, ch.Entries)
	for _, e := range ch.v0Chain {
		e.OnV0Chain = true
	}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			if t := ch.entryByName[s]; t != nil && t.SkippedBy == "" {
				t.SkippedBy = e.Name
			}
		}
	}
	if len(ch.Entries) == 0 {
		add(ch.Pos, Error, RuleChannelEntries, ch.Name, "", "invalid channel %q of package %q: channel must contain at least one bundle", ch.Name, pkg.Name)
	} else if err := validateReplacesChain(ch.Entries, ch.entryByName); err != nil {
		rule := RuleStranded
		switch {
		case ch.headErr != nil:
			rule = RuleHead
		case strings.HasPrefix(err.Error(), "detected cycle"):
			rule = RuleCycle
		}
		add(ch.Pos, Error, rule, ch.Name, "", "invalid channel %q of package %q: %v", ch.Name, pkg.Name, err)
	}
	for _, e := range ch.Entries {
		for i, s := range e.Skips {
			if s == "" {
				add(ch.Pos, Error, RuleSkips, ch.Name, e.Name, "invalid bundle %q in channel %q: skip[%d] is empty", e.Name, ch.Name, i)
			}
		}
		if e.RangeErr != nil {
			add(ch.Pos, Error, RuleSkipRange, ch.Name, e.Name, "invalid bundle %q in channel %q: invalid skipRange %q: %v", e.Name, ch.Name, e.SkipRange, e.RangeErr)
			add(ch.Pos, Warning, RuleSkipRangeIgnored, ch.Name, e.Name,
				"entry %q of channel %q: OLM v0, OLM v1 and render-graph silently ignore the invalid skipRange %q (no skipRange edges)", e.Name, ch.Name, e.SkipRange)
		}
	}
	if ch.Deprecation != nil && ch.Deprecation.Message == "" {
		add(pkg.DeprecationPos, Error, RuleDeprecation, ch.Name, "", "invalid channel %q of package %q: invalid deprecation: message must be set", ch.Name, pkg.Name)
	}
}

// duplicateVersions is Package.validateUniqueBundleVersions: bundles of
// the package's channels sharing a VersionString. One problem per group
// (upstream lists every group in one message), at each bundle of the
// group but the first loaded.
func duplicateVersions(pkg *Package) Problems {
	groups := map[string][]*Bundle{}
	for _, bun := range pkg.Bundles {
		if len(bun.Entries) > 0 && bun.VersionOK {
			k := bun.VersionString()
			groups[k] = append(groups[k], bun)
		}
	}
	var ps Problems
	for k, bs := range groups {
		if len(bs) < 2 {
			continue
		}
		names := make([]string, len(bs))
		for i, bun := range bs {
			names[i] = bun.Name
		}
		sort.Strings(names)
		for _, bun := range bs[1:] {
			ps = append(ps, newProblem(bun.Pos, Error, RuleDuplicateVersion, pkg.Name, "", bun.Name,
				"invalid package %q: duplicate versions found in bundles: [{%s: [%s]}]", pkg.Name, k, strings.Join(names, ", ")))
		}
	}
	return ps
}

// parallel runs f(0..n-1) on all CPUs.
func parallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
