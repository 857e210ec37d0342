package publish

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/upgraph/upgraph/tree/s3tree"
)

// MetaJournal is the user-metadata key flagging index.json while a publish
// is in progress, for the external tests.
const MetaJournal = metaJournal

// GetWhole reads tree path p of the tree under prefix of bucketName as
// publishing reads index.json, refusing objects of more than max bytes.
func GetWhole(ctx context.Context, client *s3.Client, bucketName, prefix, p string, max int64) ([]byte, error) {
	b := &bucket{s3tree.NewBucket(client, bucketName, prefix)}
	b.MaxObjectBytes = max
	o, err := b.get(ctx, p)
	if o == nil {
		return nil, err
	}
	return o.body, err
}
