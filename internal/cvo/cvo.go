// Package cvo re-implements how the OpenShift cluster-version operator (CVO)
// requests an update graph and turns the response into the current release,
// the recommended updates and the conditional updates of a cluster.
//
// It follows openshift/cluster-version-operator pkg/cincinnati/cincinnati.go
// (GetUpdates, ParseMetadata) and the Always/PromQL rules of
// pkg/clusterconditions, without importing them, so tests can check that
// different graph files make a cluster compute identical updates.
package cvo

import (
	"fmt"
	"net/url"
)

const (
	// GraphMediaType is the Accept header the CVO sends.
	GraphMediaType = "application/json"

	// ArchitectureMulti is configv1.ClusterVersionArchitectureMulti: the desired
	// architecture of a heterogeneous cluster, and what ParseMetadata reports for
	// nodes whose release.openshift.io/architecture is "multi".
	ArchitectureMulti = "Multi"

	// Metadata keys the CVO reads from graph nodes.
	MetadataURL          = "url"
	MetadataArchitecture = "release.openshift.io/architecture"
	MetadataChannels     = "io.openshift.upgrades.graph.release.channels"
)

// Release mirrors configv1.Release.
type Release struct {
	Version      string
	Image        string
	URL          string
	Architecture string
	Channels     []string
}

// MatchingRule mirrors configv1.ClusterCondition. PromQL holds promql.promql,
// or "" when the promql object is absent.
type MatchingRule struct {
	Type   string
	PromQL string
}

// Risk mirrors configv1.ConditionalUpdateRisk.
type Risk struct {
	URL           string
	Name          string
	Message       string
	MatchingRules []MatchingRule
}

// ConditionalUpdate mirrors configv1.ConditionalUpdate (without Conditions,
// which the CVO only fills in later, when it evaluates the risks).
type ConditionalUpdate struct {
	Release Release
	Risks   []Risk
}

// Error mirrors the CVO's cincinnati.Error. Reason becomes the reason of the
// RetrievedUpdates=False condition, Message its message (after the CVO's
// "Unable to retrieve available updates: " prefix).
type Error struct {
	Reason  string
	Message string

	// cause is kept, as in the CVO, so callers can still inspect transport and
	// JSON errors with errors.Is / errors.As.
	cause error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Reason, e.Message)
}

// Unwrap returns the underlying transport or decoding error, if any.
func (e *Error) Unwrap() error { return e.cause }

// UserAgent returns the User-Agent the CVO of the given version sends.
func UserAgent(cvoVersion string) string {
	return "ClusterVersionOperator/" + cvoVersion
}

// URL builds the graph request URL as the CVO does. arch must already be the
// release architecture ("multi", not "Multi"; see Client.GetUpdates). The
// path is kept verbatim, parameters already in upstream are kept, and because
// the CVO uses Add, a parameter already present is sent twice. Encode sorts
// the keys.
func URL(upstream string, arch, channel, id, version string) (*url.URL, error) {
	uri, err := parseUpstream(upstream)
	if err != nil {
		return nil, err
	}
	addQuery(uri, arch, channel, id, version)
	return uri, nil
}

// parseUpstream applies the two upstream checks the CVO makes before anything
// else (pkg/cvo/availableupdates.go calculateAvailableUpdatesStatus).
func parseUpstream(upstream string) (*url.URL, error) {
	if upstream == "" {
		return nil, &Error{Reason: "NoUpstream", Message: "No upstream server has been set to retrieve updates."}
	}
	uri, err := url.Parse(upstream)
	if err != nil {
		return nil, &Error{Reason: "InvalidURI", Message: fmt.Sprintf("failed to parse upstream URL: %s", err), cause: err}
	}
	return uri, nil
}

func addQuery(uri *url.URL, arch, channel, id, version string) {
	q := uri.Query()
	q.Add("arch", arch)
	q.Add("channel", channel)
	q.Add("id", id)
	q.Add("version", version)
	uri.RawQuery = q.Encode()
}
