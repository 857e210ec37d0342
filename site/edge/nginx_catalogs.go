package edge

import (
	"net/http"
	"strconv"

	"github.com/upgraph/upgraph/catalog/metas"
	"github.com/upgraph/upgraph/site"
)

// Operator catalogs: catalogd's /catalogs/<catalog>/api/v1/all and
// /api/v1/metas (site/catalogd.go), mapped to the files catalog/metas
// precomputes. nginx checks what catalogd checks, in its order (method,
// catalog name, for metas the parameters, then the catalog), and answers
// the precomputed combinations from their files; it refuses with 501 what
// it cannot map (docs/operators.md, "Serving").

// Refusals of the static hosts, for metas queries they cannot map to a
// file. upgraph serve answers all of them.
const (
	// MetasNameRefusal: name= other than with schema=olm.package alone.
	MetasNameRefusal = "501 Not Implemented: this static host answers metas queries by schema, package, " +
		"schema and package, and schema=olm.package with name; other queries with name= need upgraph serve"
	// MetasDecodeRefusal (nginx): a query with '%' or ';', which nginx
	// cannot decode as catalogd does.
	MetasDecodeRefusal = "501 Not Implemented: this static host does not decode queries containing '%' or ';'; upgraph serve does"
	// MetasValueRefusal (nginx): a value other than 1 to 200 bytes of
	// [0-9a-z.-], which nginx cannot encode as a file name.
	MetasValueRefusal = "501 Not Implemented: this static host maps schema, package and name values of 1 to 200 characters " +
		"of [0-9a-z.-] only; upgraph serve maps any"
	// MetasLongRefusal (CloudFront): a value whose file name would be
	// hashed (longer than metas.MaxEncoded once encoded).
	MetasLongRefusal = "501 Not Implemented: this static host maps schema, package and name values of at most 200 bytes once encoded; upgraph serve maps any"
)

// mappable is a raw query value nginx maps to its file name: it encodes to
// itself, but for a leading '.' (metas.Encode).
var mappable = `[0-9a-z.-]{1,` + strconv.Itoa(metas.MaxEncoded) + `}`

// dns1123Subdomain is what catalogd accepts as a catalog name
// (k8s.io/apimachinery IsDNS1123Subdomain), length aside.
const dns1123Subdomain = `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`

func catalogMaps() []nginxMap {
	encode := func(src, dst, capture string) nginxMap {
		return nginxMap{"", src, dst, []mapEntry{{`~^\.(?<` + capture + `>.*)$`, "~2e$" + capture}, {"default", src}}}
	}
	return []nginxMap{
		{"Operator catalogs (catalogd's API): the method first, preflights answered.", "$request_method", "$upgraph_cat_route", []mapEntry{
			{"GET", "$upgraph_cat_name"}, {"HEAD", "$upgraph_cat_name"}, {"OPTIONS", "$upgraph_cat_options"}, {"default", "catmethod"}}},
		{"", "$http_access_control_request_method", "$upgraph_cat_options", []mapEntry{
			{"", "catmethod"}, {"default", "$upgraph_preflight"}}},
		{"Then the catalog name, as catalogd checks it (IsDNS1123Subdomain).", "$upgraph_cat", "$upgraph_cat_name", []mapEntry{
			{"~^(?=.{254})" + dns1123Subdomain + "$", "catlong"},
			{"~^.{254}", "catlongbad"},
			{"~^" + dns1123Subdomain + "$", "file"},
			{"default", "catbad"}}},
		{"Then, for metas, the parameters: only schema, package and name (400), in a\n" +
			"# query nginx reads as catalogd does (no '%' or ';').", "$args", "$upgraph_cat_params", []mapEntry{
			{"~(?:^|&)(?!(?:schema|package|name)(?:[=&]|$))[^&%;]+(?=&|$)", "catparams"},
			{"~[%;]", "catdecode"},
			{"default", "file"}}},
		{"The first value of each (catalogd's Query().Get).", "$args", "$upgraph_cat_s", []mapEntry{
			{"~(?:^|&)schema(?:=(?<upgraph_qs>[^&]*))?(?:&|$)", "$upgraph_qs"}, {"default", ""}}},
		{"", "$args", "$upgraph_cat_p", []mapEntry{
			{"~(?:^|&)package(?:=(?<upgraph_qp>[^&]*))?(?:&|$)", "$upgraph_qp"}, {"default", ""}}},
		{"", "$args", "$upgraph_cat_n", []mapEntry{
			{"~(?:^|&)name(?:=(?<upgraph_qn>[^&]*))?(?:&|$)", "$upgraph_qn"}, {"default", ""}}},
		{"The combinations precomputed, of values nginx can map to file names.", "$upgraph_cat_s&$upgraph_cat_p&$upgraph_cat_n", "$upgraph_metas_route", []mapEntry{
			{"~^olm\\.package&&" + mappable + "$", "file"},
			{"~^[^&]*&[^&]*&.", "catname"},
			{"~^(?:" + mappable + ")?&(?:" + mappable + ")?&$", "file"},
			{"default", "catvalue"}}},
		{"Their files (catalog/metas), relative to operators/<catalog>/.", "$upgraph_cat_s&$upgraph_cat_p&$upgraph_cat_n", "$upgraph_metas_file", []mapEntry{
			{"~^&&$", metas.AllFile},
			{"~^olm\\.package&&.", "metas/schema/olm.package/${upgraph_enc_n}.jsonl"},
			{"~^.+&&$", "metas/schema/${upgraph_enc_s}.jsonl"},
			{"~^&.+&$", "metas/package/${upgraph_enc_p}.jsonl"},
			{"~^.+&.+&$", "metas/package/${upgraph_enc_p}/${upgraph_enc_s}.jsonl"},
			{"default", metas.EmptyFile}}},
		encode("$upgraph_cat_s", "$upgraph_enc_s", "upgraph_es"),
		encode("$upgraph_cat_p", "$upgraph_enc_p", "upgraph_ep"),
		encode("$upgraph_cat_n", "$upgraph_enc_n", "upgraph_en"),
	}
}

// catalogResponses are catalogd's errors (http.Error: text/plain, nosniff)
// and the refusals, each with catalogd's Vary.
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
		text("catname", http.StatusNotImplemented, MetasNameRefusal),
		text("catdecode", http.StatusNotImplemented, MetasDecodeRefusal),
		text("catvalue", http.StatusNotImplemented, MetasValueRefusal),
	}
}
