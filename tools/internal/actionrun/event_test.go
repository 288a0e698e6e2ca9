package actionrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const eventAction = `
name: event
outputs:
  base:
    value: ${{ steps.show.outputs.base }}
runs:
  using: composite
  steps:
    - id: show
      shell: bash
      env:
        BASE: ${{ github.event.pull_request.base.sha }}
        NAME: ${{ github.event_name }}
      run: |
        echo "base=$BASE" >> "$GITHUB_OUTPUT"
        test "$NAME" = "$GITHUB_EVENT_NAME"
        grep -q '"sha"' "$GITHUB_EVENT_PATH" || test "$NAME" = push
`

// A pull_request's payload reaches github.event and GITHUB_EVENT_PATH; a
// push has none of it, and github.event.pull_request is null, not an error.
func TestRunEvent(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "action.yml"), []byte(eventAction), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := LoadAction(filepath.Join(dir, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"pull_request":{"base":{"sha":"abc123"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		github map[string]string
		event  string
		want   string
	}{
		{map[string]string{"event_name": "pull_request"}, event, "abc123"},
		{nil, "", ""},
	} {
		var log strings.Builder
		r, err := Run(context.Background(), Config{Action: a, ActionDir: dir, Workspace: t.TempDir(), OutDir: t.TempDir(),
			CacheDir: t.TempDir(), Github: c.github, Event: c.event, Env: []string{"PATH=" + os.Getenv("PATH")}, Stdout: &log})
		if err != nil {
			t.Errorf("%v: %v", c.github, err)
			continue
		}
		if r.Job != Success || r.Output("base") != c.want {
			t.Errorf("%v: job %s, base %q; want success and %q\n%s", c.github, r.Job, r.Output("base"), c.want, log.String())
		}
	}
	if _, err := Run(context.Background(), Config{Action: a, ActionDir: dir, Workspace: t.TempDir(), OutDir: t.TempDir(),
		Event: filepath.Join(dir, "action.yml")}); err == nil {
		t.Error("an event payload that is not JSON was taken")
	}
}
