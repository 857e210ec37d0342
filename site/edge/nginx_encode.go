package edge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/catalog/metas"
)

// nginx has no loop and no string function, so a raw query value is
// decoded (url.QueryUnescape) and encoded (metas.Encode) into its file
// name by a chain of maps. The state is "DONE/REST": DONE is encoded and
// never holds '/', REST is raw. Each stage moves up to encodeUnits units
// of REST — a run of bytes Encode keeps, then one byte it changes, raw
// or as a %XX escape — into DONE, looking each changed byte up in a
// table (nginxLookupMaps); a stage finding nothing to do leaves the state
// as it is. Runs of kept bytes cost nothing, changed bytes and %XX
// escapes a unit each:
// the chain encodes values of up to maxChanged changed bytes (any number
// of kept ones), and keeps a '/' in a longer one. Its size grows with
// maxChanged (about 400 bytes of configuration per changed byte and
// value), and a configuration must stay well under a ConfigMap's 1 MiB.
// A value with more changed bytes is mapped to no file (unmappedPath):
// the answer is empty, which is catalogd's unless the catalog has such a
// value (docs/operators.md states the bound).
const (
	maxChanged   = 200
	encodeUnits  = 4
	encodeStages = maxChanged / encodeUnits
)

// splitStages is how many times nginxSplitMaps can split an encoding:
// enough for any value a request line of nginx's default 8 KiB buffer
// (large_client_header_buffers) carries, kept bytes as they are and each
// changed byte at most three bytes encoded.
const splitStages = (8192+3*maxChanged)/metas.MaxEncoded + 1

// unmappedPath is the path of a value beyond the maps' bounds: '#'
// cannot be in a request's query, nor in a path they write.
const unmappedPath = "#"

// keptByte is a byte metas.Encode keeps (but for a leading '.', which the
// first map handles); unitByte one it changes, as sent or escaped ('%'
// always starts an escape: the pairs where it does not are dropped).
const (
	keptByte = `[0-9a-z.-]`
	unitByte = `%[0-9A-Fa-f]{2}|[^0-9a-z.%-]`
)

// nginxEncoderMaps set dst to the encoding of the raw value in src, not
// yet split (nginxSplitMaps): "" for an empty value, a value holding '/'
// when it has more than maxChanged changed bytes. tag keeps the maps'
// variables apart.
func nginxEncoderMaps(src, dst, tag string) []nginxMap {
	stage := func(i int) string { return "$upgraph_e" + tag + strconv.Itoa(i) }
	maps := []nginxMap{{
		Comment: "Encode " + src + " as catalog/metas.Encode does: a leading '.' first,\n" +
			"# then up to " + strconv.Itoa(encodeUnits) + " changed bytes per map (see site/edge/nginx_encode.go).",
		Source: src, Var: stage(0), Entries: []mapEntry{
			{"", ""},
			{`~^(?:\.|%2[Ee])(?<upgraph_lead>.*)$`, "~2e/${upgraph_lead}"},
			{"default", "/" + src}}}}
	for i := 1; i <= encodeStages; i++ {
		var es []mapEntry
		for n := encodeUnits; n >= 1; n-- {
			re, val := `~^(?<upgraph_d>[^/]*)/`, "${upgraph_d}"
			for j := 1; j <= n; j++ {
				re += fmt.Sprintf(`(?<upgraph_k%d>%s*)(?<upgraph_u%d>%s)`, j, keptByte, j, unitByte)
				val += fmt.Sprintf("${upgraph_k%d}${upgraph_l%d}", j, j)
			}
			es = append(es, mapEntry{re + `(?<upgraph_r>.*)$`, val + "/${upgraph_r}"})
		}
		es = append(es, mapEntry{`~^(?<upgraph_d>[^/]*)/(?<upgraph_k1>` + keptByte + `*)$`, "${upgraph_d}${upgraph_k1}"},
			mapEntry{"default", stage(i - 1)})
		maps = append(maps, nginxMap{Source: stage(i - 1), Var: stage(i), Entries: es})
	}
	// What is left after the last stage is done, or ends in kept bytes,
	// or has more than maxChanged changed bytes.
	return append(maps, nginxMap{Source: stage(encodeStages), Var: dst, Entries: []mapEntry{
		{`~^(?<upgraph_d>[^/]*)/(?<upgraph_k1>` + keptByte + `*)$`, "${upgraph_d}${upgraph_k1}"},
		{"default", stage(encodeStages)}}})
}

