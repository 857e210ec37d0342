package publish

import (
	"fmt"
	"io"
)

// WriteText prints what publish did to dest (s3://BUCKET[/PREFIX]): the
// plan, one line per change, for a dry run; else the counts.
func (r *Report) WriteText(w io.Writer, dest string) error {
	if r.DryRun {
		_, err := r.Plan.WriteTo(w)
		return err
	}
	_, err := fmt.Fprintf(w, "uploaded %d objects (%d bytes), deleted %d, %d unchanged: %s\n",
		r.Uploaded, r.UploadedBytes, r.Deleted, r.Plan.Unchanged, dest)
	return err
}
