package check

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	routev1 "github.com/openshift/api/route/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	sigsyaml "sigs.k8s.io/yaml"
)

const (
	image      = "ghcr.io/upgraph/upgraph"
	imageUID   = 65532
	listenPort = 8080
	// The measured peak RSS of a real-scale generation (deployment.yaml
	// gives the figures): the service's memory limit must hold 1.5 times
	// that plus the serve cache.
	generationPeakMiB = 373
	defaultCacheMB    = 512
)

// The kustomizations that run the service (a Deployment) and the ones that
// publish to S3 (a CronJob); those for OpenShift include
// components/openshift.
var (
	serviceBuilds = []string{"base", "overlays/openshift", "overlays/kubernetes"}
	cronJobBuilds = []string{"overlays/s3-cronjob", "overlays/s3-cronjob-openshift"}
)

func isOpenShift(dir string) bool { return strings.Contains(dir, "openshift") }

func meta(o runtime.Object) metav1.Object {
	m, err := apimeta.Accessor(o)
	if err != nil {
		panic(err)
	}
	return m
}

// workload is a pod template with where it comes from.
type workload struct {
	name   string
	labels map[string]string
	spec   corev1.PodSpec
}

func workloads(b *build) []workload {
	var out []workload
	for _, d := range all[*appsv1.Deployment](b) {
		out = append(out, workload{"Deployment " + d.Name, d.Spec.Template.Labels, d.Spec.Template.Spec})
	}
	for _, c := range all[*batchv1.CronJob](b) {
		tpl := c.Spec.JobTemplate.Spec.Template
		out = append(out, workload{"CronJob " + c.Name, tpl.Labels, tpl.Spec})
	}
	return out
}

// flags splits an upgraph command line into its command (the first word
// after the global flags), its --flag values (last wins) and its other
// arguments. Every flag is written --name=value or is a boolean.
func flags(t *testing.T, where string, args []string) (cmd string, values map[string]string, positional []string) {
	t.Helper()
	values = map[string]string{}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok {
			n, v, hasValue := strings.Cut(name, "=")
			if !hasValue {
				v = "true"
			}
			if cmd != "" {
				values[n] = v
			}
			continue
		}
		if cmd == "" {
			cmd = a
			continue
		}
		positional = append(positional, a)
	}
	if cmd == "" {
		t.Errorf("%s: no upgraph command in %q", where, args)
	}
	return cmd, values, positional
}

// TestPodSecurityAndResources checks every container and init container of
// every build: the restricted Pod Security Standard and more (non-root, a
// read-only root filesystem, no privilege escalation, no capability,
// RuntimeDefault seccomp), the image's UID except on OpenShift (where the
// restricted-v2 SCC assigns one and refuses any other), no service account
// token, CPU and memory requests and limits, size-limited emptyDirs, and
// that what the arguments and environment refer to exists: $(VARS),
// ConfigMap keys, the volume mounted for DOCKER_CONFIG and --ca-file.
func TestPodSecurityAndResources(t *testing.T) {
	for _, dir := range findKustomizations(t) {
		b := kustomize(t, dir)
		ws := workloads(b)
		if len(ws) == 0 {
			t.Errorf("deploy/%s: no Deployment or CronJob", dir)
		}
		for _, w := range ws {
			checkPod(t, b, "deploy/"+dir+": "+w.name, w.spec, isOpenShift(dir))
		}
	}
}

