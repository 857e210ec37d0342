// Package v1 mirrors the one type of k8s.io/apimachinery/pkg/apis/meta/v1
// that an olm.csv.metadata property decodes into, so decoding errors read
// as upstream's ("... of type v1.GroupVersionKind").
package v1

// GroupVersionKind is metav1.GroupVersionKind's JSON shape.
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}
