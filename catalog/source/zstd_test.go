package source

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/klauspost/compress/zstd"

	rt "github.com/upgraph/upgraph/internal/registrytest"
	"github.com/upgraph/upgraph/internal/zstdtest"
)

// zstdLayer is a layer whose blob is data as given (a zstd stream).
func zstdLayer(t testing.TB, data []byte) tarball.Opener {
	t.Helper()
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
}

// TestImageZstdWindow: a catalog image's zstd layer is decompressed with
// a window of at most 128 MiB (zstd's own default limit): a layer of a
// few bytes declaring a 256 MiB window is refused, naming the bound,
// rather than allocating it; a layer of an ordinary zstd encoder is read.
func TestImageZstdWindow(t *testing.T) {
	reg := rt.Start(t)
	var tarBytes bytes.Buffer
	tw := tar.NewWriter(&tarBytes)
	for _, e := range configsAB(t) {
		h := &tar.Header{Name: e.Name, ModTime: epoch, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.Data))}
		if strings.HasSuffix(e.Name, "/") {
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.Data)
	}
	tw.Close()
	var good bytes.Buffer
	zw, _ := zstd.NewWriter(&good)
	zw.Write(tarBytes.Bytes())
	zw.Close()
	bad := zstdtest.Window(28, []byte("catalog"))

	for i, tc := range []struct {
		name string
		blob []byte
		err  string
	}{
		{"an encoder's layer", good.Bytes(), ""},
		{"a 256 MiB window", bad, "zstd frame needs a window of more than 134217728 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := tarball.LayerFromOpener(zstdLayer(t, tc.blob), tarball.WithMediaType(types.OCILayerZStd))
			if err != nil {
				t.Fatal(err)
			}
			ref := fmt.Sprintf("%s/zstd/case%d:v1", reg.Host, i)
			rt.Push(t, ref, catalogImage(t, "amd64", opmBase(t), l))
			cfg, _, err := loadImage(t, ref, Options{CacheDir: t.TempDir()})
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := len(names(cfg)); got == 0 {
					t.Error("no blob read from the zstd layer")
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), ref) {
				t.Errorf("error = %v\nwant one containing %q and naming %s", err, tc.err, ref)
			}
		})
	}
}
