package publish_test

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
	"github.com/upgraph/upgraph/tree/manifest"
	"github.com/upgraph/upgraph/tree/s3tree"
)

// BenchmarkPublish publishes a tree into an empty bucket, then publishes it
// again unchanged, against a real S3 server on loopback (no proxy). The
// tree is $UPGRAPH_BENCH_TREE (e.g. a real-scale tree from
// `upgraph generate`), else the demo. Each iteration uses a new bucket.
// It counts the HTTP requests of each publish (retries included) and fails
// unless the unchanged re-publish makes exactly one: the GET of index.json.
//
//	UPGRAPH_BENCH_TREE=out/real go test -run '^$' -bench BenchmarkPublish -benchtime 1x ./site/publish/
func BenchmarkPublish(b *testing.B) {
	dir := os.Getenv("UPGRAPH_BENCH_TREE")
	if dir == "" {
		dir = generate(b, spec{sigs: []string{"sig"}})
	}
	m, err := manifest.Read(dir)
	if err != nil {
		b.Fatal(err)
	}
	srv := s3test.Start(b)
	client, err := s3tree.NewClient(context.Background(), s3tree.ClientOptions{
		Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(),
	})
	if err != nil {
		b.Fatal(err)
	}
	reqs := &countingDoer{}
	client = s3.New(client.Options(), func(o *s3.Options) {
		reqs.next = o.HTTPClient
		o.HTTPClient = reqs
	})
	var first, again time.Duration
	var objects int
	var firstReqs, againReqs requestCounts
	var bytes int64
	for b.Loop() {
		o := publish.Options{Dir: dir, Client: client, Bucket: srv.NewBucket(b), Prefix: "bench",
			MaxDeletes: publish.DefaultMaxDeletes, ShrinkThreshold: publish.DefaultShrinkThreshold}
		start := time.Now()
		rep, err := publish.Publish(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		first += time.Since(start)
		objects, bytes = rep.Uploaded, rep.UploadedBytes
		firstReqs = reqs.take()
		start = time.Now()
		if rep, err = publish.Publish(context.Background(), o); err != nil || rep.Uploaded != 0 {
			b.Fatalf("unchanged re-publish: uploaded %v, error %v", rep, err)
		}
		again += time.Since(start)
		againReqs = reqs.take()
		if againReqs.total() != 1 || againReqs["GET"] != 1 {
			b.Errorf("unchanged re-publish made %v requests; want only the GET of index.json", againReqs)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(objects), "objects")
	b.ReportMetric(float64(bytes), "bytes")
	b.ReportMetric(first.Seconds()/n, "first-s")
	b.ReportMetric(again.Seconds()/n, "unchanged-s")
	b.ReportMetric(float64(objects)/(first.Seconds()/n), "objects/s")
	b.ReportMetric(float64(firstReqs.total()), "first-requests")
	b.ReportMetric(float64(againReqs.total()), "unchanged-requests")
	b.ReportMetric(float64(againReqs["PUT"]+againReqs["COPY"]), "unchanged-writes")
	b.Logf("%d files in index.json, %d objects (%d bytes) uploaded", len(m.Files), objects, bytes)
	b.Logf("requests (last iteration): first publish %v; unchanged re-publish %v", firstReqs, againReqs)
}

// requestCounts counts HTTP requests by method; a CopyObject (a PUT with
// x-amz-copy-source) counts as COPY.
type requestCounts map[string]int

func (c requestCounts) total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// countingDoer counts the requests the SDK sends, each retry included,
// without a proxy in the way of the timings.
type countingDoer struct {
	next   s3.HTTPClient
	mu     sync.Mutex
	counts requestCounts
}

func (d *countingDoer) Do(r *http.Request) (*http.Response, error) {
	kind := r.Method
	if r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "" {
		kind = "COPY"
	}
	d.mu.Lock()
	if d.counts == nil {
		d.counts = requestCounts{}
	}
	d.counts[kind]++
	d.mu.Unlock()
	return d.next.Do(r)
}

// take returns the counts so far and starts over.
func (d *countingDoer) take() requestCounts {
	d.mu.Lock()
	defer d.mu.Unlock()
	c := d.counts
	d.counts = nil
	return c
}
