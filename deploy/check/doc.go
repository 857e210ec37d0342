// Package check tests the manifests under deploy/: every kustomization
// builds with kustomize's own library (krusty), every object it yields
// decodes strictly into the real Kubernetes or OpenShift type of its kind,
// and the facts the deployment promises hold (non-root, read-only root
// filesystem, probes, resources, limited egress, ...). The ClusterVersion
// patches under deploy/clusterversion decode into openshift/api's
// ClusterVersion.
//
// It is a module of its own, like internal/olmoracle and
// internal/registrytest/registryd, so that kustomize, k8s.io/api and
// openshift/api stay out of upgraph's go.mod; `make deploy-check` (part of
// `make test`) runs it.
package check
