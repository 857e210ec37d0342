// Package s3test is shared test infrastructure for code that talks to S3: it
// runs a real S3 server (versitygw with its posix backend, one process per
// test), creates buckets and clients for it, and puts a counting,
// fault-injecting HTTP proxy in front of it so tests can assert how many
// requests a client made and how it copes with a misbehaving store.
//
// Clients must use path-style addressing (http://HOST/BUCKET/KEY): the proxy
// reads the bucket and key from the path.
package s3test
