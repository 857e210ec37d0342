package site

import (
	"io"
	"os"
)

// fastAnswer is a graph answer the fast path writes itself.
type fastAnswer struct {
	status    int // 200 or 304
	mediaType string
	etag      string
	gzip      bool
	size      int64
	body      []byte   // the body, unless file is set
	file      *os.File // an identity body, sent with sendfile
	release   func()   // when file is set: called once the answer is written
}

// fastAnswer answers a graph request the way serveGraph does, from the
// same lookup, cache and verification. ok is false for every other
// answer (errors, a file that cannot be read): those go to net/http,
// which gives them, and retries after a generation swap.
func (h *Handler) fastAnswer(r *fastRequest) (a fastAnswer, ok bool) {
	mediaType, q, apiErr := parseGraphRequest(r.rawQuery, r.accept, r.acceptPresent)
	if apiErr != nil {
		return a, false
	}
	t, apiErr := h.locate(q)
	if apiErr != nil {
		return a, false
	}
	a.mediaType, a.gzip = mediaType, acceptsGzip(r.acceptEncoding)
	switch {
	case t.gen == nil || a.gzip:
		c := h.empty
		if t.gen != nil {
			var err error
			if c, err = h.content(t.gen, t.name); err != nil {
				return a, false
			}
		}
		a.body, a.etag = c.body, c.etag
		if a.gzip {
			a.body, a.etag = c.gzipped()
		}
		a.size = int64(len(a.body))
	default:
		f := t.gen.Manifest.Files[t.name]
		a.etag, a.size = etagOf(f.SHA256), f.Size
		data, err := h.readUnverified(t.gen, t.name, f.SHA256)
		if err != nil {
			return a, false
		}
		if data != nil {
			a.body = data
			break
		}
		file, release, err := t.gen.openShared(t.name, f.SHA256)
		if err != nil {
			return a, false
		}
		a.file, a.release = file, release
	}
	a.status = 200
	if etagMatches(r.ifNoneMatch, a.etag) {
		a.status = 304 // write releases the file it does not send
	}
	return a, true
}

// copyFile sends size bytes of f from its start without moving its
// offset, where sendfile is not available.
func copyFile(w io.Writer, f *os.File, size int64) error {
	_, err := io.Copy(w, io.NewSectionReader(f, 0, size))
	return err
}
