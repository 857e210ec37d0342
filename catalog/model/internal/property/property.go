// Package property mirrors the property value types of operator-registry
// alpha/property (v1.73.0) that property.Parse decodes into, so that
// catalog/model's authoritative decode succeeds and fails exactly as
// upstream's, with the same messages ("... Go value of type
// property.GVK").
package property

import (
	v1 "github.com/upgraph/upgraph/catalog/model/internal/metav1"
	"github.com/upgraph/upgraph/catalog/model/internal/v1alpha1"
)

// Package is an olm.package value. Release is a pointer so that a
// release key (even "") can be told from none, as OLM v1 needs; it
// decodes and fails as upstream's string does.
type Package struct {
	PackageName string  `json:"packageName"`
	Version     string  `json:"version"`
	Release     *string `json:"release,omitzero"`
}

type Channel struct {
	ChannelName string `json:"channelName"`
}

type PackageRequired struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

type GVKRequired struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

type BundleObject struct {
	Data []byte `json:"data"`
}

type CSVMetadata struct {
	Annotations               map[string]string                  `json:"annotations,omitempty"`
	APIServiceDefinitions     v1alpha1.APIServiceDefinitions     `json:"apiServiceDefinitions,omitempty"`
	CustomResourceDefinitions v1alpha1.CustomResourceDefinitions `json:"crdDescriptions,omitempty"`
	Description               string                             `json:"description,omitempty"`
	DisplayName               string                             `json:"displayName,omitempty"`
	InstallModes              []v1alpha1.InstallMode             `json:"installModes,omitempty"`
	Keywords                  []string                           `json:"keywords,omitempty"`
	Labels                    map[string]string                  `json:"labels,omitempty"`
	Links                     []v1alpha1.AppLink                 `json:"links,omitempty"`
	Maintainers               []v1alpha1.Maintainer              `json:"maintainers,omitempty"`
	Maturity                  string                             `json:"maturity,omitempty"`
	MinKubeVersion            string                             `json:"minKubeVersion,omitempty"`
	NativeAPIs                []v1.GroupVersionKind              `json:"nativeAPIs,omitempty"`
	Provider                  v1alpha1.AppLink                   `json:"provider,omitempty"`
}