func checkPod(t *testing.T, b *build, where string, spec corev1.PodSpec, openshift bool) {
	t.Helper()
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s: automountServiceAccountToken must be false", where)
	}
	if spec.HostNetwork || spec.HostPID || spec.HostIPC {
		t.Errorf("%s: host namespaces", where)
	}
	psc := spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	if openshift && (psc.RunAsUser != nil || psc.RunAsGroup != nil || psc.FSGroup != nil) {
		t.Errorf("%s: runAsUser/runAsGroup/fsGroup set: the restricted-v2 SCC refuses IDs outside the namespace's range", where)
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
		if v.EmptyDir != nil && v.EmptyDir.SizeLimit == nil {
			t.Errorf("%s: emptyDir %s has no sizeLimit", where, v.Name)
		}
		if v.HostPath != nil {
			t.Errorf("%s: hostPath volume %s", where, v.Name)
		}
		if v.PersistentVolumeClaim != nil && !slices.ContainsFunc(all[*corev1.PersistentVolumeClaim](b), func(p *corev1.PersistentVolumeClaim) bool {
			return p.Name == v.PersistentVolumeClaim.ClaimName
		}) {
			t.Errorf("%s: volume %s: no PersistentVolumeClaim %s in the build", where, v.Name, v.PersistentVolumeClaim.ClaimName)
		}
	}
	containers := append(slices.Clone(spec.InitContainers), spec.Containers...)
	for _, c := range containers {
		cw := where + ": container " + c.Name
		if !strings.HasPrefix(c.Image, image+":") && !strings.HasPrefix(c.Image, image+"@") {
			t.Errorf("%s: image %q, want %s", cw, c.Image, image)
		}
		if len(c.Command) != 0 {
			t.Errorf("%s: command %q: the image's entrypoint is upgraph, give args only", cw, c.Command)
		}
		checkSecurity(t, cw, psc, c.SecurityContext, openshift)
		checkResources(t, cw, c.Resources)

		mounts := map[string]corev1.Volume{} // by mount path
		for _, m := range c.VolumeMounts {
			v, ok := volumes[m.Name]
			if !ok {
				t.Errorf("%s: mount of unknown volume %s", cw, m.Name)
				continue
			}
			mounts[m.MountPath] = v
		}
		if v, ok := mounts["/tmp"]; !ok || v.EmptyDir == nil {
			t.Errorf("%s: /tmp must be an emptyDir (the root filesystem is read-only)", cw)
		}

		env := map[string]corev1.EnvVar{}
		for _, e := range c.Env {
			env[e.Name] = e
			if e.ValueFrom == nil {
				continue
			}
			if ref := e.ValueFrom.ConfigMapKeyRef; ref != nil {
				if !slices.ContainsFunc(all[*corev1.ConfigMap](b), func(cm *corev1.ConfigMap) bool {
					_, ok := cm.Data[ref.Key]
					return cm.Name == ref.Name && ok
				}) {
					t.Errorf("%s: env %s: no ConfigMap %s with key %s in the build", cw, e.Name, ref.Name, ref.Key)
				}
			}
		}
		varRef := regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)
		for _, a := range c.Args {
			for _, m := range varRef.FindAllStringSubmatch(a, -1) {
				if _, ok := env[m[1]]; !ok {
					t.Errorf("%s: argument %q refers to $(%s), which the container's env does not define", cw, a, m[1])
				}
			}
		}
		if dc, ok := env["DOCKER_CONFIG"]; ok {
			v, ok := mounts[dc.Value]
			if !ok || v.Secret == nil || len(v.Secret.Items) != 1 ||
				v.Secret.Items[0].Key != corev1.DockerConfigJsonKey || v.Secret.Items[0].Path != "config.json" {
				t.Errorf("%s: DOCKER_CONFIG=%s must be a Secret volume mounting %s as config.json", cw, dc.Value, corev1.DockerConfigJsonKey)
			}
		}
		_, values, _ := flags(t, cw, c.Args)
		if ca, ok := values["ca-file"]; ok {
			v, ok := mounts[path.Dir(ca)]
			if !ok || v.ConfigMap == nil || !slices.Contains(v.ConfigMap.Items, corev1.KeyToPath{Key: "updateservice-registry", Path: path.Base(ca)}) {
				t.Errorf("%s: --ca-file=%s must be key updateservice-registry of a mounted ConfigMap (the key the OSUS operator reads)", cw, ca)
			}
		}
	}
}

