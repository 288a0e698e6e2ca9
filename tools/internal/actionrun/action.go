package actionrun

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Action is a composite action's action.yml: what the dry run executes.
type Action struct {
	Path    string
	Name    string
	Inputs  []Input
	Outputs []Output
	Steps   []Step
}

// Input is one of the action's inputs.
type Input struct {
	Name     string
	Default  string
	Required bool
	Line     int
}

// Output is one of the action's outputs: an expression over the steps.
type Output struct {
	Name  string
	Value string
	Line  int
}

// Step is one step of runs.steps, its fields as written (expressions not
// yet evaluated).
type Step struct {
	Line             int
	ID               string
	Name             string
	If               string
	Shell            string
	Run              string
	Uses             string
	WorkingDirectory string
	Env              []KeyValue
	With             []KeyValue
}

// Title names the step in messages: its name, else as GitHub's log does,
// "Run " and the action or the script's first line.
func (s Step) Title() string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Uses != "":
		return "Run " + s.Uses
	}
	first, _, _ := strings.Cut(strings.TrimSpace(s.Run), "\n")
	return "Run " + first
}

// LoadAction reads and checks a composite action's action.yml. Keys the
// dry run does not know are errors naming the file and line: GitHub may
// accept them, but the dry run would not do what they ask.
func LoadAction(path string) (*Action, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &Action{Path: path}
	if err := a.parse(&doc); err != nil {
		return nil, err
	}
	return a, nil
}

// actionError is a finding in action.yml, printed as file:line: message.
type actionError struct {
	file string
	line int
	msg  string
}

func (e *actionError) Error() string { return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg) }

func (a *Action) errorf(n *yaml.Node, format string, args ...any) error {
	return &actionError{file: a.Path, line: n.Line, msg: fmt.Sprintf(format, args...)}
}

// mapping returns n's key and value nodes in order, refusing keys outside
// allowed and keys given twice.
func (a *Action) mapping(n *yaml.Node, what string, allowed ...string) ([][2]*yaml.Node, error) {
	if n.Kind != yaml.MappingNode {
		return nil, a.errorf(n, "%s must be a mapping", what)
	}
	var kvs [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			return nil, a.errorf(k, "%s: the key %q is not supported by the dry run (it knows %v)", what, k.Value, allowed)
		}
		if seen[k.Value] {
			return nil, a.errorf(k, "%s: %q given twice", what, k.Value)
		}
		seen[k.Value] = true
		kvs = append(kvs, [2]*yaml.Node{k, v})
	}
	return kvs, nil
}

func (a *Action) scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", a.errorf(n, "%s must be a string", what)
	}
	return n.Value, nil
}

func (a *Action) parse(doc *yaml.Node) error {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return fmt.Errorf("%s: not a YAML document", a.Path)
	}
	top, err := a.mapping(doc.Content[0], "action.yml", "name", "description", "author", "branding", "inputs", "outputs", "runs")
	if err != nil {
		return err
	}
	sawRuns := false
	for _, kv := range top {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "name":
			if a.Name, err = a.scalar(v, "name"); err != nil {
				return err
			}
		case "inputs":
			if err := a.parseInputs(v); err != nil {
				return err
			}
		case "outputs":
			if err := a.parseOutputs(v); err != nil {
				return err
			}
		case "runs":
			sawRuns = true
			if err := a.parseRuns(v); err != nil {
				return err
			}
		}
	}
	if !sawRuns {
		return a.errorf(doc.Content[0], "no runs: section")
	}
	return nil
}

func (a *Action) parseInputs(n *yaml.Node) error {
	kvs, err := a.mapping(n, "inputs")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		in := Input{Name: kv[0].Value, Line: kv[0].Line}
		fields, err := a.mapping(kv[1], "input "+in.Name, "description", "required", "default", "deprecationMessage")
		if err != nil {
			return err
		}
		for _, f := range fields {
			switch f[0].Value {
			case "default":
				if in.Default, err = a.scalar(f[1], "input "+in.Name+": default"); err != nil {
					return err
				}
			case "required":
				if err := f[1].Decode(&in.Required); err != nil {
					return a.errorf(f[1], "input %s: required must be true or false", in.Name)
				}
			}
		}
		a.Inputs = append(a.Inputs, in)
	}
	return nil
}

