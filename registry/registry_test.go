package registry_test

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/registry"
)

// TestCAFile puts a TLS front with its own certificate before a real
// registry: trusted with --ca-file, refused without.
func TestCAFile(t *testing.T) {
	reg := rt.Start(t)
	upstream, _ := url.Parse(reg.URL)
	front := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(upstream))
	t.Cleanup(front.Close)
	rt.Push(t, reg.Host+"/tls:1", rt.Image(t, "amd64", false, rt.FillerLayer(t, 1, 64, false)))
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: front.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	// go-containerregistry tries https before http on loopback.
	host := "https://" + strings.TrimPrefix(front.URL, "https://") + "/tls:1"
	head := func(opts registry.Options) error {
		c, err := registry.New(opts)
		if err != nil {
			return err
		}
		ref, err := c.Reference(host)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Puller.Head(context.Background(), ref)
		return err
	}
	if err := head(registry.Options{CAFile: ca}); err != nil {
		t.Errorf("with --ca-file: %v", err)
	}
	if err := head(registry.Options{Attempts: 1}); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("without --ca-file: want a certificate error, got %v", err)
	}
	if _, err := registry.New(registry.Options{CAFile: filepath.Join(t.TempDir(), "missing.pem")}); err == nil || !strings.Contains(err.Error(), "--ca-file") {
		t.Errorf("missing CA file: want an error naming --ca-file, got %v", err)
	}
	if err := os.WriteFile(ca, []byte("not PEM"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := registry.New(registry.Options{CAFile: ca}); err == nil || !strings.Contains(err.Error(), "no PEM certificates") {
		t.Errorf("CA file without certificates: got %v", err)
	}
}

func TestReferenceSchemes(t *testing.T) {
	c, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := registry.New(registry.Options{PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		client *registry.Client
		in     string
		scheme string
	}{
		{c, "quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64", "https"},
		{c, "http://registry.example:5000/ocp/release:4.16.3", "http"},
		// Loopback: go-containerregistry tries https and falls back to http.
		{c, "127.0.0.1:5000/ocp/release:1", "http"},
		{plain, "registry.example:5000/ocp/release:1", "http"},
	} {
		ref, err := tc.client.Reference(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := ref.Context().Registry.Scheme(); got != tc.scheme {
			t.Errorf("%s: scheme %s, want %s", tc.in, got, tc.scheme)
		}
	}
	if _, err := c.Reference("UPPER/case:tag"); err == nil {
		t.Error("an invalid reference was accepted")
	}
}
