package scrape_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/upgraph/upgraph/registry"
	"github.com/upgraph/upgraph/release/scrape"
)

// tagPages is a registry answering only /v2/ and the tag list of
// repository "r": page i lists tags i*10 to i*10+9 and links to next(i).
func tagPages(t *testing.T, pages int, next func(i int) int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/v2/":
			return
		case "/v2/r/tags/list":
		default:
			http.NotFound(w, req)
			return
		}
		i, _ := strconv.Atoi(req.URL.Query().Get("page"))
		var tags []string
		for k := range 10 {
			tags = append(tags, fmt.Sprintf("%q", fmt.Sprintf("t%d", i*10+k)))
		}
		if n := next(i); n < pages {
			w.Header().Set("Link", fmt.Sprintf(`</v2/r/tags/list?page=%d>; rel="next"`, n))
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"r","tags":[%s]}`, strings.Join(tags, ","))
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://") + "/r"
}

// TestRemoteTags: a tag list is read page by page; a registry whose Link
// headers loop, or that lists more than MaxTags tags, is refused naming
// the repository, instead of being followed until memory runs out.
func TestRemoteTags(t *testing.T) {
	client, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		pages   int
		next    func(int) int
		maxTags int
		want    int    // tags, when no error
		wantErr string // "" for none
	}{
		{name: "three pages", pages: 3, next: func(i int) int { return i + 1 }, want: 30},
		{name: "a loop", pages: 3, next: func(i int) int { return (i + 1) % 3 }, wantErr: "/v2/r/tags/list?page=1 again after 40 tags (a loop in its Link headers)"},
		{name: "a page linking to itself", pages: 3, next: func(i int) int { return 1 }, wantErr: "/v2/r/tags/list?page=1 again after 20 tags (a loop in its Link headers)"},
		{name: "over MaxTags", pages: 1000, next: func(i int) int { return i + 1 }, maxTags: 25, wantErr: "/r: more than 25 tags"},
		{name: "at MaxTags", pages: 3, next: func(i int) int { return i + 1 }, maxTags: 30, want: 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, err := scrape.NewRemote(client, tagPages(t, tc.pages, tc.next))
			if err != nil {
				t.Fatal(err)
			}
			repo.MaxTags = tc.maxTags
			tags, err := repo.Tags(t.Context())
			switch {
			case tc.wantErr == "" && (err != nil || len(tags) != tc.want || !slices.Contains(tags, "t0")):
				t.Fatalf("%d tags, %v; want %d", len(tags), err, tc.want)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "listing tags of ")):
				t.Fatalf("%d tags, %v; want an error containing %q", len(tags), err, tc.wantErr)
			}
		})
	}
}

// TestRemoteTagsPageBound: one page of the tag list larger than
// registry.MaxTagListPage (go-containerregistry decodes it whole) is
// refused naming the URL, not read until memory runs out.
func TestRemoteTagsPageBound(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/v2/" {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"name":"r","tags":["`)
		chunk := strings.Repeat("x", 1<<20)
		for range registry.MaxTagListPage>>20 + 1 {
			if _, err := io.WriteString(w, chunk); err != nil {
				return // the client gave up
			}
		}
		io.WriteString(w, `"]}`)
	}))
	t.Cleanup(srv.Close)
	client, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := scrape.NewRemote(client, strings.TrimPrefix(srv.URL, "http://")+"/r")
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Tags(t.Context())
	want := fmt.Sprintf("/v2/r/tags/list?n=1000: more than %d bytes in one page of the tag list", registry.MaxTagListPage)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}
