package check

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	routev1 "github.com/openshift/api/route/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"
)

// deployDir is deploy/, this module's parent directory.
const deployDir = ".."

// The kustomizations that must exist (relative to deploy/); any other one
// found is built and checked too.
var wantKustomizations = []string{
	"base",
	"overlays/openshift",
	"overlays/kubernetes",
	"overlays/s3-cronjob",
	"overlays/s3-cronjob-openshift",
}

// allowedKinds are the kinds the manifests may produce, each decoded into
// its real type. A new kind must be added here (with its type's scheme).
var allowedKinds = map[schema.GroupVersionKind]bool{
	corev1.SchemeGroupVersion.WithKind("Namespace"):             true,
	corev1.SchemeGroupVersion.WithKind("ServiceAccount"):        true,
	corev1.SchemeGroupVersion.WithKind("ConfigMap"):             true,
	corev1.SchemeGroupVersion.WithKind("Secret"):                true,
	corev1.SchemeGroupVersion.WithKind("Service"):               true,
	corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"): true,
	appsv1.SchemeGroupVersion.WithKind("Deployment"):            true,
	batchv1.SchemeGroupVersion.WithKind("CronJob"):              true,
	policyv1.SchemeGroupVersion.WithKind("PodDisruptionBudget"): true,
	networkingv1.SchemeGroupVersion.WithKind("NetworkPolicy"):   true,
	networkingv1.SchemeGroupVersion.WithKind("Ingress"):         true,
	routev1.GroupVersion.WithKind("Route"):                      true,
}

var codecs = func() serializer.CodecFactory {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, batchv1.AddToScheme, policyv1.AddToScheme,
		networkingv1.AddToScheme, routev1.Install, configv1.Install,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	// Strict: unknown fields, duplicate fields and fields spelt in
	// another case are errors, as the API server's strict field
	// validation (kubectl's default) reports them.
	return serializer.NewCodecFactory(s, serializer.EnableStrict)
}()

// decodeStrict decodes one YAML document into the registered type of its
// apiVersion and kind, rejecting unknown and duplicate fields.
func decodeStrict(doc []byte) (runtime.Object, *schema.GroupVersionKind, error) {
	obj, gvk, err := codecs.UniversalDeserializer().Decode(doc, nil, nil)
	if err != nil {
		return nil, gvk, err
	}
	return obj, gvk, nil
}

// build is the output of one kustomization, decoded.
type build struct {
	dir     string
	objects []runtime.Object
}

var (
	buildsMu sync.Mutex
	builds   = map[string]*build{}
)

// kustomize builds deploy/dir with krusty and decodes every object
// strictly; the result is cached for the other tests.
func kustomize(t *testing.T, dir string) *build {
	t.Helper()
	buildsMu.Lock()
	defer buildsMu.Unlock()
	if b, ok := builds[dir]; ok {
		return b
	}
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join(deployDir, dir))
	if err != nil {
		t.Fatalf("kustomize build deploy/%s: %v", dir, err)
	}
	b := &build{dir: dir}
	for _, r := range m.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatalf("deploy/%s: %s: %v", dir, r.CurId(), err)
		}
		obj, gvk, err := decodeStrict(doc)
		if err != nil {
			t.Fatalf("deploy/%s: %s does not decode strictly: %v\n%s", dir, r.CurId(), err, doc)
		}
		if !allowedKinds[*gvk] {
			t.Fatalf("deploy/%s: %s: kind %s is not one the check knows (add it to allowedKinds)", dir, r.CurId(), gvk)
		}
		b.objects = append(b.objects, obj)
	}
	builds[dir] = b
	return b
}

// all returns the build's objects of type T.
func all[T runtime.Object](b *build) []T {
	var out []T
	for _, o := range b.objects {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// one returns the build's only object of type T.
func one[T runtime.Object](t *testing.T, b *build) T {
	t.Helper()
	objs := all[T](b)
	if len(objs) != 1 {
		var zero T
		t.Fatalf("deploy/%s: %d objects of type %T, want 1", b.dir, len(objs), zero)
	}
	return objs[0]
}

// findKustomizations lists every directory under deploy/ whose
// kustomization.yaml is a Kustomization (not a Component).
func findKustomizations(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(deployDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "kustomization.yaml" {
			return err
		}
		var k struct{ Kind string }
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := sigsyaml.Unmarshal(data, &k); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if k.Kind == "" || k.Kind == "Kustomization" {
			rel, err := filepath.Rel(deployDir, filepath.Dir(path))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	return dirs
}

// TestEveryKustomizationBuilds builds base and every overlay (those listed
// in wantKustomizations must exist) and decodes every object strictly;
// every namespaced object lands in the namespace upgraph.
func TestEveryKustomizationBuilds(t *testing.T) {
	found := findKustomizations(t)
	for _, want := range wantKustomizations {
		if !slices.Contains(found, want) {
			t.Errorf("deploy/%s/kustomization.yaml is missing", want)
		}
	}
	for _, dir := range found {
		t.Run(strings.ReplaceAll(dir, "/", "_"), func(t *testing.T) {
			b := kustomize(t, dir)
			if len(b.objects) == 0 {
				t.Fatal("no objects")
			}
			for _, o := range b.objects {
				m := meta(o)
				if _, ok := o.(*corev1.Namespace); ok {
					if m.GetName() != "upgraph" {
						t.Errorf("Namespace %q, want upgraph", m.GetName())
					}
					continue
				}
				if m.GetNamespace() != "upgraph" {
					t.Errorf("%T %s: namespace %q, want upgraph", o, m.GetName(), m.GetNamespace())
				}
			}
		})
	}
}

// TestNoStrayFiles: every YAML file beside a kustomization.yaml is one of
// its resources, patches or components, so nothing under deploy/ is
// silently left out of the builds (deploy/clusterversion holds patch files
// for `oc patch`, checked by TestClusterVersionPatches).
func TestNoStrayFiles(t *testing.T) {
	err := filepath.WalkDir(deployDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		kfile := filepath.Join(path, "kustomization.yaml")
		data, err := os.ReadFile(kfile)
		if os.IsNotExist(err) {
			return nil
		} else if err != nil {
			return err
		}
		var k struct {
			Resources  []string
			Components []string
			Patches    []struct{ Path string }
		}
		if err := sigsyaml.Unmarshal(data, &k); err != nil {
			return fmt.Errorf("%s: %w", kfile, err)
		}
		listed := map[string]bool{}
		for _, r := range k.Resources {
			listed[r] = true
		}
		for _, p := range k.Patches {
			listed[p.Path] = true
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() || e.Name() == "kustomization.yaml" || !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			if !listed[e.Name()] {
				t.Errorf("%s: not listed in its kustomization.yaml", filepath.Join(path, e.Name()))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
