package publish_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/upgraph/upgraph/generator/manifest"
	"github.com/upgraph/upgraph/internal/s3test"
	"github.com/upgraph/upgraph/site/publish"
)

// BenchmarkPublish publishes a tree into an empty bucket, then publishes it
// again unchanged, against a real S3 server on loopback (no proxy). The
// tree is $UPGRAPH_BENCH_TREE (e.g. a real-scale tree from
// `upgraph generate`), else the demo. Each iteration uses a new bucket.
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
	client, err := publish.NewClient(context.Background(), publish.ClientOptions{
		Endpoint: srv.URL, PathStyle: true, Credentials: srv.Credentials(),
	})
	if err != nil {
		b.Fatal(err)
	}
	var first, again time.Duration
	var objects int
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
		start = time.Now()
		if rep, err = publish.Publish(context.Background(), o); err != nil || rep.Uploaded != 0 {
			b.Fatalf("unchanged re-publish: uploaded %v, error %v", rep, err)
		}
		again += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(objects), "objects")
	b.ReportMetric(float64(bytes), "bytes")
	b.ReportMetric(first.Seconds()/n, "first-s")
	b.ReportMetric(again.Seconds()/n, "unchanged-s")
	b.ReportMetric(float64(objects)/(first.Seconds()/n), "objects/s")
	b.Logf("%d files in index.json, %d objects (%d bytes) uploaded", len(m.Files), objects, bytes)
}