func checkSecurity(t *testing.T, where string, pod *corev1.PodSecurityContext, c *corev1.SecurityContext, openshift bool) {
	t.Helper()
	if c == nil {
		c = &corev1.SecurityContext{}
	}
	runAsNonRoot := c.RunAsNonRoot
	if runAsNonRoot == nil {
		runAsNonRoot = pod.RunAsNonRoot
	}
	if runAsNonRoot == nil || !*runAsNonRoot {
		t.Errorf("%s: runAsNonRoot must be true", where)
	}
	runAsUser := c.RunAsUser
	if runAsUser == nil {
		runAsUser = pod.RunAsUser
	}
	switch {
	case openshift && (c.RunAsUser != nil || c.RunAsGroup != nil):
		t.Errorf("%s: runAsUser/runAsGroup set: leave them to the restricted-v2 SCC", where)
	case !openshift && runAsUser == nil:
		t.Errorf("%s: no runAsUser, want the image's %d", where, imageUID)
	case !openshift && *runAsUser != imageUID:
		t.Errorf("%s: runAsUser %d, want the image's %d", where, *runAsUser, imageUID)
	}
	if c.ReadOnlyRootFilesystem == nil || !*c.ReadOnlyRootFilesystem {
		t.Errorf("%s: readOnlyRootFilesystem must be true", where)
	}
	if c.AllowPrivilegeEscalation == nil || *c.AllowPrivilegeEscalation {
		t.Errorf("%s: allowPrivilegeEscalation must be false", where)
	}
	if c.Privileged != nil && *c.Privileged {
		t.Errorf("%s: privileged", where)
	}
	if c.Capabilities == nil || !slices.Contains(c.Capabilities.Drop, "ALL") || len(c.Capabilities.Add) != 0 {
		t.Errorf("%s: capabilities must drop ALL and add none", where)
	}
	seccomp := c.SeccompProfile
	if seccomp == nil {
		seccomp = pod.SeccompProfile
	}
	if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: seccompProfile must be RuntimeDefault", where)
	}
}

func checkResources(t *testing.T, where string, r corev1.ResourceRequirements) {
	t.Helper()
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := r.Requests[name]
		lim, okLim := r.Limits[name]
		if !okReq || !okLim || req.IsZero() || lim.IsZero() {
			t.Errorf("%s: %s request and limit must both be set", where, name)
			continue
		}
		if req.Cmp(lim) > 0 {
			t.Errorf("%s: %s request %s above its limit %s", where, name, req.String(), lim.String())
		}
	}
}

// TestServiceDeployment checks the builds that run `upgraph service`: two
// replicas kept at least one by a PodDisruptionBudget, the command and its
// key flags, the HTTP port, /readyz for readiness and startup (with time
// for a cold first scrape), /healthz for liveness, --data on a
// size-limited emptyDir, a memory limit that holds the measured generation
// peak 1.5 times plus the serve cache, and a Service on port 8080 named
// http in front of it.
func TestServiceDeployment(t *testing.T) {
	for _, dir := range serviceBuilds {
		b := kustomize(t, dir)
		where := "deploy/" + dir
		d := one[*appsv1.Deployment](t, b)
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("%s: replicas %v, want 2", where, d.Spec.Replicas)
		}
		if ru := d.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
			t.Errorf("%s: rolling update must keep every ready pod (maxUnavailable 0) until the new one serves", where)
		}
		podLabels := labels.Set(d.Spec.Template.Labels)
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || !sel.Matches(podLabels) {
			t.Errorf("%s: the Deployment's selector does not match its pods (%v)", where, err)
		}

		pdb := one[*policyv1.PodDisruptionBudget](t, b)
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 {
			t.Errorf("%s: PodDisruptionBudget minAvailable %v, want 1", where, pdb.Spec.MinAvailable)
		}
		if s, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil || s.Empty() || !s.Matches(podLabels) {
			t.Errorf("%s: the PodDisruptionBudget's selector does not match the pods", where)
		}

		if len(d.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers, want 1", where, len(d.Spec.Template.Spec.Containers))
		}
		c := d.Spec.Template.Spec.Containers[0]
		cmd, values, positional := flags(t, where, c.Args)
		if cmd != "service" {
			t.Errorf("%s: runs upgraph %q, want service", where, cmd)
		}
		if len(positional) != 0 {
			t.Errorf("%s: service takes no arguments, got %q", where, positional)
		}
		if values["listen"] != ":8080" {
			t.Errorf("%s: --listen=%q, want :8080 (the default 127.0.0.1:8080 is unreachable in a pod)", where, values["listen"])
		}
		for _, f := range []string{"releases", "graph-data-image", "data"} {
			if values[f] == "" {
				t.Errorf("%s: no --%s", where, f)
			}
		}
		dataIsEmptyDir := false
		for _, m := range c.VolumeMounts {
			if m.MountPath == values["data"] {
				for _, v := range d.Spec.Template.Spec.Volumes {
					dataIsEmptyDir = dataIsEmptyDir || (v.Name == m.Name && v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil)
				}
			}
		}
		if !dataIsEmptyDir {
			t.Errorf("%s: --data=%s must be a size-limited emptyDir (the root filesystem is read-only)", where, values["data"])
		}
		if !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool {
			return p.Name == "http" && p.ContainerPort == listenPort && p.Protocol == corev1.ProtocolTCP
		}) {
			t.Errorf("%s: no container port http %d/TCP", where, listenPort)
		}
		checkProbe(t, where+": readinessProbe", c.ReadinessProbe, "/readyz")
		checkProbe(t, where+": livenessProbe", c.LivenessProbe, "/healthz")
		checkProbe(t, where+": startupProbe", c.StartupProbe, "/readyz")
		if p := c.StartupProbe; p != nil && p.PeriodSeconds*p.FailureThreshold < 15*60 {
			t.Errorf("%s: the startup probe allows %d s: a first scrape of thousands of tags needs more than 15 minutes' allowance",
				where, p.PeriodSeconds*p.FailureThreshold)
		}
		cacheMB := int64(defaultCacheMB)
		if v, ok := values["cache-mb"]; ok {
			q, err := resource.ParseQuantity(v)
			if err != nil {
				t.Fatalf("%s: --cache-mb=%s: %v", where, v, err)
			}
			cacheMB = q.Value()
		}
		want := resource.NewQuantity((generationPeakMiB*3/2+cacheMB)<<20, resource.BinarySI)
		if lim := c.Resources.Limits[corev1.ResourceMemory]; lim.Cmp(*want) < 0 {
			t.Errorf("%s: memory limit %s below 1.5 x %d MiB (measured generation peak) + %d MiB (--cache-mb) = %s",
				where, lim.String(), generationPeakMiB, cacheMB, want.String())
		}

		svc := one[*corev1.Service](t, b)
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) || len(svc.Spec.Selector) == 0 {
			t.Errorf("%s: the Service's selector does not match the pods", where)
		}
		if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "http" || svc.Spec.Ports[0].Port != listenPort ||
			svc.Spec.Ports[0].TargetPort != intstr.FromString("http") {
			t.Errorf("%s: Service ports %+v, want one port 8080 named http to the container port http", where, svc.Spec.Ports)
		}
	}
}

