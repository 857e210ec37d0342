package edge

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/upgraph/upgraph/internal/jsonw"
	"github.com/upgraph/upgraph/release/policy"
	"github.com/upgraph/upgraph/site"
)

// nginx has no code, only maps: each request is classified by a chain of
// map blocks into a route (a response name, or "json"/"v1" for a graph
// file), and the public locations rewrite to /_upgraph/<route>. Every map
// below mirrors one step of site.Handler in the order it takes them.

// nginxMap is one map block: Var is computed from Source by the first
// matching entry (exact strings before regexes, regexes in order).
type nginxMap struct {
	Comment string
	Source  string
	Var     string
	Entries []mapEntry
}

type mapEntry struct{ Key, Value string }

// Parameters of a map written as entries, as "default" is: volatile
// makes nginx evaluate the map at each use rather than once per request.
var volatileEntry = mapEntry{Key: "volatile"}

// Query syntax as the Go handler reads it (leniently, as upstream): pairs
// split on '&' only, '+' is a space, a well-formed %XX escape a byte, and
// anything else, a malformed escape or ';' included, is kept literally.
// nginx sees raw values; a raw value matching the channel or arch pattern
// decodes to itself, so validation is exact for every value without '%'.

// lastParam matches the last pair named name (the Go handler's "last one
// wins"), capturing its raw value in group capture. A bare "name" counts,
// with an empty value.
func lastParam(name, capture string) string {
	return `(?:^|&)` + name + `(?:=(?<` + capture + `>[^&]*))?(?=&|$)(?!.*&` + name + `(?:[=&]|$))`
}

// echoable matches a raw character the Go handler echoes unchanged into a
// JSON error body: one that decodes to itself (not '+' or a well-formed
// escape), needs no JSON escape ('"', '\', controls) and is valid UTF-8.
const echoable = `(?:[^%+\x00-\x1f\x22\x5c\x80-\xff]|%(?![0-9A-Fa-f]{2})|` + utf8Seq + `)`

// utf8Seq is one well-formed multi-byte UTF-8 sequence (RFC 3629).
const utf8Seq = `[\xc2-\xdf][\x80-\xbf]|\xe0[\xa0-\xbf][\x80-\xbf]|[\xe1-\xec\xee\xef][\x80-\xbf]{2}|` +
	`\xed[\x80-\x9f][\x80-\xbf]|\xf0[\x90-\xbf][\x80-\xbf]{2}|[\xf1-\xf3][\x80-\xbf]{3}|\xf4[\x80-\x8f][\x80-\xbf]{2}`

// maxEchoPlus is how many '+' (decoded to spaces, as in "stable+4.9") an
// echoed value may hold; values beyond are reported without the value.
const maxEchoPlus = 3

// echoEntries render "name 'VALUE'" for an invalid parameter, decoding up
// to maxEchoPlus '+'; anything else needing decoding or escaping gets the
// message without the value.
func echoEntries(name, capture string) []mapEntry {
	// Regexes never see an empty value, so it needs its own entry.
	es := []mapEntry{{"", name + " ''"}}
	for n := 0; n <= maxEchoPlus; n++ {
		var re, val []string
		for i := 0; i <= n; i++ {
			g := fmt.Sprintf("%s%d%d", capture, n, i)
			re = append(re, `(?<`+g+`>`+echoable+`*)`)
			val = append(val, "${"+g+"}")
		}
		es = append(es, mapEntry{"~^" + strings.Join(re, `\+`) + "$", name + " '" + strings.Join(val, " ") + "'"})
	}
	return append(es, mapEntry{"default", name})
}

// Accept: exactly upstream's values first (map strings match
// case-insensitively, as the Go handler's list parsing does), then an
// approximation of its RFC 9110 negotiation: the first acceptable media
// range in the list decides, where a range is acceptable if its q is in
// (0, 1] (so q=0 and an invalid q rule out that range only).
var (
	acceptable = `(?:application/json|` + regexp.QuoteMeta(site.MediaV1) + `|application/\*|\*/\*|\*)`
	qPositive  = `\+?0*(?:\.\d*[1-9]\d*|1(?:\.0*)?)`
	okParams   = `(?:\s*;\s*(?:q\s*=\s*` + qPositive + `\s*|(?!q\s*=)[^;,]*))*\s*`
	elem       = func(rng string) string { return `\s*` + rng + okParams + `(?:,|$)` }
	skipped    = `(?:(?!` + elem(acceptable) + `)[^,]*,)*`
)