// nginxSplitMaps set dst to the path metas.Encode makes of the encoding
// in src: the '.' of a trailing ".jsonl" escaped, then, longer than
// metas.MaxEncoded, split into components of that many bytes, each but
// the last followed by metas.ContinueMark and '/'. Each stage splits the
// last component once; a value beyond the encoder's or the stages'
// bounds is unmappedPath.
func nginxSplitMaps(src, dst, tag string) []nginxMap {
	stage := func(i int) string { return "$upgraph_x" + tag + strconv.Itoa(i) }
	maps := []nginxMap{{
		Comment: "Split " + src + " into components of " + strconv.Itoa(metas.MaxEncoded) + " bytes, as catalog/metas.Encode does.",
		Source:  src, Var: stage(0), Entries: []mapEntry{
			{"~/", unmappedPath},
			{`~^(?<upgraph_j>.*)\.jsonl$`, "${upgraph_j}~2ejsonl"},
			{"default", src}}}}
	for i := 1; i <= splitStages; i++ {
		maps = append(maps, nginxMap{Source: stage(i - 1), Var: stage(i), Entries: []mapEntry{
			{fmt.Sprintf(`~^(?<upgraph_a>(?:.*/)?[^/]{%d})(?<upgraph_b>[^/]+)$`, metas.MaxEncoded), "${upgraph_a}" + metas.ContinueMark + "/${upgraph_b}"},
			{"default", stage(i - 1)}}})
	}
	return append(maps, nginxMap{Source: stage(splitStages), Var: dst, Entries: []mapEntry{
		{fmt.Sprintf(`~[^/]{%d}`, metas.MaxEncoded+len(metas.ContinueMark)+1), unmappedPath},
		{"default", stage(splitStages)}}})
}

// nginxLookupMaps are the tables of the encoder's stages: the encoding of
// a changed byte, sent as itself or as %XX. They are volatile, looked up
// again for each unit. Printable ASCII and escapes are exact strings,
// which nginx matches case-insensitively: "%2b" is "%2B", and "A" is 'A'
// since a lower-case letter is never looked up. A raw byte outside
// printable ASCII is a regex written with \xhh, so that the
// configuration is ASCII (a ConfigMap holds it); such a regex has no
// named group, and the stages use named groups only, which it leaves as
// they are. Encode's choices: '+' sent as itself is a space ("~20"),
// escaped it is '+' ("_"); an upper-case letter is "!" and the letter in
// lower case; any other byte "~hh". Control characters and the space
// never arrive unescaped (nginx refuses them in a request line), nor do
// '&', '#' and a '%' that does not start an escape.
func nginxLookupMaps() []nginxMap {
	es := []mapEntry{volatileEntry}
	for b := 0; b < 256; b++ {
		es = append(es, mapEntry{fmt.Sprintf("%%%02x", b), encodeByte(byte(b))})
	}
	for b := 0x21; b < 256; b++ {
		c := byte(b)
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '%' || c == '&' || c == '#':
			continue
		case c == '+':
			es = append(es, mapEntry{"+", encodeByte(' ')})
		case c >= 0x7f:
			es = append(es, mapEntry{fmt.Sprintf(`~^\x%02x$`, c), encodeByte(c)})
		case c == '~' || c == '\\':
			// A leading '~' would make the key a regex; nginx drops a
			// leading backslash.
			es = append(es, mapEntry{`\` + string([]byte{c}), encodeByte(c)})
		default:
			es = append(es, mapEntry{string([]byte{c}), encodeByte(c)})
		}
	}
	var maps []nginxMap
	for j := 1; j <= encodeUnits; j++ {
		m := nginxMap{Source: fmt.Sprintf("$upgraph_u%d", j), Var: fmt.Sprintf("$upgraph_l%d", j), Entries: es}
		if j == 1 {
			m.Comment = "The encoding of one changed byte, for the encoder's stages."
		}
		maps = append(maps, m)
	}
	return maps
}

// encodeByte is what metas.Encode writes for c past the first byte.
func encodeByte(c byte) string {
	if c == '.' {
		return "." // never first: the first map encodes a leading '.'
	}
	return strings.TrimPrefix(metas.Encode("a"+string([]byte{c})), "a")
}
