package s3tree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// DefaultRegion is used when neither the options nor the AWS configuration
// name one; S3-compatible stores mostly ignore it but SigV4 needs one.
const DefaultRegion = "us-east-1"

// ClientOptions configure NewClient.
type ClientOptions struct {
	// Endpoint is an S3-compatible store's URL ("": AWS S3).
	Endpoint string
	// Region (""): from the AWS configuration, else DefaultRegion.
	Region string
	// PathStyle addresses buckets as ENDPOINT/BUCKET/KEY, which most
	// S3-compatible stores need.
	PathStyle bool
	// Credentials (nil): the standard chain (environment, shared files,
	// SSO, web identity, container and instance roles).
	Credentials aws.CredentialsProvider
	// MaxAttempts per request, the first included (default 10).
	MaxAttempts int
	// MaxBackoff caps the randomised exponential wait between attempts
	// (default 20 s).
	MaxBackoff time.Duration
}

// NewClient builds an S3 client from the standard AWS configuration with a
// retryer fit for bulk uploads: more attempts than the SDK's 3, and no
// client-side retry quota, which a burst of 503 SlowDown answers across
// many workers would otherwise exhaust, failing requests that a retry
// would have carried.
func NewClient(ctx context.Context, o ClientOptions) (*s3.Client, error) {
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = 10
	}
	backoff := o.MaxBackoff
	if backoff <= 0 {
		backoff = retry.DefaultMaxBackoff
	}
	loadOpts := []func(*config.LoadOptions) error{
		// A store that accepted a request and then went silent would hang
		// the publish; the timeout turns it into a retried error without
		// capping how long an upload may take.
		config.WithHTTPClient(awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.ResponseHeaderTimeout = time.Minute
		})),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = attempts
				so.MaxBackoff = backoff
				so.RateLimiter = ratelimit.None
				so.Retryables = append(so.Retryables, retry.IsErrorRetryableFunc(retryableCut))
			})
		}),
	}
	if o.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(o.Region))
	}
	if o.Credentials != nil {
		loadOpts = append(loadOpts, config.WithCredentialsProvider(o.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("loading AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = DefaultRegion
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = o.PathStyle
		// S3-compatible stores often keep no checksums; the SDK would warn
		// on every GET that it cannot validate one.
		so.DisableLogOutputChecksumValidationSkipped = true
	}), nil
}

// retryableCut retries a connection cut mid-request however it surfaces:
// the SDK's own checks recognise "connection reset" by message, but a
// peer closing the socket can also show as EPIPE or an unexpected EOF.
// The bodies are in memory, so every attempt resends them whole.
func retryableCut(err error) aws.Ternary {
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return aws.TrueTernary
	}
	return aws.UnknownTernary
}

// ParseURL splits "s3://BUCKET/PREFIX" (PREFIX optional).
func ParseURL(s string) (bucket, prefix string, err error) {
	u, err := url.Parse(s)
	if err != nil {
		return "", "", err
	}
	if u.Scheme != "s3" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", "", fmt.Errorf("%q: want s3://BUCKET or s3://BUCKET/PREFIX", s)
	}
	return u.Host, strings.Trim(u.Path, "/"), nil
}
