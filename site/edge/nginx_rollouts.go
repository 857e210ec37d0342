package edge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/upgraph/upgraph/release/rollout"
	"github.com/upgraph/upgraph/site"
)

// rolloutNginx is the http-level part of the configuration for a tree with
// phased rollouts over n buckets (docs/rollouts.md): $upgraph_bucket is the
// bucket rollout.Bucket gives the query: a plain-decimal rollout_wariness
// W → ⌈W·n⌉ (regular expressions comparing W's digits with each k/n,
// exact since n divides 10,000), else nginx's own split_clients of the
// id, else of node_uuid (MurmurHash2, the hash serve and the CloudFront
// function reproduce), else the fixed bucket n. Values are the raw
// query's (serve decodes them first; a UUID reads the same either way).
func rolloutNginx(n int) string {
	var b strings.Builder
	b.WriteString("# Phased rollouts (docs/rollouts.md): the bucket of the query.\n")
	maps := []nginxMap{
		{"Raw values of the parameters that pick the bucket; the last occurrence wins.", "$args", "$upgraph_id", []mapEntry{
			{"~" + lastParam("id", "upgraph_i"), "$upgraph_i"}, {"default", ""}}},
		{"", "$args", "$upgraph_node_uuid", []mapEntry{
			{"~" + lastParam("node_uuid", "upgraph_u"), "$upgraph_u"}, {"default", ""}}},
		{"", "$args", "$upgraph_wariness", []mapEntry{
			{"~" + lastParam("rollout_wariness", "upgraph_w"), "$upgraph_w"}, {"default", ""}}},
		{"rollout_wariness W → ⌈W·N⌉, clamped to 0..N; not a plain decimal → \"\".", "$upgraph_wariness", "$upgraph_wariness_bucket", warinessEntries(n)},
		{"Wariness first, then id, then node_uuid, then the fixed bucket.", "$upgraph_wariness_bucket", "$upgraph_bucket", []mapEntry{
			{"", "$upgraph_id_or_uuid"}, {"default", "$upgraph_wariness_bucket"}}},
		{"", "$upgraph_id", "$upgraph_id_or_uuid", []mapEntry{{"", "$upgraph_uuid_or_none"}, {"default", "$upgraph_id_bucket"}}},
		{"", "$upgraph_node_uuid", "$upgraph_uuid_or_none", []mapEntry{
			{"", strconv.Itoa(rollout.NoIDBucket(n))}, {"default", "$upgraph_uuid_bucket"}}},
	}
	for _, m := range maps {
		if m.Comment != "" {
			fmt.Fprintf(&b, "# %s\n", m.Comment)
		}
		fmt.Fprintf(&b, "map %s %s {\n", m.Source, m.Var)
		for _, e := range m.Entries {
			key := nginxQuote(e.Key)
			if e.Key == "default" {
				key = "default"
			}
			fmt.Fprintf(&b, "    %s %s;\n", key, nginxQuote(e.Value))
		}
		b.WriteString("}\n")
	}
	b.WriteString("# split_clients: MurmurHash2 of the value, n equal shares, buckets 1..n.\n")
	for _, sc := range [][2]string{{"${upgraph_id}", "$upgraph_id_bucket"}, {"${upgraph_node_uuid}", "$upgraph_uuid_bucket"}} {
		fmt.Fprintf(&b, "split_clients %s %s {\n", nginxQuote(sc[0]), sc[1])
		for _, line := range splitClientsParts(n) {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// splitClientsParts are the split_clients lines for n equal buckets: n−1
// shares of 100/n % (two decimals, exact as n divides 10,000) and "*"
// for the last, as rollout.SplitBounds computes them.
func splitClientsParts(n int) []string {
	p := rollout.SplitPercent(n)
	var out []string
	for k := 1; k < n; k++ {
		out = append(out, fmt.Sprintf("%d.%02d%% %d;", p/100, p%100, k))
	}
	return append(out, fmt.Sprintf("* %d;", n))
}

// warinessEntries map a raw rollout_wariness to its bucket as
// rollout.WarinessBucket does, in order (nginx tries a map's regular
// expressions in order): negative and zero values, then W ≤ k/n for k =
// 1..n−1, then every other plain decimal (≥ (n−1)/n) to n. k/n has at
// most four decimals, T; a fraction .D is ≤ .T when D, padded with zeros,
// is ≤ T digit by digit (leDigits).
func warinessEntries(n int) []mapEntry {
	const plain = `(?:[0-9]+\.?[0-9]*|\.[0-9]+)`
	// The values are raw: a '+' is a space (invalid once decoded), %2B a
	// plus sign.
	const plus = `(?:%2[Bb])?`
	out := []mapEntry{
		{`~^(?:-|%2[Bb])?\.$`, ""},
		{`~^-` + plain + `$`, "0"},
		{`~^` + plus + `(?:0+\.?0*|\.0+)$`, "0"},
	}
	for k := 1; k < n; k++ {
		t := fmt.Sprintf("%04d", k*10000/n)
		out = append(out, mapEntry{`~^` + plus + `0*\.` + leDigits(strings.TrimRight(t, "0")) + `$`, strconv.Itoa(k)})
	}
	return append(out, mapEntry{`~^` + plus + plain + `$`, strconv.Itoa(n)}, mapEntry{"default", ""})
}

// leDigits matches a digit string D whose value as a fraction .D is at
// most .T: D ends (the rest reads as zeros), or its first digit is below
// T's, or equal and the rest is at most T's rest; past T only zeros.
func leDigits(t string) string {
	if t == "" {
		return `0*`
	}
	d := t[0] - '0'
	var alts []string
	if d > 0 {
		alts = append(alts, fmt.Sprintf(`[0-%d][0-9]*`, d-1))
	}
	alts = append(alts, string(t[0])+leDigits(t[1:]), "")
	return `(?:` + strings.Join(alts, "|") + `)`
}

// rolloutHeader is the header naming the bucket, as serve sends it.
const rolloutHeader = site.BucketHeader
