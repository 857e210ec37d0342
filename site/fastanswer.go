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
	// gen, when file is set, is the generation file belongs to, held
	// until the answer is written so that its descriptors stay open.
	gen *Generation
}

// done releases what the answer holds, once written or abandoned.
func (a *fastAnswer) done() {
	if a.release != nil {
		a.release()
	}
	if a.gen != nil {
		a.gen.release()
	}
}

// fastAnswer answers a graph request the way serveGraph does, from the
// same lookup, cache and checks. ok is false for every other answer
// (errors, a file that cannot be read or no longer matches index.json):
// those go to net/http, which gives them, and retries after a generation
// swap.
func (h *Handler) fastAnswer(r *fastRequest) (a fastAnswer, ok bool) {
	if h.hasRollouts() {
		return a, false // answered by net/http, with the bucket header
	}
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
	case t.gen == nil:
		a.body, a.etag = h.empty.body, h.empty.etag
		if a.gzip = a.gzip && t.emptyGz; a.gzip {
			a.body, a.etag = h.emptyGz.body, h.emptyGz.etag
		}
		a.size = int64(len(a.body))
	default:
		// The gzip copy when accepted and the tree has it (serveFile).
		f := t.file
		if a.gzip = a.gzip && f.gz != nil; a.gzip {
			f = f.gz
		}
		a.etag, a.size = f.slot.etag, f.info.Size
		file, closeFile, err := t.gen.openShared(f)
		if err != nil {
			t.gen.release()
			return a, false
		}
		data, stream, err := h.checkFile(f, file)
		if err != nil || !stream {
			closeFile()
			t.gen.release()
		}
		if err != nil {
			return a, false
		}
		if !stream {
			a.body = data
			break
		}
		a.file, a.release, a.gen = file, closeFile, t.gen
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
