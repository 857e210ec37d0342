package cvo

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/blang/semver/v4"
)

// getUpdatesTimeout is the CVO's per-request deadline.
const getUpdatesTimeout = 60 * time.Minute

// Client fetches a graph the way a cluster does.
type Client struct {
	// HTTP sends the request; nil means a zero http.Client, as the CVO uses
	// when it has no custom transport.
	HTTP *http.Client
	// ID is the cluster UUID (spec.clusterID).
	ID string
	// UserAgent is sent verbatim, e.g. UserAgent("4.16.3"); empty leaves Go's
	// default, as the CVO's client does.
	UserAgent string
}

// GetUpdates requests the graph for the given cluster state and interprets it
// with Updates. Before the request it applies the checks the CVO makes in
// calculateAvailableUpdatesStatus (NoUpstream, InvalidURI, InvalidID,
// NoArchitecture, NoChannel), so a misconfigured test client fails like a
// cluster would rather than sending a request no cluster sends.
func (c *Client) GetUpdates(ctx context.Context, upstream string, desiredArch, currentArch, channel string, current semver.Version) (Release, []Release, []ConditionalUpdate, error) {
	var none Release
	uri, err := parseUpstream(upstream)
	if err != nil {
		return none, nil, nil, err
	}
	id, err := normalizeID(c.ID)
	if err != nil {
		// uuid.Parse returns the zero UUID on error, whose variant is not
		// RFC 4122, so this is the message the CVO picks for every parse error.
		return none, nil, nil, &Error{Reason: "InvalidID", Message: fmt.Sprintf("must be an RFC4122-variant UUID: %s", err), cause: err}
	}
	if desiredArch == "" {
		return none, nil, nil, &Error{Reason: "NoArchitecture", Message: "The set of architectures has not been configured."}
	}
	if channel == "" {
		return none, nil, nil, &Error{Reason: "NoChannel", Message: "The update channel has not been configured."}
	}

	releaseArch := desiredArch
	if desiredArch == ArchitectureMulti {
		releaseArch = "multi"
	}
	addQuery(uri, releaseArch, channel, id, current.String())

	req, err := http.NewRequest(http.MethodGet, uri.String(), nil)
	if err != nil {
		return none, nil, nil, &Error{Reason: "InvalidRequest", Message: err.Error(), cause: err}
	}
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	req.Header.Set("Accept", GraphMediaType)

	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, getUpdatesTimeout)
	defer cancel()
	resp, err := hc.Do(req.WithContext(ctx))
	if err != nil {
		return none, nil, nil, &Error{Reason: "RemoteFailed", Message: err.Error(), cause: err}
	}
	defer resp.Body.Close()

	if resp.StatusCode != http.StatusOK {
		return none, nil, nil, &Error{Reason: "ResponseFailed", Message: fmt.Sprintf("unexpected HTTP status: %s", resp.Status)}
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return none, nil, nil, &Error{Reason: "ResponseFailed", Message: err.Error(), cause: err}
	}
	return Updates(body, channel, desiredArch, currentArch, current)
}
