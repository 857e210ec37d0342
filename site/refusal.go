package site

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
)

// net/http answers a request it cannot parse itself, before any handler
// runs, with a plain-text body: 400 for a malformed request line or
// header, 431 for a head over its limit, 501 for an unknown transfer
// coding, 505 for a protocol version other than HTTP/1.x. Every other
// refusal of this server is upstream's {"kind","value"} JSON, and a
// client (or a monitor) should not have to parse two formats. Those
// answers are written to the connection in one Write each, in a form no
// answer of a handler has (no Date, Connection: close, that exact
// Content-Type), so the connections net/http serves (handoffs) rewrite
// them on the way out.

// netHTTPErrorHead is what follows the status line of those answers.
const netHTTPErrorHead = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonRefusal rewrites p when it is one of net/http's own plain-text
// refusals, and returns nil otherwise.
func jsonRefusal(p []byte) []byte {
	rest, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[3] != ' ' {
		return nil
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil {
		return nil
	}
	end := bytes.IndexByte(rest, '\r')
	if end < 4 || !bytes.HasPrefix(rest[end:], []byte(netHTTPErrorHead)) {
		return nil
	}
	line, body := rest[4:end], rest[end+len(netHTTPErrorHead):]
	text := http.StatusText(status)
	var kind, value string
	switch {
	case status == 431 && string(line) == text && string(body) == "431 "+text:
		kind, value = "request_too_large", "the request head is larger than the server accepts"
	case status == 501 && string(line) == text && string(body) == "Unsupported transfer encoding":
		kind, value = "not_implemented", "unsupported transfer encoding"
	case status == 400 && string(line) == text && string(body) == "400 "+text:
		kind, value = "bad_request", "malformed request"
	default:
		// A statusError: "<text>: <detail>" on the status line and in the body.
		detail, ok := strings.CutPrefix(string(line), text+": ")
		if !ok || string(body) != strconv.Itoa(status)+" "+string(line) {
			return nil
		}
		kind, value = "bad_request", detail
		if status == http.StatusHTTPVersionNotSupported {
			kind, value = "http_version_not_supported", detail+": this server speaks HTTP/1.1"
		}
	}
	var w refusalWriter
	w.hdr = http.Header{"Connection": {"close"}}
	writeError(&w, &apiError{status, kind, value})
	return w.bytes()
}

// refusalWriter renders a writeError answer as bytes for the wire.
type refusalWriter struct {
	hdr    http.Header
	status int
	body   []byte
}

func (w *refusalWriter) Header() http.Header    { return w.hdr }
func (w *refusalWriter) WriteHeader(status int) { w.status = status }
func (w *refusalWriter) Write(b []byte) (int, error) {
	w.body = append(w.body, b...)
	return len(b), nil
}

func (w *refusalWriter) bytes() []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 " + strconv.Itoa(w.status) + " " + http.StatusText(w.status) + "\r\n")
	w.hdr.Write(&b)
	b.WriteString("\r\n")
	b.Write(w.body)
	return b.Bytes()
}