func checkProbe(t *testing.T, where string, p *corev1.Probe, wantPath string) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s: want an HTTP GET of %s", where, wantPath)
		return
	}
	if p.HTTPGet.Path != wantPath || p.HTTPGet.Port != intstr.FromString("http") {
		t.Errorf("%s: GET %s on port %s, want %s on http", where, p.HTTPGet.Path, p.HTTPGet.Port.String(), wantPath)
	}
}

// TestNetworkPolicies: each workload's pods are selected by exactly one
// NetworkPolicy of its build, which restricts both directions: ingress
// only to TCP 8080 (none at all for the publishing CronJob), egress only
// to listed destinations on listed ports (no rule open to everything, no
// 0.0.0.0/0), DNS included (openshift-dns on 5353 on OpenShift, kube-dns
// on 53 elsewhere).
func TestNetworkPolicies(t *testing.T) {
	for _, dir := range findKustomizations(t) {
		b := kustomize(t, dir)
		for _, w := range workloads(b) {
			where := "deploy/" + dir + ": " + w.name
			var selecting []*networkingv1.NetworkPolicy
			for _, np := range all[*networkingv1.NetworkPolicy](b) {
				s, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
				if err != nil {
					t.Fatal(err)
				}
				if !s.Empty() && s.Matches(labels.Set(w.labels)) {
					selecting = append(selecting, np)
				}
			}
			if len(selecting) != 1 {
				t.Errorf("%s: selected by %d NetworkPolicies, want 1", where, len(selecting))
				continue
			}
			checkNetworkPolicy(t, where, selecting[0], strings.HasPrefix(w.name, "Deployment"), isOpenShift(dir))
		}
	}
}

