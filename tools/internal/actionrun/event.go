package actionrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// The event that started the job: github.event_name, github.event (the
// webhook payload) and the GITHUB_EVENT_NAME and GITHUB_EVENT_PATH the
// runner sets. A pull_request event carries pull_request.base.sha, the
// commit a pull request is compared with.

// setEvent reads the payload (Config.Event, else an empty object) and
// writes the copy every step's GITHUB_EVENT_PATH names, under the
// runner's temp as the runner keeps it.
func (j *job) setEvent() error {
	payload := []byte("{}")
	if j.cfg.Event != "" {
		b, err := os.ReadFile(j.cfg.Event)
		if err != nil {
			return fmt.Errorf("event: %w", err)
		}
		payload = b
	}
	var v any
	if err := json.Unmarshal(payload, &v); err != nil {
		return fmt.Errorf("event %s: %w", j.cfg.Event, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("event %s: not a JSON object", j.cfg.Event)
	}
	j.eventPath = filepath.Join(j.temp, "_github_workflow", "event.json")
	if err := os.MkdirAll(filepath.Dir(j.eventPath), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(j.eventPath, payload, 0o644); err != nil {
		return err
	}
	// An open object: a property the payload lacks is null, as on GitHub
	// (github.event.pull_request on a push).
	j.github["event"] = jsonValue("github.event", v)
	return nil
}

// jsonValue turns decoded JSON into an expression value. Arrays are not
// simulated (no expression of the action indexes one): they become null.
func jsonValue(name string, v any) Value {
	switch v := v.(type) {
	case map[string]any:
		fields := make(map[string]Value, len(v))
		for k, f := range v {
			fields[k] = jsonValue(name+"."+k, f)
		}
		return objectValue(name, false, fields)
	case string:
		return stringValue(v)
	case float64:
		return numberValue(v)
	case bool:
		return boolValue(v)
	}
	return null
}
