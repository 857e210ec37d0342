package mirrorset

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/upgraph/upgraph/internal/english"
	"github.com/upgraph/upgraph/internal/jsonw"
)

// Files a mirror set holds (mirror-set --out).
const (
	ReportFile = "mirror-set.json"
	ISCFile    = "imageset-config.yaml"
	ImagesFile = "images.txt"
	CatalogDir = "catalogs"
)

// Report is mirror-set.json, and what mirror-set --format json prints.
type Report struct {
	// Operators is the operator plan (null without --installed).
	Operators *Plan `json:"operators"`
	// Release is the cluster's (null without --from).
	Release *ReleaseSet `json:"release"`
	// Images counts images.txt's lines.
	Images int `json:"images"`
	// Files are the files written, relative to --out (empty when nothing
	// was written).
	Files []string `json:"files"`
}

// Write completes the report: it counts the images and, when every
// target is reached, writes the set (with the report, listed in Files)
// into out. It reports whether every target is reached; nothing is
// written when one is not.
func (rep *Report) Write(out string) (found bool, err error) {
	found = (rep.Operators == nil || rep.Operators.Found()) && (rep.Release == nil || rep.Release.Found)
	images := Images(rep.Operators, rep.Release)
	rep.Images = bytes.Count(images, []byte("\n"))
	if !found {
		return false, nil
	}
	files, err := rep.files(images)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		rep.Files = append(rep.Files, f.Path)
	}
	rep.Files = append(rep.Files, ReportFile)
	report, err := jsonw.Indented(rep)
	if err != nil {
		return false, err
	}
	files = append(files, File{Path: ReportFile, Data: report})
	if err := writeDir(out, files); err != nil {
		return false, fmt.Errorf("--out: %w", err)
	}
	return true, nil
}

// files are the files of the set, but the report.
func (rep *Report) files(images []byte) ([]File, error) {
	var files []File
	if rep.Operators != nil {
		for _, cs := range rep.Operators.Catalogs {
			fbc, err := cs.FBC()
			if err != nil {
				return nil, err
			}
			for _, f := range fbc {
				files = append(files, File{Path: CatalogDir + "/" + cs.Name + "/" + f.Path, Data: f.Data})
			}
		}
	}
	files = append(files,
		File{Path: ISCFile, Data: ImageSetConfiguration(rep.Operators, rep.Release)},
		File{Path: ImagesFile, Data: images})
	return files, nil
}

// writeDir replaces out with files: written beside it first, then
// swapped in, so a failure leaves out as it was.
func writeDir(out string, files []File) error {
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".mirror-set-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		p := filepath.Join(tmp, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return err
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// WriteJSON prints the plan as mirror-set --format json does: the bytes
// of ReportFile.
func (rep *Report) WriteJSON(w io.Writer) error {
	data, err := jsonw.Indented(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// WriteText prints the plan for people; out is where the set was written.
func (rep *Report) WriteText(w io.Writer, out string) error {
	var b strings.Builder
	if p := rep.Operators; p != nil {
		fmt.Fprintf(&b, "%s mirror set of %s:\n", p.OLM.Title(), english.Count(len(p.Installs), "install"))
		for _, in := range p.Installs {
			switch {
			case !in.Found:
				fmt.Fprintf(&b, "  %s: no %s path: %s.\n    %s\n", in.Install, p.OLM.Title(), in.Reason.Code, in.Reason.Message)
			case len(in.Path) == 0:
				fmt.Fprintf(&b, "  %s: already there\n", in.Install)
			default:
				fmt.Fprintf(&b, "  %s: %s → %s\n", in.Install, in.From.Name, strings.Join(in.Path, " → "))
			}
			for _, d := range in.Dependencies {
				fmt.Fprintf(&b, "    %s\n", dependencyText(d))
			}
			for _, n := range in.Notes {
				fmt.Fprintf(&b, "    note: %s\n", n)
			}
		}
		for _, cs := range p.Catalogs {
			fmt.Fprintf(&b, "catalog %s: %s of %d, %s, %s\n", cs.Name, english.Count(cs.Counts.Bundles, "bundle"), cs.Counts.CatalogBundles,
				english.Count(cs.Counts.Packages, "package"), english.Count(cs.Counts.Images, "image"))
			for _, ps := range cs.Packages {
				for _, ch := range ps.Channels {
					var names []string
					for _, sb := range ch.Bundles {
						names = append(names, sb.Name+" ("+sb.Why+")")
					}
					fmt.Fprintf(&b, "  %s %s: %s\n", ps.Name, ch.Name, strings.Join(names, ", "))
					if !ch.Range.Exact {
						fmt.Fprintf(&b, "    oc-mirror's range %s–%s also selects %s\n", ch.Range.MinVersion, ch.Range.MaxVersion, strings.Join(ch.Range.AlsoSelects, ", "))
					}
				}
				if ps.DefaultChannelWas != "" {
					fmt.Fprintf(&b, "  %s: default channel %s is not kept; the filtered catalog's is %s\n", ps.Name, ps.DefaultChannelWas, ps.DefaultChannel)
				}
			}
		}
	}
	if r := rep.Release; r != nil {
		where := fmt.Sprintf("in %s (%s)", strings.Join(r.Searched, " + "), r.Arch)
		switch {
		case !r.Found:
			fmt.Fprintf(&b, "No update path from %s to %s %s.\n", r.From, r.To, where)
		default:
			var vs []string
			for _, rel := range r.Releases {
				vs = append(vs, rel.Version)
			}
			fmt.Fprintf(&b, "cluster %s → %s %s: %s (%s)\n", r.From, r.To, where, english.Count(len(r.Releases), "release"), strings.Join(vs, ", "))
		}
	}
	if len(rep.Files) > 0 {
		fmt.Fprintf(&b, "wrote %s (%s, %s)\n", out, english.Count(len(rep.Files), "file"), english.Count(rep.Images, "image"))
	} else {
		b.WriteString("nothing written: not every target is reached\n")
	}
	_, err := fmt.Fprint(w, b.String())
	return err
}

// dependencyText says what OLM v0 installs beside a path.
func dependencyText(d DependencyPick) string {
	if d.RequiredBy == "" {
		return fmt.Sprintf("at %s: %s moves to %s (catalog %s, channel %s)", d.At, d.Package, d.Bundle, d.Catalog, d.Channel)
	}
	return fmt.Sprintf("at %s: for a dependency of %s, OLM v0 installs %s from catalog %s (channel %s)", d.At, d.RequiredBy, d.Bundle, d.Catalog, d.Channel)
}

// CheckOut checks mirror-set --out (given says whether the flag is):
// not the root, and a missing directory, an empty one or one holding a
// previous mirror-set (its ReportFile), which Report.Write replaces.
func CheckOut(out string, given bool) error {
	switch {
	case !given:
		return errors.New("--out is required: the directory to write")
	case out == "":
		return errors.New("--out: empty path")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if filepath.Dir(abs) == abs {
		return fmt.Errorf("--out %s: the root directory", out)
	}
	st, err := os.Stat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out: %w", err)
	case !st.IsDir():
		return fmt.Errorf("--out %s: exists and is not a directory", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, ReportFile)); err != nil {
		return fmt.Errorf("--out %s: not empty and holds no %s (a previous mirror-set): give a new directory", out, ReportFile)
	}
	return nil
}
