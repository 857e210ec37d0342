package model

import (
	"github.com/upgraph/upgraph/internal/problem"
)

// Severity, Problem and Problems are the report format catalog
// validation shares with graph-data validation (package
// internal/problem). Error is what opm validate (operator-registry's
// ConvertToModel and Model.Validate) rejects; Warning marks where the
// runtimes diverge from opm or from each other. A Problem's Package
// decides which package a "valid packages only" publication drops for it.
type (
	Severity = problem.Severity
	Problem  = problem.Problem
	Problems = problem.Problems
)

const (
	Error   = problem.Error
	Warning = problem.Warning
)

// sortProblems orders problems by file, line, rule (in Rules order),
// message and subject, and drops exact duplicates (internal/problem).
func sortProblems(ps Problems) Problems { return ruleOrder.Sort(ps) }

// Rule describes one check.
type Rule struct {
	ID          string
	Severity    Severity
	Description string
}

// Rule ids. F* are operator-registry's own checks (opm validate: declcfg
// ConvertToModel and model.Validate, spec §1.2); every F finding is an
// error. L-* are the warnings upstream lacks (spec §6 O5).
const (
	RulePackageName      = "F1"
	RuleDuplicatePackage = "F2"
	RuleDefaultChannel   = "F3"
	RuleNoChannels       = "F4"
	RuleChannel          = "F5"
	RuleChannelEntries   = "F6"
	RuleEntryBundle      = "F7"
	RuleBundlePackage    = "F8"
	RuleBundleChannel    = "F9"
	RuleProperties       = "F10"
	RulePackageProperty  = "F11"
	RuleVersion          = "F12"
	RuleRelease          = "F13"
	RuleBuildAndRelease  = "F14"
	RuleReleaseName      = "F15"
	RuleDuplicateVersion = "F16"
	RuleImage            = "F17"
	RuleSkips            = "F18"
	RuleSkipRange        = "F19"
	RuleHead             = "F20"
	RuleCycle            = "F21"
	RuleStranded         = "F22"
	RuleDeprecation      = "F23"
	RuleBundleName       = "F24"

	RuleVersionTolerant  = "L-version-tolerant"
	RuleSkipRangeIgnored = "L-skiprange-ignored"
	RuleSkipRangeAbove   = "L-skiprange-above-version"
	RuleV0Unreachable    = "L-v0-unreachable"
	RuleV0Stuck          = "L-v0-stuck"
	RuleDeprecatedHead   = "L-deprecated-head"
	RuleMaxOpenShift     = "L-max-ocp-version"
	RuleMaxOpenShiftNum  = "L-max-ocp-number"
	RuleDowngradeEdge    = "L-downgrade-edge"
	RuleLegacyDeprecated = "L-legacy-deprecated"
	RuleV1Refused        = "L-v1-refused"
)

// Rules lists every rule in report order.
var Rules = []Rule{
	{RulePackageName, Error, "an olm.package has a name that is a DNS-1123 label"},
	{RuleDuplicatePackage, Error, "no two olm.package blobs share a name"},
	{RuleDefaultChannel, Error, "a package's defaultChannel is set and names one of its channels"},
	{RuleNoChannels, Error, "a package has at least one channel"},
	{RuleChannel, Error, "an olm.channel has a name, belongs to a known package and is not declared twice"},
	{RuleChannelEntries, Error, "a channel has at least one entry and no entry twice"},
	{RuleEntryBundle, Error, "every channel entry names an olm.bundle of the package"},
	{RuleBundlePackage, Error, "an olm.bundle names a known package and no bundle name is used twice in a package"},
	{RuleBundleChannel, Error, "every bundle is an entry of at least one channel"},
	{RuleProperties, Error, "bundle properties parse (known property types decode; others are JSON)"},
	{RulePackageProperty, Error, "a bundle has exactly one olm.package property, naming its package"},
	{RuleVersion, Error, "the bundle version is strict semver (blang semver.Parse)"},
	{RuleRelease, Error, "the bundle release is valid (model.NewRelease: dot-separated pre-release identifiers, at most 20 characters)"},
	{RuleBuildAndRelease, Error, "a bundle with a release has no build metadata in its version"},
	{RuleReleaseName, Error, "a bundle with a release is named <package>-v<version>-<release>"},
	{RuleDuplicateVersion, Error, "version and release are unique within a package"},
	{RuleImage, Error, "a bundle has an image (or inline olm.bundle.object content) and its image and related images are valid pull specs"},
	{RuleSkips, Error, "no skips entry is empty"},
	{RuleSkipRange, Error, "a skipRange parses (blang semver.ParseRange) and has no empty branch between two ||s (ParseRange accepts one, but the range then panics when asked)"},
	{RuleHead, Error, "a channel has exactly one head (an entry no replaces or skips of the channel names)"},
	{RuleCycle, Error, "the replaces chain from the head has no cycle"},
	{RuleStranded, Error, "every bundle is on the replaces chain walked from the head (stopping at a skipped target) or skipped by some entry"},
	{RuleDeprecation, Error, "olm.deprecations: package set and known, at most one blob per package, references unique, known schema, existing referent, messages set"},
	{RuleBundleName, Error, "an olm.bundle has a name"},
	{RuleVersionTolerant, Warning, "a version that parses only tolerantly: OLM v0 accepts it (semver.ParseTolerant), opm and OLM v1 reject it"},
	{RuleSkipRangeIgnored, Warning, "an invalid skipRange is silently ignored by OLM v0, OLM v1 and render-graph (no skipRange edges)"},
	{RuleSkipRangeAbove, Warning, "a skipRange admits versions above the bundle's own version (operator-registry#2090)"},
	{RuleV0Unreachable, Warning, "OLM v0 never moves a cluster to the bundle: it is skipped (or off the replaces chain) in every channel that lists it; only startingCSV installs it"},
	{RuleV0Stuck, Warning, "an install on the entry never reaches the channel head by OLM v0's one-hop updates"},
	{RuleDeprecatedHead, Warning, "a channel head is deprecated: OLM v1 prefers any non-deprecated successor, OLM v0 still installs it"},
	{RuleMaxOpenShift, Warning, "olm.maxOpenShiftVersion is invalid (OLM reports the operator as blocking every cluster minor update)"},
	{RuleMaxOpenShiftNum, Warning, "olm.maxOpenShiftVersion is a number, not a string: YAML and JSON drop its trailing zeros (4.20 is read as 4.2, as OLM reads it)"},
	{RuleDowngradeEdge, Warning, "a replaces or skips edge leads to a lower version: OLM v0 follows it, OLM v1 keeps the higher installed version"},
	{RuleLegacyDeprecated, Warning, "the legacy olm.deprecated property makes the bundle uninstallable by OLM v0 (not by OLM v1)"},
	{RuleV1Refused, Warning, "a bundle declaring olm.package.required, olm.gvk.required or olm.constraint is refused by OLM v1 whenever it is the resolved bundle (operator-controller's NoDependencyValidation, no fallback): OLM v1 never installs or updates to it"},
}

// ruleOrder ranks the rules in Rules order.
var ruleOrder = problem.OrderOf(Rules, func(r Rule) string { return r.ID })
