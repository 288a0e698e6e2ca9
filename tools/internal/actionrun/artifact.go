package actionrun

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// uploadArtifact stands in for actions/upload-artifact: the files go to
// OutDir/artifacts/<name>, laid out as the artifact would hold them
// (relative to the paths' common directory; a single directory's files at
// the top).
func (j *job) uploadArtifact(_ context.Context, in usesCall, res *StepResult) error {
	name, ifNone, ok := j.artifactSettings(in, res)
	if !ok {
		return nil
	}
	roots, files, err := j.artifactFiles(in.with["path"], in.with["include-hidden-files"] == "true")
	if err != nil {
		return err
	}
	if len(files) == 0 {
		msg := fmt.Sprintf("actions/upload-artifact: no files were found with the provided path: %s. No artifacts will be uploaded.",
			strings.TrimSpace(in.with["path"]))
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
	if _, err := os.Stat(dest); err == nil {
		if in.with["overwrite"] != "true" {
			j.stepFailed(res, 1, fmt.Sprintf("actions/upload-artifact: an artifact named %s was already uploaded in this job (give each upload its own name, or overwrite: true)", name))
			return nil
		}
		if err := os.RemoveAll(dest); err != nil {
			return err
		}
	}
	if err := copyArtifact(dest, commonDir(roots), files); err != nil {
		return err
	}
	j.uploads++
	res.Outputs["artifact-id"] = fmt.Sprint(j.uploads)
	res.Outputs["artifact-url"] = "file://" + dest
	j.note(res, "actions/upload-artifact: %d files uploaded as %s (%s)", len(files), name, dest)
	return nil
}

// artifactSettings checks the name and if-no-files-found inputs as
// upload-artifact does; !ok means the step has failed already.
func (j *job) artifactSettings(in usesCall, res *StepResult) (name, ifNone string, ok bool) {
	name = in.with["name"]
	if name == "" {
		name = "artifact"
	}
	if strings.ContainsAny(name, "\":<>|*?\\/\r\n") {
		j.stepFailed(res, 1, fmt.Sprintf("actions/upload-artifact: the artifact name %q contains one of \" : < > | * ? \\ /", name))
		return "", "", false
	}
	ifNone = in.with["if-no-files-found"]
	switch ifNone {
	case "":
		ifNone = "warn"
	case "warn", "error", "ignore":
	default:
		j.stepFailed(res, 1, fmt.Sprintf("actions/upload-artifact: if-no-files-found: %q is not warn, error or ignore", ifNone))
		return "", "", false
	}
	return name, ifNone, true
}

// artifactFiles expands the path input (one glob a line, relative to the
// workspace) into the regular files to upload and the directory each
// match counts from: a directory itself, a file's parent.
func (j *job) artifactFiles(paths string, hidden bool) (roots, files []string, err error) {
	for _, line := range strings.Split(paths, "\n") {
		p := strings.TrimSpace(line)
		if p == "" {
			continue
		}
		if strings.HasPrefix(p, "!") || strings.Contains(p, "**") {
			return nil, nil, unsupported("the artifact path %q (exclusions and **)", p)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(j.cfg.Workspace, p)
		}
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, nil, fmt.Errorf("path %q: %w", p, err)
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				continue
			}
			root := filepath.Dir(m)
			if fi.IsDir() {
				root = m
			}
			roots = append(roots, root)
			found, err := regularFilesUnder(m, root, hidden)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, found...)
		}
	}
	return roots, files, nil
}

// regularFilesUnder lists the regular files at or below m, leaving out
// hidden ones (a dot-named part below root) unless hidden is set, as
// upload-artifact does by default.
func regularFilesUnder(m, root string, hidden bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(m, func(f string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, f)
		if !hidden && rel != "." && hasHiddenPart(rel) {
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
	return files, err
}

// copyArtifact copies files into dest, each at its path relative to base.
func copyArtifact(dest, base string, files []string) error {
	for _, f := range files {
		rel, err := filepath.Rel(base, f)
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
	return nil
}

func hasHiddenPart(rel string) bool {
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}

// commonDir is the deepest directory holding every one of dirs.
func commonDir(dirs []string) string {
	if len(dirs) == 0 {
		return "/"
	}
	common := filepath.Clean(dirs[0])
	for _, d := range dirs[1:] {
		d = filepath.Clean(d)
		for common != "/" && d != common && !strings.HasPrefix(d, common+string(filepath.Separator)) {
			common = filepath.Dir(common)
		}
	}
	return common
}