func checkNetworkPolicy(t *testing.T, where string, np *networkingv1.NetworkPolicy, serves, openshift bool) {
	t.Helper()
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Errorf("%s: policyTypes %v, want Ingress and Egress", where, np.Spec.PolicyTypes)
	}
	if !serves && len(np.Spec.Ingress) != 0 {
		t.Errorf("%s: serves nothing, yet ingress is allowed", where)
	}
	if serves && len(np.Spec.Ingress) == 0 {
		t.Errorf("%s: no ingress rule: clusters could not reach port %d", where, listenPort)
	}
	for _, r := range np.Spec.Ingress {
		if len(r.Ports) != 1 || r.Ports[0].Port == nil || r.Ports[0].Port.IntValue() != listenPort ||
			r.Ports[0].Protocol == nil || *r.Ports[0].Protocol != corev1.ProtocolTCP {
			t.Errorf("%s: ingress rule %+v, want TCP %d only", where, r, listenPort)
		}
	}
	if len(np.Spec.Egress) == 0 {
		t.Errorf("%s: no egress rule: the registry and DNS are needed", where)
	}
	dnsPort, dnsNamespace := int32(53), "kube-system"
	if openshift {
		dnsPort, dnsNamespace = 5353, "openshift-dns"
	}
	allowed := map[int32]bool{443: true, 5000: true, 8443: true, dnsPort: true}
	dns := false
	for i, r := range np.Spec.Egress {
		if len(r.To) == 0 || len(r.Ports) == 0 {
			t.Errorf("%s: egress rule %d is open to every destination or every port", where, i)
		}
		for _, p := range r.Ports {
			if p.Port == nil || p.EndPort != nil || !allowed[int32(p.Port.IntValue())] {
				t.Errorf("%s: egress rule %d: port %v (a range or not one of %v)", where, i, p.Port, allowed)
			}
		}
		isDNS := true
		for _, p := range r.Ports {
			isDNS = isDNS && p.Port != nil && int32(p.Port.IntValue()) == dnsPort
		}
		for _, peer := range r.To {
			if peer.IPBlock != nil {
				if peer.IPBlock.CIDR == "0.0.0.0/0" || peer.IPBlock.CIDR == "::/0" {
					t.Errorf("%s: egress rule %d: %s is everywhere", where, i, peer.IPBlock.CIDR)
				}
				isDNS = false
				continue
			}
			if peer.NamespaceSelector == nil || peer.PodSelector == nil || len(peer.PodSelector.MatchLabels) == 0 ||
				peer.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != dnsNamespace {
				t.Errorf("%s: egress rule %d: peer %+v, want the %s DNS pods", where, i, peer, dnsNamespace)
			}
		}
		if isDNS {
			dns = slices.ContainsFunc(r.Ports, func(p networkingv1.NetworkPolicyPort) bool {
				return p.Protocol != nil && *p.Protocol == corev1.ProtocolUDP
			})
		}
	}
	if !dns {
		t.Errorf("%s: no egress rule for DNS (UDP %d to %s)", where, dnsPort, dnsNamespace)
	}
}

// TestOpenShiftRoute: the OpenShift overlay exposes the Service through a
// Route as the OSUS operator does (edge TLS, no plain HTTP) and nothing
// else; the Kubernetes overlay through a TLS Ingress; base through neither.
func TestOpenShiftRoute(t *testing.T) {
	b := kustomize(t, "overlays/openshift")
	r := one[*routev1.Route](t, b)
	svc := one[*corev1.Service](t, b)
	if r.Spec.To.Kind != "Service" || r.Spec.To.Name != svc.Name {
		t.Errorf("Route to %s %s, want Service %s", r.Spec.To.Kind, r.Spec.To.Name, svc.Name)
	}
	if r.Spec.Port == nil || r.Spec.Port.TargetPort != intstr.FromString(svc.Spec.Ports[0].Name) {
		t.Errorf("Route port %v, want the Service's port %s", r.Spec.Port, svc.Spec.Ports[0].Name)
	}
	if r.Spec.TLS == nil || r.Spec.TLS.Termination != routev1.TLSTerminationEdge ||
		r.Spec.TLS.InsecureEdgeTerminationPolicy != routev1.InsecureEdgeTerminationPolicyNone {
		t.Errorf("Route TLS %+v, want edge termination without plain HTTP", r.Spec.TLS)
	}
	if n := len(all[*networkingv1.Ingress](b)); n != 0 {
		t.Errorf("%d Ingresses besides the Route", n)
	}
	if n := len(all[*routev1.Route](kustomize(t, "base"))) + len(all[*networkingv1.Ingress](kustomize(t, "base"))); n != 0 {
		t.Errorf("base has %d Routes or Ingresses: they belong in the overlays", n)
	}
}