func (a *Action) parseOutputs(n *yaml.Node) error {
	kvs, err := a.mapping(n, "outputs")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		out := Output{Name: kv[0].Value, Line: kv[0].Line}
		fields, err := a.mapping(kv[1], "output "+out.Name, "description", "value")
		if err != nil {
			return err
		}
		for _, f := range fields {
			if f[0].Value == "value" {
				if out.Value, err = a.scalar(f[1], "output "+out.Name+": value"); err != nil {
					return err
				}
			}
		}
		a.Outputs = append(a.Outputs, out)
	}
	return nil
}

func (a *Action) parseRuns(n *yaml.Node) error {
	kvs, err := a.mapping(n, "runs", "using", "steps")
	if err != nil {
		return err
	}
	for _, kv := range kvs {
		switch kv[0].Value {
		case "using":
			if kv[1].Value != "composite" {
				return a.errorf(kv[1], "runs.using is %q: the dry run runs composite actions only", kv[1].Value)
			}
		case "steps":
			if kv[1].Kind != yaml.SequenceNode {
				return a.errorf(kv[1], "runs.steps must be a list")
			}
			for _, sn := range kv[1].Content {
				s, err := a.parseStep(sn)
				if err != nil {
					return err
				}
				a.Steps = append(a.Steps, s)
			}
		}
	}
	ids := map[string]bool{}
	for _, s := range a.Steps {
		if s.ID == "" {
			continue
		}
		if ids[s.ID] {
			return &actionError{file: a.Path, line: s.Line, msg: fmt.Sprintf("step id %q is used twice", s.ID)}
		}
		ids[s.ID] = true
	}
	return nil
}

func (a *Action) parseStep(n *yaml.Node) (Step, error) {
	s := Step{Line: n.Line}
	kvs, err := a.mapping(n, "step", "id", "name", "if", "shell", "run", "uses", "with", "env", "working-directory")
	if err != nil {
		return s, err
	}
	for _, kv := range kvs {
		k, v := kv[0], kv[1]
		var err error
		switch k.Value {
		case "id":
			s.ID, err = a.scalar(v, "id")
		case "name":
			s.Name, err = a.scalar(v, "name")
		case "if":
			s.If, err = a.scalar(v, "if")
		case "shell":
			s.Shell, err = a.scalar(v, "shell")
		case "run":
			s.Run, err = a.scalar(v, "run")
		case "uses":
			s.Uses, err = a.scalar(v, "uses")
		case "working-directory":
			s.WorkingDirectory, err = a.scalar(v, "working-directory")
		case "env", "with":
			var fields [][2]*yaml.Node
			fields, err = a.mapping(v, k.Value)
			for _, f := range fields {
				if err != nil {
					break
				}
				var val string
				val, err = a.scalar(f[1], k.Value+"."+f[0].Value)
				if k.Value == "env" {
					s.Env = append(s.Env, KeyValue{f[0].Value, val})
				} else {
					s.With = append(s.With, KeyValue{f[0].Value, val})
				}
			}
		}
		if err != nil {
			return s, err
		}
	}
	switch {
	case s.Run != "" && s.Uses != "":
		return s, a.errorf(n, "step %s has both run: and uses:", s.Title())
	case s.Run == "" && s.Uses == "":
		return s, a.errorf(n, "step %s has neither run: nor uses:", s.Title())
	case s.Run != "" && s.Shell == "":
		return s, a.errorf(n, "step %s: a composite action's run: step needs shell:", s.Title())
	case s.Uses != "" && (s.Shell != "" || s.WorkingDirectory != ""):
		return s, a.errorf(n, "step %s: shell: and working-directory: are for run: steps", s.Title())
	}
	return s, nil
}
