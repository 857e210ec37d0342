package scrape

import (
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/random"
)

// bigConfig is an image whose manifest gives its config size bytes.
type bigConfig struct {
	v1.Image
	size int64
}

func (b bigConfig) Manifest() (*v1.Manifest, error) {
	m, err := b.Image.Manifest()
	if err != nil {
		return nil, err
	}
	m = m.DeepCopy()
	m.Config.Size = b.size
	return m, nil
}

// TestCheckConfigSize: a config the manifest says is larger than
// maxConfigSize is refused, naming the digest and the size, before
// go-containerregistry reads it whole into memory.
func TestCheckConfigSize(t *testing.T) {
	img, err := random.Image(100, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkConfigSize(img); err != nil {
		t.Fatalf("an ordinary image: %v", err)
	}
	if err := checkConfigSize(bigConfig{img, maxConfigSize}); err != nil {
		t.Fatalf("a config of maxConfigSize: %v", err)
	}
	m, _ := img.Manifest()
	err = checkConfigSize(bigConfig{img, 1 << 40})
	want := "the manifest gives config " + m.Config.Digest.String() + " 1099511627776 bytes, more than the 16777216 a config may have"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a config of 1 TiB: %v, want %q", err, want)
	}
}
