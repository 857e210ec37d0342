package validate

import "github.com/upgraph/upgraph/internal/problem"

// Rule describes one check. IDs B*, Y*, C1 and R1 are graph-data CI's own
// checks (spec §9.1–§9.3), P* the hard errors of upstream's parser (§3.11),
// "schema" the JSON schemas of package schema, and L-* lints upstream lacks.
type Rule struct {
	ID          string
	Description string
}

// Rule ids used more than once in the code.
const (
	RuleSchema = "schema"
)

// Rules lists every rule in report order.
var Rules = []Rule{
	{"P1", "the version file is SemVer with a supported major (warning for a newer minor)"},
	{"P2", "raw/metadata.json is an object of objects of strings keyed by SemVer versions (upstream skips other keys)"},
	{"P3", "blocked-edges/ and channels/ exist"},
	{"P4", "a channel name contains '-' (upstream panics sorting channel lists otherwise)"},
	{RuleSchema, "files match their JSON schema: channels/ and internal-channels/ YAML (schema.Channel), the blocked edges the graph-builder reads (schema.BlockedEdge), raw/metadata.json (schema.RawMetadata)"},
	{"B1", "every file under blocked-edges/ ends in .yaml (upstream's parser ignores .yml)"},
	{"B2", "a blocked-edges .yaml file is loadable YAML"},
	{"B3", "a blocked edge has 'to' and 'from'"},
	{"B4", "a conditional risk to X is declared in a file named X-<...>.yaml"},
	{"B5", "url starts with https://"},
	{"B6", "name is a CamelCase reason (^[A-Z][A-Za-z0-9_]*$)"},
	{"B7", "message is a string"},
	{"B8", "with matchingRules, url, name and message are set"},
	{"B9", "matchingRules is a non-empty list"},
	{"B10", "every matching rule has a type, no type twice in one file"},
	{"B11", "a matching rule's type is Always or PromQL"},
	{"B12", "an Always rule has no other keys"},
	{"B13", "a PromQL rule has exactly promql: {promql: <string>}"},
	{"B14", "risks sharing a name agree on every key but from, to and fixedIn"},
	{"Y1", "a top-level blocked-edges entry has an extension, is readable, and is exactly {to, from} or a conditional risk (SemVer to, valid from regex)"},
	{"Y2", "a channels/ or internal-channels/ entry has an extension and is readable"},
	{"C1", "stable-X ⊆ fast-X ⊆ candidate-X (X ≠ 4.1), each existing when the previous does"},
	{"R1", "every version graph-data names (channel versions, unconditional block targets) is among the releases"},
	{"L-channel-invalid", "a channels/ file parses as {name, versions: [SemVer…]} (upstream silently drops the whole channel)"},
	{"L-ignored-file", "channels/ holds no file upstream's parser ignores (.yml, other extensions)"},
	{"L-channel-file-name", "a channel file is named after its channel"},
	{"L-duplicate-channel", "no channel name is declared by two files"},
	{"L-duplicate-version", "no version is listed twice in one channel"},
	{"L-version-order", "channel versions are listed in SemVer order"},
	{"L-channel-release", "a channel entry with an explicit build selects a release of that build"},
	{"L-regex-unmatched", "a blocked edge's from regex matches some known version (channels ∪ releases, with arch suffix)"},
	{"L-to-unknown", "a blocked edge's to is in some channel"},
	{"L-duplicate-block", "no two unconditional blocks share a to (upstream keeps only the last)"},
	{"L-block-and-risk", "no known edge is both blocked unconditionally and carried by a conditional risk"},
	{"L-risk-arch", "a conditional risk's to has no build (upstream would apply it to every arch)"},
	{"L-risk-name-pattern", "a risk name matches ^[A-Z][A-Za-z0-9.-]*$, the CVO's pattern for risk names (pkg/risk validName; B6 also admits '_'); a warning, as the CVO applies it to its in-cluster risks only today"},
	{"L-risk-name-reserved", "a risk name is not one the CVO's in-cluster risk sources raise (ecosystem.md §8 F10: the Alert source's alert names such as PodDisruptionBudgetLimit, ClusterOperatorUpgradeable-<co> and …Unknown, AdminAckUnknown, ClusterVersionUpdating, ClusterVersionOverrides, ResourceDeletionInProgress[Unknown]; an error) and starts with none of their prefixes (Alert, ClusterOperatorUpgradeable, AdminAck, ClusterVersion, ResourceDeletionInProgress; a warning): clusters merge risks by name"},
	{"L-risk-divergent", "within one channel × arch graph, a risk name has one url, message and matchingRules (F1: clusters key risks by name and evaluate every update listing it with one body)"},
	{"L-multi-arch", "with releases: a channel listing a version with a multi release serves it for arch multi (its per-version file under graph/multi/), and release.openshift.io/architecture is exactly multi on multi releases and absent on the others (F3)"},
	{"L-rollout", "a rollouts/*.yaml file (docs/rollouts.md; upstream does not read rollouts/) is one rollout: version, start_epoch (Unix seconds), start_percentage (a fraction 0–1), optionally channels and duration_minutes (≥ 1), nothing else (also checked against schema.Rollout)"},
	{"L-rollout-conflict", "no two rollouts of one release apply in a common channel"},
	{"L-rollout-channel", "a rollout's channels exist and list its version"},
	{"L-rollout-unknown", "a rollout's version is in some channel (a warning: it would throttle nothing)"},
	{"L-rollout-file", "every file under rollouts/ ends in .yaml (others are not read)"},
}

// ruleOrder ranks the rules in Rules order.
var ruleOrder = problem.OrderOf(Rules, func(r Rule) string { return r.ID })
