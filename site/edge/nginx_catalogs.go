package edge

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/site"
)

// Operator catalogs: catalogd's /catalogs/<catalog>/api/v1/all and
// /api/v1/metas (site/catalogd.go), mapped to the files catalog/metas
// precomputes. nginx checks what catalogd checks, in its order (method,
// catalog name, for metas the parameters, then the catalog), reads the
// query as catalogd does (url.ParseQuery: pairs split on '&', a pair
// with ';' or a malformed escape dropped, the first value of each key),
// encodes each value as metas.Encode does (nginxEncoderMaps,
// nginxSplitMaps) and answers the file of the combination
// (metas.Resolve); a value the catalog does not have names a file that
// does not exist, and the answer is metas/empty.jsonl (docs/operators.md,
// "Serving").

// dns1123Subdomain is what catalogd accepts as a catalog name
// (k8s.io/apimachinery IsDNS1123Subdomain), length aside.
const dns1123Subdomain = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`

// pairChar is one character of a pair url.ParseQuery keeps: anything but
// the separator, ';' (the pair is dropped) and '%' not starting a
// well-formed escape (the pair is dropped).
const pairChar = `(?:[^&%;]|%[0-9A-Fa-f]{2})`

// keySpelling matches every raw spelling of key that decodes to it: each
// character as itself or escaped (hex digits of either case).
func keySpelling(key string) string {
	var b strings.Builder
	for _, c := range []byte(key) {
		fmt.Fprintf(&b, "(?:%c|%%(?i:%02x))", c, c)
	}
	return b.String()
}

func catalogMaps() []nginxMap {
	ks, kp, kn := keySpelling("schema"), keySpelling("package"), keySpelling("name")
	first := func(key, capture string) string {
		return `~(?:^|&)` + key + `(?:=(?<` + capture + `>` + pairChar + `*))?(?=&|$)`
	}
	maps := []nginxMap{
		{Comment: "Operator catalogs (catalogd's API): the method first, preflights answered.", Source: "$request_method", Var: "$upgraph_cat_route", Entries: []mapEntry{
			{"GET", "$upgraph_cat_name"}, {"HEAD", "$upgraph_cat_name"}, {"OPTIONS", "$upgraph_cat_options"}, {"default", "catmethod"}}},
		{Source: "$http_access_control_request_method", Var: "$upgraph_cat_options", Entries: []mapEntry{
			{"", "catmethod"}, {"default", "$upgraph_preflight"}}},
		{Comment: "Then the catalog name, as catalogd checks it (IsDNS1123Subdomain).", Source: "$upgraph_cat", Var: "$upgraph_cat_name", Entries: []mapEntry{
			{"~^(?=.{254})" + dns1123Subdomain + "$", "catlong"},
			{"~^.{254}", "catlongbad"},
			{"~^" + dns1123Subdomain + "$", "file"},
			{"default", "catbad"}}},
		{Comment: "Then, for metas, the parameters: a pair url.ParseQuery keeps (no ';', no\n" +
			"# malformed escape) whose key decodes to none of schema, package and name is 400.", Source: "$args", Var: "$upgraph_cat_params", Entries: []mapEntry{
			{`~(?:^|&)(?!(?:` + ks + `|` + kp + `|` + kn + `)(?:[=&]|$))` + pairChar + `+(?=&|$)`, "catparams"},
			{"default", "file"}}},
		{Comment: "The raw first value of each kept pair (catalogd's Query().Get).", Source: "$args", Var: "$upgraph_cat_s", Entries: []mapEntry{
			{first(ks, "upgraph_qs"), "$upgraph_qs"}, {"default", ""}}},
		{Source: "$args", Var: "$upgraph_cat_p", Entries: []mapEntry{
			{first(kp, "upgraph_qp"), "$upgraph_qp"}, {"default", ""}}},
		{Source: "$args", Var: "$upgraph_cat_n", Entries: []mapEntry{
			{first(kn, "upgraph_qn"), "$upgraph_qn"}, {"default", ""}}},
	}
	for _, v := range []string{"s", "p", "n"} {
		maps = append(maps, nginxEncoderMaps("$upgraph_cat_"+v, "$upgraph_enc_"+v, v)...)
		maps = append(maps, nginxSplitMaps("$upgraph_enc_"+v, "$upgraph_path_"+v, v)...)
	}
	maps = append(maps, nginxLookupMaps()...)
	const present, absent = `[^&]+`, ``
	combination := func(s, p, n string) string { return "~^" + s + "&" + p + "&" + n + "$" }
	maps = append(maps,
		nginxMap{Comment: "The file of each combination (catalog/metas.Resolve), relative to operators/<catalog>/;\n" +
			"# a value beyond the maps' bound (" + unmappedPath + ", nginx_encode.go) is no catalog's.",
			Source: "$upgraph_path_s&$upgraph_path_p&$upgraph_path_n", Var: "$upgraph_metas_file", Entries: []mapEntry{
				{"~" + unmappedPath, metas.EmptyFile},
				{combination(absent, absent, absent), metas.AllFile},
				{combination(present, absent, absent), "metas/schema/${upgraph_path_s}.jsonl"},
				{combination(absent, present, absent), "metas/package/${upgraph_path_p}.jsonl"},
				{combination(present, present, absent), "metas/package/${upgraph_path_p}/${upgraph_path_s}.jsonl"},
				{combination(absent, absent, present), metas.NameDir + "${upgraph_path_n}.jsonl"},
				{combination(present, absent, present), "metas/schema/${upgraph_path_s}/${upgraph_path_n}.jsonl"},
				{combination(absent, present, present), "metas/package/${upgraph_path_p}/name/${upgraph_path_n}.jsonl"},
				{combination(present, present, present), "metas/package/${upgraph_path_p}/schema/${upgraph_path_s}/${upgraph_path_n}.jsonl"},
				{"default", metas.EmptyFile}}},
	)
	return maps
}

// catalogResponses are catalogd's errors (http.Error: text/plain, nosniff),
// each with catalogd's Vary.
func catalogResponses() []nginxResponse {
	text := func(name string, status int, body string) nginxResponse {
		return nginxResponse{Name: name, Status: status, ContentType: "text/plain; charset=utf-8", CORS: true,
			Body:    nginxQuote(body + "\n"),
			Headers: [][2]string{{"Vary", "Accept-Encoding"}, {"X-Content-Type-Options", "nosniff"}}}
	}
	const invalid = "invalid catalog name: "
	return []nginxResponse{
		text("catmethod", http.StatusMethodNotAllowed, http.StatusText(http.StatusMethodNotAllowed)),
		text("catbad", http.StatusBadRequest, invalid+site.CatalogNameInvalid),
		text("catlong", http.StatusBadRequest, invalid+site.CatalogNameTooLong),
		text("catlongbad", http.StatusBadRequest, invalid+site.CatalogNameTooLong+"; "+site.CatalogNameInvalid),
		text("catparams", http.StatusBadRequest, "400 Bad Request"),
		text("catnotfound", http.StatusNotFound, "404 Not Found"),
	}
}
