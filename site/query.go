package site

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/release/rollout"
)

// apiError is upstream's error body {"kind","value"} with its status.
type apiError struct {
	status int
	kind   string
	value  string
}

func (e *apiError) Error() string { return e.kind + ": " + e.value }

var (
	errNotAcceptable = &apiError{406, "invalid_content_type", "invalid Content-Type requested"}
	errNotReady      = &apiError{503, "not_ready", "no generation loaded yet"}
)

// graphQuery is a validated /graph request.
type graphQuery struct {
	channel, arch, version string
	// rollout is what picks a phased-rollout bucket (rollout.Bucket),
	// used only when the generation has rollouts.
	rollout rollout.Query
}

// parseGraphQuery validates the query as the policy-engine does (spec
// §6.3, §6.6, §6.7): channel is mandatory (present, even if empty), the
// last of repeated parameters wins, channel is checked before arch, and
// unknown parameters (id among them) are ignored. version is optional and
// never fails a request: upstream ignores it.
func parseGraphQuery(rawQuery string) (graphQuery, *apiError) {
	// One scan, decoding only the parameters that matter: every cluster
	// poll comes through here, so no map is built (parseForm's result
	// would be the same for these three keys).
	q := graphQuery{arch: policy.DefaultArch}
	var channelPresent, archPresent bool
	var arch string
	for rest := rawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		switch formDecode(k) {
		case "channel":
			q.channel, channelPresent = formDecode(v), true
		case "arch":
			arch, archPresent = formDecode(v), true
		case "version":
			q.version = formDecode(v)
		case "id":
			q.rollout.ID = formDecode(v)
		case "node_uuid":
			q.rollout.NodeUUID = formDecode(v)
		case "rollout_wariness":
			q.rollout.Wariness, q.rollout.HasWariness = formDecode(v), true
		}
	}
	if !channelPresent {
		return graphQuery{}, &apiError{400, "missing_params", "mandatory client parameters missing: channel"}
	}
	if !policy.ValidChannel(q.channel) {
		return q, &apiError{400, "invalid_params", fmt.Sprintf("invalid client parameters: channel '%s' does not match regex '%s'", q.channel, policy.ChannelPattern)}
	}
	if archPresent {
		if !policy.ValidArch(arch) {
			return q, &apiError{400, "invalid_params", fmt.Sprintf("invalid client parameters: arch '%s' does not match regex '%s'", arch, policy.ArchPattern)}
		}
		q.arch = arch
	}
	return q, nil
}

// formDecode decodes a query component as application/x-www-form-urlencoded
// the lenient way upstream does (WHATWG URL parsing): '+' is a space, a
// malformed percent escape is kept literally, and invalid UTF-8 becomes
// U+FFFD. Go's url.ParseQuery instead rejects ';' and bad escapes, which
// would turn valid requests into errors. Pairs are separated by '&' only.
func formDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return strings.ToValidUTF8(s, string(utf8.RuneError))
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b = append(b, ' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
		default:
			b = append(b, c)
		}
	}
	return strings.ToValidUTF8(string(b), string(utf8.RuneError))
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
