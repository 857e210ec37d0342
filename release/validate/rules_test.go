package validate

import (
	"slices"
	"strings"
	"testing"
)

// TestValidateRules has one failing fixture per rule, each asserting exactly the
// problems found (file:line severity rule). Schema findings are left out
// unless a case expects one: the schemas have their own tests.
func TestValidateRules(t *testing.T) {
	risk := func(old, new string) string { return strings.Replace(riskYAML, old, new, 1) }
	riskTo := func(to string) string { return risk("to: 4.16.1", "to: "+to) }
	tests := []struct {
		name     string
		files    map[string]string
		releases []string          // nil: no --releases
		arch     map[string]string // Options.Architectures
		want     []string
	}{
		{name: "clean", want: nil},
		{name: "clean with block, risk and releases",
			files: map[string]string{
				"blocked-edges/4.16.1.yaml":             blockYAML,
				"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
			},
			releases: []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64"}},

		// Upstream parser errors (§3.11).
		{name: "P1 major", files: map[string]string{"version": "2.0.0\n"},
			want: []string{"version:1 error P1"}},
		{name: "P1 newer minor", files: map[string]string{"version": "1.3.0\n"},
			want: []string{"version:1 warning P1"}},
		{name: "P1 missing", files: map[string]string{"version": "-"},
			want: []string{"version:0 error P1"}},
		{name: "P2 shape", files: map[string]string{"raw/metadata.json": "{\n  \"4.1.0\": {\"k\": 1}\n}\n"},
			want: []string{"raw/metadata.json:2 error P2"}},
		{name: "P2 key not semver", files: map[string]string{"raw/metadata.json": "{\n  \"4.1.0\": {},\n  \"4.1\": {}\n}\n"},
			want: []string{"raw/metadata.json:3 error P2"}},
		{name: "P3", files: map[string]string{"blocked-edges": "-"},
			want: []string{"blocked-edges:0 error P3"}},
		{name: "P4", files: map[string]string{"channels/stable.yaml": channelYAML("stable", "4.16.0")},
			want: []string{"channels/stable.yaml:1 error P4"}},

		// hack/validate-blocked-edges.py (§9.1).
		{name: "B1 yml", files: map[string]string{"blocked-edges/4.16.1.yml": blockYAML},
			want: []string{"blocked-edges/4.16.1.yml:0 error B1"}},
		{name: "B1 no extension", files: map[string]string{"blocked-edges/OWNERS": "approvers: []\n"},
			want: []string{"blocked-edges/OWNERS:0 error B1"}},
		{name: "B1 yaaml is read upstream but rejected by CI", files: map[string]string{"blocked-edges/4.16.1.yaaml": blockYAML},
			want: []string{"blocked-edges/4.16.1.yaaml:0 error B1"}},
		{name: "B1 nested", files: map[string]string{"blocked-edges/old/4.16.1.txt": blockYAML},
			want: []string{"blocked-edges/old:0 error Y1", "blocked-edges/old/4.16.1.txt:0 error B1"}},
		{name: "B2", files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16.1\nfrom: [\n"},
			want: []string{"blocked-edges/4.16.1.yaml:2 error B2"}},
		{name: "B3", files: map[string]string{"blocked-edges/4.16.1.yaml": "from: .*\n"},
			want: []string{"blocked-edges/4.16.1.yaml:1 error B3", "blocked-edges/4.16.1.yaml:1 error Y1"}},
		{name: "B3 not a mapping", files: map[string]string{"blocked-edges/4.16.1.yaml": "- to: 4.16.1\n"},
			want: []string{"blocked-edges/4.16.1.yaml:1 error B3", "blocked-edges/4.16.1.yaml:1 error Y1"}},
		{name: "B4", files: map[string]string{"blocked-edges/4.16.0-ExampleRisk.yaml": riskYAML},
			want: []string{"blocked-edges/4.16.0-ExampleRisk.yaml:1 error B4"}},
		{name: "B5", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("https://", "http://")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:3 error B5"}},
		{name: "B6", files: map[string]string{"blocked-edges/4.16.1-exampleRisk.yaml": risk("name: ExampleRisk", "name: exampleRisk")},
			want: []string{"blocked-edges/4.16.1-exampleRisk.yaml:4 error B6"}},
		{name: "B6 YAML 1.1 boolean", files: map[string]string{"blocked-edges/4.16.1-Yes.yaml": risk("name: ExampleRisk", "name: Yes")},
			want: []string{"blocked-edges/4.16.1-Yes.yaml:4 error B6"}},
		{name: "B7", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("message: Something breaks.", "message: 42")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:5 error B7", "blocked-edges/4.16.1-ExampleRisk.yaml:5 error Y1"}},
		{name: "B8", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("url: https://issues.example.com/1\n", "")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:1 error Y1", "blocked-edges/4.16.1-ExampleRisk.yaml:5 error B8"}},
		{name: "B9", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("matchingRules:\n- type: Always\n", "matchingRules: []\n")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:6 error B9"}},
		{name: "B10 no type", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("- type: Always\n", "- promql: {promql: up}\n")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:7 error B10"}},
		{name: "B10 type twice", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML + "- type: Always\n"},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:8 error B10"}},
		{name: "B11", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("type: Always", "type: Sometimes")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:7 error B11"}},
		{name: "B12", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML + "  promql: {promql: up}\n"},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:8 error B12"}},
		{name: "B13 no promql", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("type: Always", "type: PromQL")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:7 error B13"}},
		{name: "B13 query not a string", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("type: Always", "type: PromQL\n  promql:\n    promql: [up]")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:9 error B13", "blocked-edges/4.16.1-ExampleRisk.yaml:9 error Y1"}},
		{name: "B13 extra key", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": risk("type: Always", "type: PromQL\n  promql:\n    promql: up\n    timeout: 5s")},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:10 error B13"}},
		{name: "B14", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
			"blocked-edges/4.16.2-ExampleRisk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "Something breaks.", "Something else breaks.").Replace(riskYAML),
			"channels/candidate-4.16.yaml":          channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
		},
			want: []string{"blocked-edges/4.16.2-ExampleRisk.yaml:4 error L-risk-divergent", "blocked-edges/4.16.2-ExampleRisk.yaml:5 error B14"}},
		{name: "B14 ignores formatting, key order and fixedIn", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
			"blocked-edges/4.16.2-ExampleRisk.yaml": "fixedIn: 4.16.3\nname: ExampleRisk\nto: 4.16.2\nfrom: .*\nmessage: |-\n  Something breaks.\nurl: \"https://issues.example.com/1\"\nmatchingRules: [{type: Always}]\n",
			"channels/candidate-4.16.yaml":          channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
		}},

		// graph-data.rs (§9.2, §9.3).
		{name: "Y1 neither shape", files: map[string]string{"blocked-edges/4.16.1.yaml": blockYAML + "fixedIn: 4.16.2\n"},
			want: []string{"blocked-edges/4.16.1.yaml:1 error Y1"}},
		{name: "Y1 to not SemVer", files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16\nfrom: .*\n"},
			want: []string{"blocked-edges/4.16.1.yaml:1 error Y1"}},
		{name: "Y1 bad regex", files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16.1\nfrom: 4.15.(\n"},
			want: []string{"blocked-edges/4.16.1.yaml:2 error Y1"}},
		{name: "Y1 duplicate key", files: map[string]string{"blocked-edges/4.16.1.yaml": blockYAML + "to: 4.16.0\n"},
			want: []string{"blocked-edges/4.16.1.yaml:3 error Y1"}},
		{name: "Y2", files: map[string]string{"channels/OWNERS": "approvers: []\n", "internal-channels/README": "x\n"},
			want: []string{"channels/OWNERS:0 error Y2", "internal-channels/README:0 error Y2"}},
		{name: "Y2 tolerates what is not a channel", files: map[string]string{"internal-channels/README.md": "# Internal channels\n"}},
		{name: "C1 missing version", files: map[string]string{"channels/stable-4.16.yaml": channelYAML("stable-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2")},
			want: []string{"channels/stable-4.16.yaml:6 error C1"}},
		{name: "C1 missing channel", files: map[string]string{"channels/fast-4.17.yaml": channelYAML("fast-4.17", "4.16.1")},
			want: []string{"channels/fast-4.17.yaml:1 error C1"}},
		{name: "C1 exempts 4.1 and ignores builds", files: map[string]string{
			"channels/stable-4.1.yaml": channelYAML("stable-4.1", "4.1.0"),
			"channels/fast-4.16.yaml":  channelYAML("fast-4.16", "4.15.0+amd64", "4.16.0", "4.16.1"),
		}},
		{name: "R1", releases: []string{"4.16.0+amd64", "4.16.1+amd64"},
			want: []string{"channels/candidate-4.16.yaml:3 error R1", "channels/fast-4.16.yaml:3 error R1", "channels/stable-4.16.yaml:3 error R1"}},
		{name: "R1 block target", releases: []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64"},
			files: map[string]string{"blocked-edges/4.16.5.yaml": "to: 4.16.5\nfrom: .*\n"},
			want:  []string{"blocked-edges/4.16.5.yaml:1 error R1", "blocked-edges/4.16.5.yaml:1 warning L-to-unknown"}},

		// Lints.
		{name: "L-channel-invalid", files: map[string]string{"channels/fast-4.16.yaml": channelYAML("fast-4.16", "4.15.0", "4.16", "4.16.1")},
			want: []string{"channels/fast-4.16.yaml:4 error L-channel-invalid", "channels/stable-4.16.yaml:1 error C1"}},
		{name: "L-ignored-file", files: map[string]string{"channels/eus-4.16.yml": channelYAML("eus-4.16", "4.16.0")},
			want: []string{"channels/eus-4.16.yml:0 warning L-ignored-file"}},
		{name: "L-channel-file-name", files: map[string]string{"channels/eus-4.16.yaml": channelYAML("eus-4.18", "4.16.0")},
			want: []string{"channels/eus-4.16.yaml:1 warning L-channel-file-name"}},
		{name: "L-duplicate-channel", files: map[string]string{"channels/stable-4.16-old.yaml": channelYAML("stable-4.16", "4.16.0")},
			want: []string{"channels/stable-4.16-old.yaml:1 warning L-channel-file-name", "channels/stable-4.16.yaml:1 warning L-duplicate-channel"}},
		{name: "L-duplicate-version", files: map[string]string{"channels/fast-4.16.yaml": channelYAML("fast-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.0")},
			want: []string{"channels/fast-4.16.yaml:6 warning L-duplicate-version", "channels/fast-4.16.yaml:6 warning L-version-order"}},
		{name: "L-version-order", files: map[string]string{"channels/candidate-4.16.yaml": channelYAML("candidate-4.16", "4.15.0", "4.16.1", "4.16.0", "4.16.0-rc.1", "4.16.2", "4.16.2-rc.0", "4.16.3-rc.10", "4.16.3-rc.2")},
			want: []string{"channels/candidate-4.16.yaml:5 warning L-version-order", "channels/candidate-4.16.yaml:10 warning L-version-order"}},
		{name: "L-channel-release", releases: []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64"},
			files: map[string]string{"channels/fast-4.16.yaml": channelYAML("fast-4.16", "4.15.0", "4.16.0+arm64", "4.16.1")},
			want:  []string{"channels/fast-4.16.yaml:4 warning L-channel-release"}},
		{name: "L-regex-unmatched", files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16.1\nfrom: ^4[.]15[.]0$\n"},
			want: []string{"blocked-edges/4.16.1.yaml:2 warning L-regex-unmatched"}},
		{name: "L-regex-unmatched against releases", releases: []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64"},
			files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16.1\nfrom: 4[.]15[.]0[+]arm64\n"},
			want:  []string{"blocked-edges/4.16.1.yaml:2 warning L-regex-unmatched"}},
		{name: "L-to-unknown", files: map[string]string{"blocked-edges/4.17.0-ExampleRisk.yaml": riskTo("4.17.0")},
			want: []string{"blocked-edges/4.17.0-ExampleRisk.yaml:1 warning L-to-unknown"}},
		{name: "L-duplicate-block", files: map[string]string{
			"blocked-edges/4.16.1.yaml":       blockYAML,
			"blocked-edges/4.16.1-again.yaml": "to: 4.16.1+amd64\nfrom: 4[.]16[.]0[+].*\n",
		},
			want: []string{"blocked-edges/4.16.1.yaml:1 warning L-duplicate-block"}},
		{name: "L-block-and-risk", files: map[string]string{
			"blocked-edges/4.16.1.yaml":             "to: 4.16.1\nfrom: 4[.]1[56][.]0[+].*\n",
			"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
		},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:2 warning L-block-and-risk"}},
		{name: "L-block-and-risk only for edges up to the target", files: map[string]string{
			"blocked-edges/4.16.1.yaml":             "to: 4.16.1\nfrom: 4[.]16[.][01][+].*\n",
			"blocked-edges/4.16.1-ExampleRisk.yaml": risk("from: 4[.]16[.]0[+].*", "from: 4[.]16[.]1[+].*"),
		}},
		{name: "L-risk-arch", files: map[string]string{"blocked-edges/4.16.1+amd64-ExampleRisk.yaml": riskTo("4.16.1+amd64")},
			want: []string{"blocked-edges/4.16.1+amd64-ExampleRisk.yaml:1 warning L-risk-arch"}},

		// What clusters do with risks (ecosystem.md §8 F1, F3, F10).
		{name: "L-risk-name-pattern", files: map[string]string{"blocked-edges/4.16.1-Example_Risk.yaml": risk("name: ExampleRisk", "name: Example_Risk")},
			want: []string{"blocked-edges/4.16.1-Example_Risk.yaml:4 warning L-risk-name-pattern"}},
		{name: "L-risk-name-pattern leaves what B6 rejects to B6", files: map[string]string{"blocked-edges/4.16.1-Example.Risk.yaml": risk("name: ExampleRisk", "name: Example.Risk")},
			want: []string{"blocked-edges/4.16.1-Example.Risk.yaml:4 error B6"}},
		{name: "L-risk-name-pattern only on risks upstream reads", files: map[string]string{"blocked-edges/old/4.16.1-Example_Risk.yaml": risk("name: ExampleRisk", "name: Example_Risk")},
			want: []string{"blocked-edges/old:0 error Y1"}},
		{name: "L-risk-name-reserved in-cluster source", files: map[string]string{"blocked-edges/4.16.1-ClusterVersionUpdating.yaml": risk("name: ExampleRisk", "name: ClusterVersionUpdating")},
			want: []string{"blocked-edges/4.16.1-ClusterVersionUpdating.yaml:4 error L-risk-name-reserved"}},
		{name: "L-risk-name-reserved alert", files: map[string]string{"blocked-edges/4.16.1-PodDisruptionBudgetLimit.yaml": risk("name: ExampleRisk", "name: PodDisruptionBudgetLimit")},
			want: []string{"blocked-edges/4.16.1-PodDisruptionBudgetLimit.yaml:4 error L-risk-name-reserved"}},
		{name: "L-risk-name-reserved ClusterOperatorUpgradeable-<co>", files: map[string]string{"blocked-edges/4.16.1-CO.yaml": risk("name: ExampleRisk", "name: ClusterOperatorUpgradeable-etcd")},
			want: []string{"blocked-edges/4.16.1-CO.yaml:4 error B6", "blocked-edges/4.16.1-CO.yaml:4 error L-risk-name-reserved"}},
		{name: "L-risk-name-reserved prefixes", files: map[string]string{
			"blocked-edges/4.16.1-AlertmanagerV1NotSupported.yaml":      risk("name: ExampleRisk", "name: AlertmanagerV1NotSupported"),
			"blocked-edges/4.16.1-ClusterVersionPreconditionCheck.yaml": risk("name: ExampleRisk", "name: ClusterVersionPreconditionCheck"),
			"blocked-edges/4.16.1-AdminAckRequired.yaml":                risk("name: ExampleRisk", "name: AdminAckRequired"),
		},
			want: []string{
				"blocked-edges/4.16.1-AdminAckRequired.yaml:4 warning L-risk-name-reserved",
				"blocked-edges/4.16.1-AlertmanagerV1NotSupported.yaml:4 warning L-risk-name-reserved",
				"blocked-edges/4.16.1-ClusterVersionPreconditionCheck.yaml:4 warning L-risk-name-reserved",
			}},
		{name: "L-risk-name-reserved only at the start", files: map[string]string{"blocked-edges/4.16.1-HyperShiftClusterVersionOperatorMetrics.yaml": risk("name: ExampleRisk", "name: HyperShiftClusterVersionOperatorMetrics")}},
		{name: "L-risk-divergent beside what B14 misses", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml":  riskYAML,
			"blocked-edges/4.16.2-ExampleRisk.yaaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "type: Always", "type: PromQL\n  promql:\n    promql: up").Replace(riskYAML),
			"channels/candidate-4.16.yaml":           channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
		},
			want: []string{"blocked-edges/4.16.2-ExampleRisk.yaaml:0 error B1", "blocked-edges/4.16.2-ExampleRisk.yaaml:4 error L-risk-divergent"}},
		{name: "L-risk-divergent ignores keys clusters do not see", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
			"blocked-edges/4.16.2-ExampleRisk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "type: Always", "type: Always\n  note: x").Replace(riskYAML) + "autoExtend: true\n",
			"channels/candidate-4.16.yaml":          channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
		},
			want: []string{"blocked-edges/4.16.2-ExampleRisk.yaml:6 error B14", "blocked-edges/4.16.2-ExampleRisk.yaml:8 error B12", "blocked-edges/4.16.2-ExampleRisk.yaml:9 error B14"}},
		{name: "L-risk-divergent not across channels", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
			"blocked-edges/4.17.1-ExampleRisk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.17.1", "4[.]16[.]0", "4[.]17[.]0", "Something breaks.", "Something else breaks.").Replace(riskYAML),
			"channels/candidate-4.17.yaml":          channelYAML("candidate-4.17", "4.17.0", "4.17.1"),
			"channels/fast-4.17.yaml":               channelYAML("fast-4.17", "4.17.0", "4.17.1"),
			"channels/stable-4.17.yaml":             channelYAML("stable-4.17", "4.17.0", "4.17.1"),
		},
			want: []string{"blocked-edges/4.17.1-ExampleRisk.yaml:5 error B14"}},
		{name: "L-risk-divergent not across arches", files: map[string]string{
			"blocked-edges/4.16.1-ExampleRisk.yaml": risk("[+].*", "[+]amd64"),
			"blocked-edges/4.16.2-ExampleRisk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "[+].*", "[+]arm64", "Something breaks.", "Something else breaks.").Replace(riskYAML),
			"channels/candidate-4.16.yaml":          channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
		},
			want: []string{"blocked-edges/4.16.2-ExampleRisk.yaml:5 error B14"}},
		{name: "L-risk-divergent in the release set's graphs", releases: []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.1+amd64", "4.16.0+arm64", "4.16.2+arm64"},
			files: map[string]string{
				"blocked-edges/4.16.1-ExampleRisk.yaml": riskYAML,
				"blocked-edges/4.16.2-ExampleRisk.yaml": strings.NewReplacer("to: 4.16.1", "to: 4.16.2", "Something breaks.", "Something else breaks.").Replace(riskYAML),
				"channels/candidate-4.16.yaml":          channelYAML("candidate-4.16", "4.15.0", "4.16.0", "4.16.1", "4.16.2"),
			},
			// 4.16.1 is amd64 only and 4.16.2 arm64 only: no graph has both risks.
			want: []string{"blocked-edges/4.16.2-ExampleRisk.yaml:5 error B14"}},
		{name: "L-multi-arch clean", releases: multiReleases, arch: map[string]string{"4.16.0+multi": "multi", "4.16.1+multi": "multi"}},
		{name: "L-multi-arch channel without the multi release", releases: multiReleases, arch: map[string]string{"4.16.0+multi": "multi", "4.16.1+multi": "multi"},
			files: map[string]string{"channels/fast-4.16.yaml": channelYAML("fast-4.16", "4.15.0", "4.16.0", "4.16.1+amd64")},
			want:  []string{"channels/fast-4.16.yaml:5 error L-multi-arch"}},
		{name: "L-multi-arch metadata missing or wrong", releases: multiReleases, arch: map[string]string{"4.16.1+multi": "Multi", "4.16.0+amd64": "amd64", "4.15.0+amd64": "multi"},
			want: []string{
				"channels/candidate-4.16.yaml:3 error L-multi-arch", // 4.15.0+amd64 says multi
				"channels/candidate-4.16.yaml:4 error L-multi-arch", // 4.16.0+amd64 says amd64
				"channels/candidate-4.16.yaml:4 error L-multi-arch", // 4.16.0+multi says nothing
				"channels/candidate-4.16.yaml:5 error L-multi-arch", // 4.16.1+multi says Multi
			}},
		{name: "L-multi-arch without metadata checks channels only", releases: multiReleases},
		{name: "L-multi-arch skips releases no channel lists", releases: append([]string{"4.17.0+multi"}, multiReleases...), arch: map[string]string{"4.16.0+multi": "multi", "4.16.1+multi": "multi"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var opts Options
			if tt.releases != nil {
				opts.Releases = versions(t, tt.releases...)
			}
			opts.Architectures = tt.arch
			ps := Validate(tree(tt.files), opts)
			wantSchema := slices.ContainsFunc(tt.want, func(w string) bool { return strings.HasSuffix(w, " "+RuleSchema) })
			var got []string
			for _, p := range ps {
				if p.Rule != RuleSchema || wantSchema {
					got = append(got, brief(p))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s\nall problems:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"), strings.Join(texts(ps), "\n\t"))
			}
		})
	}
}

// multiReleases are baseTree's versions, 4.16 with a multi payload.
var multiReleases = []string{"4.15.0+amd64", "4.16.0+amd64", "4.16.0+multi", "4.16.1+amd64", "4.16.1+multi"}

func texts(ps Problems) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// TestValidateSchemaProblems: schema violations no specific rule covers are
// reported; those a specific rule already reports on the same line are not
// repeated.
func TestValidateSchemaProblems(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{name: "blank message", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": strings.Replace(riskYAML, "Something breaks.", "' '", 1)},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:5 error schema"}},
		{name: "channel name", files: map[string]string{"channels/Fast-4.17.yaml": channelYAML("Fast-4.17", "4.16.0")},
			want: []string{"channels/Fast-4.17.yaml:1 error schema"}},
		{name: "internal channel", files: map[string]string{"internal-channels/fast.yaml": channelYAML("fast", "4.16")},
			want: []string{"internal-channels/fast.yaml:3 error schema"}},
		{name: "raw metadata value", files: map[string]string{"raw/metadata.json": "{\n  \"4.1.0\": {\n    \"url\": \"x\"\n  },\n  \"4.1.1\": []\n}\n"},
			want: []string{"raw/metadata.json:5 error P2"}},
		{name: "covered by B5", files: map[string]string{"blocked-edges/4.16.1-ExampleRisk.yaml": strings.Replace(riskYAML, "https://", "http://", 1)},
			want: []string{"blocked-edges/4.16.1-ExampleRisk.yaml:3 error B5"}},
		{name: "covered by Y1", files: map[string]string{"blocked-edges/4.16.1.yaml": "to: 4.16\nfrom: .*\n"},
			want: []string{"blocked-edges/4.16.1.yaml:1 error Y1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ps := Validate(tree(tt.files), Options{})
			var got []string
			for _, p := range ps {
				got = append(got, brief(p))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(texts(ps), "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}
