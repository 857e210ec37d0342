package cvo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"testing"

	"github.com/blang/semver/v4"
)

// request is what the fake upstream saw.
type request struct {
	method, path, accept, userAgent string
	query                           url.Values
}

// newUpstream behaves like the upstream test server: 415 unless the client
// accepts application/json, otherwise it returns body with status.
func newUpstream(t *testing.T, status int, body string) (*httptest.Server, <-chan request) {
	t.Helper()
	seen := make(chan request, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- request{r.Method, r.URL.Path, r.Header.Get("Accept"), r.UserAgent(), r.URL.Query()}:
		default:
			t.Errorf("received more than one request")
		}
		if r.Header.Get("Accept") != GraphMediaType {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, seen
}

func TestUpstreamRequiresAcceptHeader(t *testing.T) {
	srv, _ := newUpstream(t, http.StatusOK, "{}")
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("status without Accept = %d, want 415", resp.StatusCode)
	}
}

func TestClientGetUpdates(t *testing.T) {
	const id = "01234567-0123-0123-0123-0123456789ab"
	okGraph := graphJSON(fourNodes, `"edges":[[0,1],[0,2]],"conditionalEdges":[`+cond("4.1.0", "4.1.3", riskJSON("BugB", alwaysRule))+`]`)
	for _, tc := range []struct {
		name        string
		id          string
		desiredArch string
		channel     string
		path        string // appended to the server URL
		status      int
		wantQuery   url.Values // nil: no request expected
		wantPath    string
		updates     []Release
		conditional []ConditionalUpdate
		reason      string
		message     string
	}{{
		name: "graph retrieved", id: id, channel: "test-channel", status: http.StatusOK, wantPath: "/",
		wantQuery:   url.Values{"arch": {"amd64"}, "channel": {"test-channel"}, "id": {id}, "version": {"4.1.0"}},
		updates:     []Release{rel("4.1.1", "channel-a", "test-channel"), rel("4.1.2", "test-channel")},
		conditional: []ConditionalUpdate{{Release: rel("4.1.3", "test-channel"), Risks: []Risk{bugB}}},
	}, {
		name: "upstream path and query kept, ID normalised, multi arch lower-cased",
		id:   "{01234567-0123-0123-0123-0123456789AB}", desiredArch: "Multi", channel: "test-channel",
		path: "/graphs/test.json?arch=x", status: http.StatusOK, wantPath: "/graphs/test.json",
		wantQuery: url.Values{"arch": {"x", "multi"}, "channel": {"test-channel"}, "id": {id}, "version": {"4.1.0"}},
		// Single→multi migration: the only update is the current release.
		updates: []Release{rel("4.1.0", "channel-a", "test-channel")},
	}, {
		name: "non-200 status", id: id, channel: "test-channel", status: http.StatusNotFound, wantPath: "/",
		wantQuery: url.Values{"arch": {"amd64"}, "channel": {"test-channel"}, "id": {id}, "version": {"4.1.0"}},
		reason:    "ResponseFailed", message: "unexpected HTTP status: 404 Not Found",
	}, {
		name: "invalid cluster ID sends nothing", id: "not-a-uuid", channel: "test-channel",
		reason: "InvalidID", message: "must be an RFC4122-variant UUID: invalid UUID length: 10",
	}, {
		name: "no channel sends nothing", id: id, reason: "NoChannel",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, seen := newUpstream(t, tc.status, okGraph)
			desired := tc.desiredArch
			if desired == "" {
				desired = "amd64"
			}
			c := &Client{HTTP: srv.Client(), ID: tc.id, UserAgent: UserAgent("4.1.0")}
			_, updates, conditional, err := c.GetUpdates(context.Background(), srv.URL+tc.path, desired, "amd64", tc.channel, semver.MustParse("4.1.0"))
			checkError(t, err, tc.reason, tc.message)
			if !reflect.DeepEqual(updates, tc.updates) {
				t.Errorf("updates:\n got %+v\nwant %+v", updates, tc.updates)
			}
			if !reflect.DeepEqual(conditional, tc.conditional) {
				t.Errorf("conditional:\n got %+v\nwant %+v", conditional, tc.conditional)
			}
			select {
			case r := <-seen:
				if tc.wantQuery == nil {
					t.Fatalf("unexpected request %+v", r)
				}
				want := request{http.MethodGet, tc.wantPath, GraphMediaType, "ClusterVersionOperator/4.1.0", tc.wantQuery}
				if !reflect.DeepEqual(r, want) {
					t.Errorf("request:\n got %+v\nwant %+v", r, want)
				}
			default:
				if tc.wantQuery != nil {
					t.Fatal("no request received")
				}
			}
		})
	}
}

func TestClientRemoteFailed(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	upstream := srv.URL
	srv.Close() // nothing listens any more
	c := &Client{ID: "01234567-0123-0123-0123-0123456789ab"}
	_, _, _, err := c.GetUpdates(context.Background(), upstream, "amd64", "amd64", "stable-4.16", semver.MustParse("4.16.3"))
	checkError(t, err, "RemoteFailed", "connect")
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		t.Errorf("transport error not wrapped: %v", err)
	}
}

func TestNormalizeID(t *testing.T) {
	const want = "01234567-0123-0123-0123-0123456789ab"
	for _, in := range []string{want, "01234567-0123-0123-0123-0123456789AB", "{" + want + "}",
		"urn:uuid:" + want, "URN:UUID:" + want, "012345670123012301230123456789ab"} {
		if got, err := normalizeID(in); err != nil || got != want {
			t.Errorf("normalizeID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, msg := range map[string]string{
		"":                                     "invalid UUID length: 0",
		"01234567+0123-0123-0123-0123456789ab": "invalid UUID format",
		"0123456g-0123-0123-0123-0123456789ab": "invalid UUID format",
		"urn:uuix:01234567-0123-0123-0123-0123456789ab": `invalid urn prefix: "urn:uuix:"`,
	} {
		if _, err := normalizeID(in); err == nil || err.Error() != msg {
			t.Errorf("normalizeID(%q) error = %v, want %q", in, err, msg)
		}
	}
}
