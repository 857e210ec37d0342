package site

// Internals the black-box tests (package site_test) look at.

// Negotiate is negotiate: the media type for an Accept header, "" for 406.
var Negotiate = negotiate

// AcceptsGzip is acceptsGzip.
var AcceptsGzip = acceptsGzip

// GzippedBody returns the gzip body the handler serves for file name of
// the current generation, as held in its content cache.
func (h *Handler) GzippedBody(name string) ([]byte, error) {
	c, err := h.content(h.gen.Load(), name)
	if err != nil {
		return nil, err
	}
	b, _ := c.gzipped()
	return b, nil
}
