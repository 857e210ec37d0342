package scrape

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// verifiedImage checks every layer blob against its descriptor's size and
// digest while it is read. go-containerregistry does this for registry
// blobs but not for an OCI layout's files, where a partly copied mirror
// would otherwise look like a layer without release-metadata.
type verifiedImage struct{ v1.Image }

func (i verifiedImage) Layers() ([]v1.Layer, error) {
	layers, err := i.Image.Layers()
	if err != nil {
		return nil, err
	}
	for n, l := range layers {
		layers[n] = verifiedLayer{l}
	}
	return layers, nil
}

type verifiedLayer struct{ v1.Layer }

func (l verifiedLayer) Compressed() (io.ReadCloser, error) {
	digest, err := l.Digest()
	if err != nil {
		return nil, err
	}
	size, err := l.Size()
	if err != nil {
		return nil, err
	}
	rc, err := l.Layer.Compressed()
	if err != nil {
		return nil, err
	}
	if digest.Algorithm != "sha256" {
		return nil, fmt.Errorf("blob %s: unsupported digest algorithm", digest)
	}
	return &verifyingReader{rc: rc, want: digest, size: size, h: sha256.New()}, nil
}

type verifyingReader struct {
	rc   io.ReadCloser
	want v1.Hash
	size int64
	n    int64
	h    hash.Hash
}

func (r *verifyingReader) Read(p []byte) (int, error) {
	n, err := r.rc.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	if r.n > r.size {
		return n, fmt.Errorf("blob %s: more than the %d bytes its descriptor gives", r.want, r.size)
	}
	if err == io.EOF {
		if r.n != r.size {
			return n, fmt.Errorf("blob %s: %d bytes, its descriptor gives %d: %w", r.want, r.n, r.size, io.ErrUnexpectedEOF)
		}
		if got := hex.EncodeToString(r.h.Sum(nil)); got != r.want.Hex {
			return n, fmt.Errorf("blob %s: content has digest sha256:%s", r.want, got)
		}
	}
	return n, err
}

func (r *verifyingReader) Close() error { return r.rc.Close() }

// verifiedIndex hands out verified images of an OCI layout's index.
type verifiedIndex struct{ inner v1.ImageIndex }

func (i verifiedIndex) MediaType() (types.MediaType, error)         { return i.inner.MediaType() }
func (i verifiedIndex) Digest() (v1.Hash, error)                    { return i.inner.Digest() }
func (i verifiedIndex) Size() (int64, error)                        { return i.inner.Size() }
func (i verifiedIndex) IndexManifest() (*v1.IndexManifest, error)   { return i.inner.IndexManifest() }
func (i verifiedIndex) RawManifest() ([]byte, error)                { return i.inner.RawManifest() }
func (i verifiedIndex) ImageIndex(h v1.Hash) (v1.ImageIndex, error) { return i.inner.ImageIndex(h) }

func (i verifiedIndex) Image(h v1.Hash) (v1.Image, error) {
	img, err := i.inner.Image(h)
	if err != nil {
		return nil, err
	}
	return verifiedImage{img}, nil
}
