package publish

import (
	"bytes"
	"testing"
)

func TestReportWriteText(t *testing.T) {
	r := &Report{Plan: &Plan{Unchanged: 7}, Uploaded: 3, UploadedBytes: 1234, Deleted: 1}
	var b bytes.Buffer
	if err := r.WriteText(&b, "s3://bucket/prefix"); err != nil {
		t.Fatal(err)
	}
	if want := "uploaded 3 objects (1234 bytes), deleted 1, 7 unchanged: s3://bucket/prefix\n"; b.String() != want {
		t.Errorf("WriteText = %q, want %q", b.String(), want)
	}
	// A dry run prints the plan, as Plan.WriteTo does.
	dry := &Report{Plan: &Plan{Unchanged: 7}, DryRun: true}
	var got, want bytes.Buffer
	if err := dry.WriteText(&got, "s3://bucket"); err != nil {
		t.Fatal(err)
	}
	if _, err := dry.Plan.WriteTo(&want); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("dry run WriteText = %q, want the plan %q", got.String(), want.String())
	}
}
