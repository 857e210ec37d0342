// Package fbctest holds file-based catalog fixtures the tests of several
// layers share (catalog/model, tools/diff): the catalog text only, so that
// it sits in internal/, below the catalog pipeline that parses it
// (TestLayering); callers load or write it themselves.
package fbctest

import (
	"fmt"
	"strings"
)

// ReplacesChain is the FBC (JSON stream) of package p with one channel,
// stable, of n bundles p.v1.0.0 … p.v1.0.(n-1), each replacing the one
// before; with deprecatedHead the head carries the legacy olm.deprecated
// property (which prohibits installing it).
func ReplacesChain(n int, deprecatedHead bool) string {
	return replacesChain(n, deprecatedHead, "")
}

// ReplacesChainRequiring is ReplacesChain (no deprecated head) where every
// bundle of p requires package dep (olm.package.required, >=1.0.0), which
// comes first with one bundle, dep.v1.0.0, in its channel stable.
func ReplacesChainRequiring(n int, dep string) string {
	return replacesChain(n, false, dep)
}

func replacesChain(n int, deprecatedHead bool, dep string) string {
	var b strings.Builder
	if dep != "" {
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", dep)
		fmt.Fprintf(&b, `{"schema":"olm.channel","name":"stable","package":%q,"entries":[{"name":"%s.v1.0.0"}]}`+"\n", dep, dep)
		fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"%s.v1.0.0","package":%q,"image":"quay.io/x/%s:1","properties":[{"type":"olm.package","value":{"packageName":%q,"version":"1.0.0"}}]}`+"\n", dep, dep, dep, dep)
	}
	b.WriteString(`{"schema":"olm.package","name":"p","defaultChannel":"stable"}` + "\n")
	b.WriteString(`{"schema":"olm.channel","name":"stable","package":"p","entries":[`)
	for i := range n {
		if i > 0 {
			fmt.Fprintf(&b, `,{"name":"p.v1.0.%d","replaces":"p.v1.0.%d"}`, i, i-1)
		} else {
			b.WriteString(`{"name":"p.v1.0.0"}`)
		}
	}
	b.WriteString("]}\n")
	for i := range n {
		extra := ""
		if deprecatedHead && i == n-1 {
			extra = `,{"type":"olm.deprecated","value":{}}`
		}
		if dep != "" {
			extra += fmt.Sprintf(`,{"type":"olm.package.required","value":{"packageName":%q,"versionRange":">=1.0.0"}}`, dep)
		}
		fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"p.v1.0.%d","package":"p","image":"quay.io/x/p@sha256:%064d","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.%d"}}%s]}`+"\n", i, i, i, extra)
	}
	return b.String()
}