func nginxMaps() []nginxMap {
	return []nginxMap{
		{"Method first: CORS preflights (site.CORS), then GET and HEAD only.", "$request_method", "$upgraph_route", []mapEntry{
			{"GET", "$upgraph_route_accept"}, {"HEAD", "$upgraph_route_accept"},
			{"OPTIONS", "$upgraph_route_options"}, {"default", "method"}}},
		{"", "$http_access_control_request_method", "$upgraph_route_options", []mapEntry{
			{"", "method"}, {"default", "$upgraph_preflight"}}},
		{"Paths other than the graph routes: 404, but preflights are answered.", "$request_method", "$upgraph_other", []mapEntry{
			{"OPTIONS", "$upgraph_other_options"}, {"default", "notfound"}}},
		{"", "$http_access_control_request_method", "$upgraph_other_options", []mapEntry{
			{"", "notfound"}, {"default", "$upgraph_preflight"}}},
		{"A preflight needs an Origin, asks for GET or HEAD and for no headers.",
			`"$http_origin|$http_access_control_request_method|$http_access_control_request_headers"`, "$upgraph_preflight", []mapEntry{
				{`~^.+\|(?:GET|HEAD)\|$`, "preflight"}, {"default", "cors"}}},

		{"Accept (spec §6.4). An empty header cannot be told from a missing one.", "$http_accept", "$upgraph_media", []mapEntry{
			{"", "v1"}, {site.MediaJSON, "json"}, {"*/*", "json"}, {"*", "json"}, {"application/*", "json"}, {site.MediaV1, "v1"},
			{"~*^" + skipped + elem(regexp.QuoteMeta(site.MediaV1)), "v1"},
			{"~*^" + skipped + elem(acceptable), "json"},
			{"default", ""}}},
		{"", "$upgraph_media", "$upgraph_route_accept", []mapEntry{
			{"", "accept"}, {"default", "$upgraph_route_query"}}},

		{"channel is mandatory: the key must be present, even with an empty value.", "$args", "$upgraph_route_query", []mapEntry{
			{"~(?:^|&)channel(?:=[^&]*)?(?:&|$)", "$upgraph_route_channel"}, {"default", "missing"}}},
		{"Then channel, then arch (spec §6.6, §6.7).", "$upgraph_channel", "$upgraph_route_channel", []mapEntry{
			{"~" + policy.ChannelPattern.String(), "$upgraph_route_arch"}, {"default", "channel"}}},
		{"", "$upgraph_arch", "$upgraph_route_arch", []mapEntry{
			{"~" + policy.ArchPattern.String(), "$upgraph_media"}, {"default", "arch"}}},

		{"Raw (undecoded) parameter values; the last occurrence wins.", "$args", "$upgraph_channel", []mapEntry{
			{"~" + lastParam("channel", "upgraph_c"), "$upgraph_c"}, {"default", ""}}},
		{"", "$args", "$upgraph_arch", []mapEntry{
			{"~" + lastParam("arch", "upgraph_a"), "$upgraph_a"}, {"default", policy.DefaultArch}}},
		{"", "$args", "$upgraph_version_raw", []mapEntry{
			{"~" + lastParam("version", "upgraph_v"), "$upgraph_v"}, {"default", ""}}},
		{"A version spelled as its file is (lower case), build metadata dropped as\n# the Go handler looks versions up without it; others get the channel graph.",
			"$upgraph_version_raw", "$upgraph_version", []mapEntry{
				{`~^(?<upgraph_vk>[0-9a-z.-]+)(?:%2[Bb][0-9A-Za-z.-]*)?$`, "$upgraph_vk"}, {"default", ""}}},
		{"\".\" and \"..\" are valid channels no tree has; keep them out of paths.", "$upgraph_channel", "$upgraph_channel_dir", []mapEntry{
			{".", "_"}, {"..", "_"}, {"default", "$upgraph_channel"}}},

		{"Tree files (the viewer, index.json, graph files) and signatures: GET and\n# HEAD, preflights answered, other methods 405 (the file exists).",
			"$request_method", "$upgraph_file", []mapEntry{
				{"GET", "file"}, {"HEAD", "file"}, {"OPTIONS", "$upgraph_file_options"}, {"default", "method"}}},
		{"", "$http_access_control_request_method", "$upgraph_file_options", []mapEntry{
			{"", "method"}, {"default", "$upgraph_preflight"}}},
		{"Signatures: the method, then the path (set from the location), as the Go handler.",
			"$request_method", "$upgraph_sig_route", []mapEntry{
				{"GET", "$upgraph_sig_valid"}, {"HEAD", "$upgraph_sig_valid"}, {"OPTIONS", "$upgraph_file_options"}, {"default", "method"}}},
		{"", "$upgraph_sig", "$upgraph_sig_valid", []mapEntry{
			{"~" + signaturePath, "file"}, {"default", "badsig"}}},

		{"Error messages echo the offending value where nginx can reproduce it.", "$upgraph_channel", "$upgraph_channel_msg", echoEntries("channel", "upgraph_cm")},
		{"", "$upgraph_arch", "$upgraph_arch_msg", echoEntries("arch", "upgraph_am")},
	}
}