func TestKubernetesIngress(t *testing.T) {
	b := kustomize(t, "overlays/kubernetes")
	ing := one[*networkingv1.Ingress](t, b)
	svc := one[*corev1.Service](t, b)
	if len(ing.Spec.TLS) == 0 || ing.Spec.TLS[0].SecretName == "" {
		t.Errorf("Ingress without TLS: the cluster-version operator should reach its upstream over HTTPS")
	}
	backends := 0
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		if len(ing.Spec.TLS) > 0 && !slices.Contains(ing.Spec.TLS[0].Hosts, rule.Host) {
			t.Errorf("Ingress host %s is not covered by its TLS", rule.Host)
		}
		for _, p := range rule.HTTP.Paths {
			backends++
			s := p.Backend.Service
			if s == nil || s.Name != svc.Name || s.Port.Name != svc.Spec.Ports[0].Name {
				t.Errorf("Ingress path %s: backend %+v, want Service %s port %s", p.Path, p.Backend, svc.Name, svc.Spec.Ports[0].Name)
			}
		}
	}
	if backends == 0 {
		t.Error("Ingress has no backend")
	}
	if n := len(all[*routev1.Route](b)); n != 0 {
		t.Errorf("%d Routes in the Kubernetes overlay", n)
	}
}

// TestS3CronJob: the S3 variant is a CronJob and nothing that serves (no
// Deployment, Service, Route, Ingress or PodDisruptionBudget); runs never
// overlap; `generate` runs as the init container into an emptyDir that
// `publish` then reads (read-only) and uploads, flags before its two
// arguments; the scrape cache is on the PVC; the S3 credentials come from
// a Secret, to the publishing container only.
func TestS3CronJob(t *testing.T) {
	for _, dir := range cronJobBuilds {
		b := kustomize(t, dir)
		where := "deploy/" + dir
		for _, n := range []int{len(all[*appsv1.Deployment](b)), len(all[*corev1.Service](b)), len(all[*routev1.Route](b)),
			len(all[*networkingv1.Ingress](b)), len(all[*policyv1.PodDisruptionBudget](b))} {
			if n != 0 {
				t.Errorf("%s: serves something (a Deployment, Service, Route, Ingress or PodDisruptionBudget)", where)
			}
		}
		cj := one[*batchv1.CronJob](t, b)
		if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
			t.Errorf("%s: concurrencyPolicy %q, want Forbid", where, cj.Spec.ConcurrencyPolicy)
		}
		spec := cj.Spec.JobTemplate.Spec.Template.Spec
		if len(spec.InitContainers) != 1 || len(spec.Containers) != 1 {
			t.Fatalf("%s: %d init containers and %d containers, want 1 and 1", where, len(spec.InitContainers), len(spec.Containers))
		}
		gen, pub := spec.InitContainers[0], spec.Containers[0]
		gcmd, gflags, gpos := flags(t, where, gen.Args)
		pcmd, pflags, ppos := flags(t, where, pub.Args)
		if gcmd != "generate" || pcmd != "publish" {
			t.Fatalf("%s: runs %s then %s, want generate then publish", where, gcmd, pcmd)
		}
		if len(gpos) != 0 {
			t.Errorf("%s: generate takes no arguments, got %q", where, gpos)
		}
		if !strings.HasPrefix(gflags["releases"], "registry:") || !strings.HasPrefix(gflags["graph-data"], "image:") {
			t.Errorf("%s: generate --releases=%s --graph-data=%s, want registry:… and image:…", where, gflags["releases"], gflags["graph-data"])
		}
		out := gflags["out"]
		if len(ppos) != 2 || ppos[0] != out || !strings.HasPrefix(ppos[1], "s3://") && !strings.HasPrefix(ppos[1], "$(") {
			t.Errorf("%s: publish %q, want the tree generate writes (%s) and s3://BUCKET/PREFIX, after the flags", where, ppos, out)
		}
		// The last word of publish's command line is an argument: a flag
		// after it would not be parsed.
		if last := pub.Args[len(pub.Args)-1]; strings.HasPrefix(last, "--") {
			t.Errorf("%s: publish ends with the flag %s: flags after the arguments are not parsed", where, last)
		}
		if _, ok := pflags["delete"]; !ok {
			t.Errorf("%s: publish without --delete leaves stale per-version objects a CDN would still serve", where)
		}
		volume := func(c corev1.Container, dir string) (corev1.VolumeMount, *corev1.Volume) {
			for _, m := range c.VolumeMounts {
				if m.MountPath == dir || strings.HasPrefix(dir, m.MountPath+"/") {
					for i := range spec.Volumes {
						if spec.Volumes[i].Name == m.Name {
							return m, &spec.Volumes[i]
						}
					}
				}
			}
			return corev1.VolumeMount{}, nil
		}
		gm, gv := volume(gen, out)
		pm, pv := volume(pub, out)
		if gv == nil || pv == nil || gv != pv || gv.EmptyDir == nil || gm.MountPath != pm.MountPath {
			t.Errorf("%s: --out=%s must be on an emptyDir mounted at the same path in both containers", where, out)
		}
		if !pm.ReadOnly {
			t.Errorf("%s: publish should mount the tree read-only", where)
		}
		if _, cv := volume(gen, gflags["cache"]); cv == nil || cv.PersistentVolumeClaim == nil {
			t.Errorf("%s: --cache=%s should be on the PersistentVolumeClaim (a warm scrape is one HEAD per tag)", where, gflags["cache"])
		}
		secretEnv := func(c corev1.Container, name string) bool {
			return slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
				return e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil
			})
		}
		for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			if !secretEnv(pub, name) {
				t.Errorf("%s: publish: %s must come from a Secret", where, name)
			}
			if slices.ContainsFunc(gen.Env, func(e corev1.EnvVar) bool { return e.Name == name }) {
				t.Errorf("%s: generate does not need %s", where, name)
			}
		}
	}
}

