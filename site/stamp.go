package site

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
)

// A file is streamed (sendfile) without reading it only while the kernel
// reports it in the state it had when its bytes were last checked against
// their digest. Checking costs one fstat per request, where reading and
// hashing would cost what the zero-copy path saves; and a tree rewritten
// in place (the snapshot's hard links share the inode, so they see it)
// is never sent with the old length and ETag.

// fileState is what fstat says of a file's content without reading it.
// Not ctime: linking and unlinking change it, and every snapshot taken or
// removed links or unlinks every file of the tree, which would make each
// state stale at every generation. Any write changes mtime (and a
// truncation or extension the size); utimes can set mtime back, which is
// a deliberate act this does not defend against.
type fileState struct {
	dev, ino uint64
	size     int64
	mtime    int64 // Unix nanoseconds
}

// stamp records that a file in state st was read and that its bytes
// matched the slot's digest (good) or did not.
type stamp struct {
	st   fileState
	good bool
}

// racyWindow is how close to the moment it was read a file's mtime may be
// for its stamp to be kept. The kernel takes timestamps from a clock that
// ticks every few milliseconds, so a write in the same tick as the last
// one before the check would leave mtime as it was; such a file is
// checked again later rather than trusted (git's "racily clean" entries).
// Timestamps in whole seconds (file systems without finer ones) need
// more.
const racyWindow = 50 * time.Millisecond

func racy(st fileState, readAt time.Time) bool {
	window := racyWindow
	if st.mtime%int64(time.Second) == 0 {
		window = 2 * time.Second
	}
	d := time.Duration(st.mtime - readAt.UnixNano())
	return d > -window && d < window
}

// changedError is a file whose size or digest no longer matches
// index.json. It names the file asked for; the one read may be another
// of the same content (a hard link of it, as generate writes them), which
// the log names.
type changedError struct {
	name       string
	size, want int64
}

func (e *changedError) Error() string {
	what := "its sha256 no longer matches index.json"
	if e.size != e.want {
		what = fmt.Sprintf("%d bytes, index.json says %d", e.size, e.want)
	}
	return fmt.Sprintf("%s changed on disk after it was generated (%s); regenerate or restore the tree", e.name, what)
}

// errorAnswer is the answer to a file that cannot be sent.
func errorAnswer(name string, err error) *apiError {
	if ce, ok := errors.AsType[*changedError](err); ok {
		return &apiError{500, "file_changed", ce.Error()}
	}
	return &apiError{500, "file_open_err", "failed to open file: " + name}
}

// checkFile decides how to answer with f from file, open on its slot's
// name: stream it (the state is the one checked), or send data, its bytes
// read and checked now or the content from memory when the file no
// longer matches. It returns a *changedError when neither can be sent.
func (h *Handler) checkFile(f *servedFile, file *os.File) (data []byte, stream bool, err error) {
	slot := f.slot
	st, err := statFile(file)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", slot.name, err)
	}
	if s := slot.stamp.Load(); s != nil && s.st == st {
		if s.good {
			return nil, true, nil
		}
		return h.fromMemory(f, st)
	}
	readAt := time.Now()
	data, stable, err := readFile(file, st, f.info.Size)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", slot.name, err)
	}
	// Bytes that match are right whatever happened since; a state seen
	// to change while it was read, or too recent, is not recorded.
	good := int64(len(data)) == f.info.Size && manifest.SHA256(data) == slot.digest
	if stable && !racy(st, readAt) {
		slot.stamp.Store(&stamp{st: st, good: good})
	}
	if good {
		return data, false, nil
	}
	h.fileChanged(f, st)
	return h.fromMemory(f, st)
}

// graphBytes returns the bytes of f's content, checked: what is compressed
// and cached must be the generated content, whatever happens to the file.
func (h *Handler) graphBytes(gen *Generation, f *servedFile) ([]byte, error) {
	file, err := gen.open(f.slot.name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, stream, err := h.checkFile(f, file)
	if err != nil || !stream {
		return data, err
	}
	// Unchanged since it was checked: read again, and checked again, as
	// it could change in between.
	st, err := statFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.slot.name, err)
	}
	data, _, err = readFile(file, st, f.info.Size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.slot.name, err)
	}
	if int64(len(data)) != f.info.Size || manifest.SHA256(data) != f.slot.digest {
		f.slot.stamp.Store(nil) // the next request finds out what it is now
		return nil, &changedError{name: f.name, size: st.size, want: f.info.Size}
	}
	return data, nil
}

// readFile reads file, found in state st, whole, unless its size is not
// want (then data is nil: it cannot match). stable reports whether the
// state held while it was read.
func readFile(file *os.File, st fileState, want int64) (data []byte, stable bool, err error) {
	if st.size != want {
		return nil, true, nil
	}
	data = make([]byte, st.size)
	n, err := file.ReadAt(data, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	after, err := statFile(file)
	if err != nil {
		return nil, false, err
	}
	return data[:n], after == st, nil
}

// fromMemory is f's content from the cache, where it is (the cache is
// keyed by digest, so it holds the generated bytes, whatever happened to
// the file since), else the *changedError for st.
func (h *Handler) fromMemory(f *servedFile, st fileState) ([]byte, bool, error) {
	if c := h.cache.get(cacheKey{digest: f.slot.digest}); c != nil {
		return c.body, false, nil
	}
	// Graph files are cached compressed only.
	if c := h.cache.get(cacheKey{digest: f.slot.digest, gzip: true}); c != nil {
		zr, err := gzip.NewReader(bytes.NewReader(c.body))
		if err == nil {
			body, err := io.ReadAll(zr)
			if err == nil && manifest.SHA256(body) == f.slot.digest {
				return body, false, nil
			}
		}
	}
	return nil, false, &changedError{name: f.name, size: st.size, want: f.info.Size}
}

// fileChanged reports a file found not to match index.json.
func (h *Handler) fileChanged(f *servedFile, st fileState) {
	h.metrics.filesChanged.Add(1)
	h.log.Error("a file of the served tree changed on disk; answering from memory where the content is cached, else with 500 file_changed, until it is restored or a new generation is loaded",
		"file", f.name, "readAs", f.slot.name, "size", st.size, "indexSize", f.info.Size)
}
