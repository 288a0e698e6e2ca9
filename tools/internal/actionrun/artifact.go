package actionrun

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// uploadArtifact stands in for actions/upload-artifact with one path (a
// directory or a file): its files go to OutDir/artifacts/<name>, laid out
// as the artifact would hold them (a directory's files at the top), the
// hidden ones left out as upload-artifact does by default.
func (j *job) uploadArtifact(_ context.Context, in usesCall, res *StepResult) error {
	name := cmp.Or(in.with["name"], "artifact")
	if strings.ContainsAny(name, "\":<>|*?\\/\r\n") {
		j.stepFailed(res, 1, fmt.Sprintf("actions/upload-artifact: the artifact name %q contains one of \" : < > | * ? \\ /", name))
		return nil
	}
	ifNone := cmp.Or(in.with["if-no-files-found"], "warn")
	if !slices.Contains([]string{"warn", "error", "ignore"}, ifNone) {
		j.stepFailed(res, 1, fmt.Sprintf("actions/upload-artifact: if-no-files-found: %q is not warn, error or ignore", ifNone))
		return nil
	}
	p := strings.TrimSpace(in.with["path"])
	if strings.ContainsAny(p, "\n*?[!") {
		return unsupported("the artifact path %q (more than one path, globs, exclusions)", p)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(j.cfg.Workspace, p)
	}
	root, files, err := artifactFiles(p)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		msg := fmt.Sprintf("actions/upload-artifact: no files were found with the provided path: %s. No artifacts will be uploaded.", in.with["path"])
		switch ifNone {
		case "error":
			j.stepFailed(res, 1, msg)
		case "warn":
			j.warn(res, msg)
		default:
			j.note(res, "%s", msg)
		}
		return nil
	}
	dest := filepath.Join(j.artifacts, name)
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	for _, f := range files {
		rel, err := filepath.Rel(root, f)
		if err != nil {
			return err
		}
		fi, err := os.Stat(f)
		if err != nil {
			return err
		}
		if err := copyFile(f, filepath.Join(dest, rel), fi.Mode().Perm()); err != nil {
			return fmt.Errorf("upload %s: %w", f, err)
		}
	}
	res.Outputs["artifact-url"] = "file://" + dest
	j.note(res, "actions/upload-artifact: %d files uploaded as %s (%s)", len(files), name, dest)
	return nil
}

// artifactFiles lists the regular files at or below p (none when it does
// not exist) and the directory they count from: p itself, a file's parent.
// A dot-named part below that directory leaves a file out.
func artifactFiles(p string) (root string, files []string, err error) {
	fi, err := os.Stat(p)
	if err != nil {
		return "", nil, nil
	}
	root = p
	if !fi.IsDir() {
		root = filepath.Dir(p)
	}
	err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, f)
		if rel != "." && hasHiddenPart(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, f)
		}
		return nil
	})
	return root, files, err
}

func hasHiddenPart(rel string) bool {
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}