// TestClusterVersionPatches decodes each file of deploy/clusterversion (a
// JSON merge patch for `oc patch clusterversion version`) strictly into
// openshift/api's ClusterVersion: spec.upstream is the Route's HTTPS
// /api/upgrades_info/graph, spec.channel a valid channel name, and
// spec.signatureStores the same host's /api/upgrades_info/signatures.
func TestClusterVersionPatches(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(deployDir, "clusterversion", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no deploy/clusterversion/*.yaml (%v)", err)
	}
	route := one[*routev1.Route](t, kustomize(t, "overlays/openshift"))
	// The host the router assigns: <route>-<namespace>.<apps domain>.
	hostPrefix := route.Name + "-" + route.Namespace + "."
	var upstream *configv1.ClusterVersion
	var stores []configv1.SignatureStore
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := sigsyaml.Unmarshal(data, &top); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(top) != 1 || top["spec"] == nil {
			t.Errorf("%s: a ClusterVersion merge patch should hold spec only", f)
		}
		top["apiVersion"], top["kind"] = configv1.GroupVersion.String(), "ClusterVersion"
		doc, err := sigsyaml.Marshal(top)
		if err != nil {
			t.Fatal(err)
		}
		obj, _, err := decodeStrict(doc)
		if err != nil {
			t.Fatalf("%s: does not decode strictly into a ClusterVersion: %v", f, err)
		}
		cv := obj.(*configv1.ClusterVersion)
		if cv.Spec.Upstream != "" {
			upstream = cv
		}
		stores = append(stores, cv.Spec.SignatureStores...)
	}
	if upstream == nil {
		t.Fatal("no patch sets spec.upstream")
	}
	u, err := url.Parse(string(upstream.Spec.Upstream))
	if err != nil || u.Scheme != "https" || u.Path != "/api/upgrades_info/graph" || u.RawQuery != "" || !strings.HasPrefix(u.Host, hostPrefix) {
		t.Errorf("spec.upstream %q, want https://%s…/api/upgrades_info/graph (%v)", upstream.Spec.Upstream, hostPrefix, err)
	}
	// The policy-engine's rule for channel names.
	if !regexp.MustCompile(`^[0-9a-z\-\.]+$`).MatchString(upstream.Spec.Channel) {
		t.Errorf("spec.channel %q is not a valid channel name", upstream.Spec.Channel)
	}
	if len(stores) == 0 {
		t.Error("no patch sets spec.signatureStores")
	}
	for _, s := range stores {
		su, err := url.Parse(s.URL)
		if err != nil || su.Scheme != "https" || u == nil || su.Host != u.Host || su.Path != "/api/upgrades_info/signatures" {
			t.Errorf("signature store %q, want https://%s/api/upgrades_info/signatures (%v)", s.URL, u.Host, err)
		}
	}
}
