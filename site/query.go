package site

import (
	"fmt"
	"net/url"

	"github.com/upgraph/upgraph/generator/policy"
)

// apiError is upstream's error body {"kind","value"} with its status.
type apiError struct {
	status int
	kind   string
	value  string
}

func (e *apiError) Error() string { return e.kind + ": " + e.value }

var errNotAcceptable = &apiError{406, "invalid_content_type", "invalid Content-Type requested"}

// graphQuery is a validated /graph request.
type graphQuery struct {
	channel, arch, version string
}

// parseGraphQuery validates the query as the policy-engine does (spec
// §6.3, §6.6, §6.7): channel is mandatory (present, even if empty), the
// last of repeated parameters wins, channel is checked before arch, and
// unknown parameters (id among them) are ignored. version is optional and
// never fails a request: upstream ignores it.
func parseGraphQuery(rawQuery string) (graphQuery, *apiError) {
	values, err := url.ParseQuery(rawQuery)
	if _, present := values["channel"]; !present {
		return graphQuery{}, &apiError{400, "missing_params", "mandatory client parameters missing: channel"}
	}
	if err != nil {
		return graphQuery{}, &apiError{400, "invalid_params", "invalid client parameters: " + err.Error()}
	}
	last := func(k string) (string, bool) {
		vs, ok := values[k]
		if !ok || len(vs) == 0 {
			return "", ok
		}
		return vs[len(vs)-1], true
	}
	q := graphQuery{arch: policy.DefaultArch}
	q.channel, _ = last("channel")
	if !policy.ChannelPattern.MatchString(q.channel) {
		return q, &apiError{400, "invalid_params", fmt.Sprintf("invalid client parameters: channel '%s' does not match regex '%s'", q.channel, policy.ChannelPattern)}
	}
	if a, ok := last("arch"); ok {
		if !policy.ArchPattern.MatchString(a) {
			return q, &apiError{400, "invalid_params", fmt.Sprintf("invalid client parameters: arch '%s' does not match regex '%s'", a, policy.ArchPattern)}
		}
		q.arch = a
	}
	q.version, _ = last("version")
	return q, nil
}