// signaturePath is what the Go handler accepts after /signatures/ (its
// signaturePath and the "sha256"/"sha" check, which leave one '='):
// anything else is 400, a valid path the tree lacks 404.
const signaturePath = `^(?:sha256|sha)=[0-9a-f]{64}/signature-[1-9][0-9]?$`

// nginxResponse is an internal location answering one error route.
type nginxResponse struct {
	Name        string
	Status      int
	ContentType string // "" sends none, as Go's empty responses
	Body        string // nginx-quoted return text
	CORS        bool   // echo Origin (the CORS error does not)
	Headers     [][2]string
}

// The Vary header site.CORS adds to every response.
const corsVary = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"

func nginxResponses() []nginxResponse {
	invalid := func(detail string) string {
		return errorBody("invalid_params", "invalid client parameters: "+detail)
	}
	regexDetail := func(msgVar string, re *regexp.Regexp) string {
		return "@{" + msgVar + "} does not match regex '" + re.String() + "'"
	}
	return []nginxResponse{
		{Name: "accept", Status: 406, ContentType: "application/json", CORS: true,
			Body: errorBody("invalid_content_type", "invalid Content-Type requested")},
		{Name: "missing", Status: 400, ContentType: "application/json", CORS: true,
			Body: errorBody("missing_params", "mandatory client parameters missing: channel")},
		{Name: "channel", Status: 400, ContentType: "application/json", CORS: true, Body: invalid(regexDetail("upgraph_channel_msg", policy.ChannelPattern))},
		{Name: "arch", Status: 400, ContentType: "application/json", CORS: true, Body: invalid(regexDetail("upgraph_arch_msg", policy.ArchPattern))},
		{Name: "method", Status: 405, ContentType: "application/json", CORS: true,
			Body:    errorBody("method_not_allowed", "method @{request_method} is not allowed; use GET or HEAD"),
			Headers: [][2]string{{"Allow", "GET, HEAD"}}},
		{Name: "preflight", Status: 200, CORS: true, Body: emptyBody,
			Headers: [][2]string{{"Access-Control-Allow-Methods", "GET, HEAD"}}},
		{Name: "cors", Status: 400, ContentType: "text/plain; charset=utf-8", Body: nginxQuote("CORS request not allowed\n"),
			Headers: [][2]string{{"X-Content-Type-Options", "nosniff"}}},
		{Name: "notfound", Status: 404, CORS: true, Body: emptyBody},
		{Name: "badsig", Status: 400, ContentType: "application/json", CORS: true,
			Body: invalid("signature path must be sha256=<hex digest>/signature-<N>")},
		{Name: "nosig", Status: 404, ContentType: "application/json", CORS: true,
			Body: errorBody("does_not_exist", "does not exist: @{upgraph_sig}")},
	}
}

// emptyBody is an empty return text: a literal "" would make nginx send its
// HTML error page instead, an empty variable does not.
const emptyBody = `"${upgraph_empty}"`

// errorBody renders site's {"kind","value"} body as nginx return text.
// "@{name}" in value stands for nginx variable $name, which the maps keep
// JSON-safe; a literal '$' has to come from a variable in nginx.
func errorBody(kind, value string) string {
	b := jsonw.Key([]byte{'{'}, "kind")
	b = jsonw.String(b, kind)
	b = append(b, ',')
	b = jsonw.Key(b, "value")
	b = jsonw.String(b, value)
	b = append(b, '}')
	s := strings.ReplaceAll(string(b), "$", "${upgraph_dollar}")
	return nginxQuote(strings.ReplaceAll(s, "@{", "${"))
}
