package actionrun

import (
	"fmt"
	"strings"
)

// KeyValue is one entry of a GITHUB_OUTPUT or GITHUB_ENV file.
type KeyValue struct{ Key, Value string }

// parseKeyValueFile reads a GITHUB_OUTPUT or GITHUB_ENV file as the runner
// does: "name=value" lines, and "name<<DELIMITER" followed by the value's
// lines and a line that is exactly DELIMITER. A line that is neither, or a
// missing delimiter, is an error naming the line (the runner fails the
// step for it).
func parseKeyValueFile(data string) ([]KeyValue, error) {
	lines := strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n")
	var kvs []KeyValue
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		eq := strings.Index(line, "=")
		heredoc := strings.Index(line, "<<")
		switch {
		case eq >= 0 && (heredoc < 0 || eq < heredoc):
			key := line[:eq]
			if key == "" {
				return nil, fmt.Errorf("line %d: %q has no name before '='", i+1, line)
			}
			kvs = append(kvs, KeyValue{key, line[eq+1:]})
		case heredoc >= 0:
			key, delim := line[:heredoc], line[heredoc+2:]
			if key == "" || delim == "" {
				return nil, fmt.Errorf("line %d: %q needs a name before and a delimiter after '<<'", i+1, line)
			}
			var value []string
			closed := false
			for i++; i < len(lines); i++ {
				if lines[i] == delim {
					closed = true
					break
				}
				value = append(value, lines[i])
			}
			if !closed {
				return nil, fmt.Errorf("%s<<%s: no line %q closes the value", key, delim, delim)
			}
			kvs = append(kvs, KeyValue{key, strings.Join(value, "\n")})
		default:
			return nil, fmt.Errorf("line %d: %q is neither name=value nor name<<DELIMITER", i+1, line)
		}
	}
	return kvs, nil
}

// parsePathFile reads a GITHUB_PATH file: one directory a line.
func parsePathFile(data string) []string {
	var dirs []string
	for _, line := range strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n") {
		if line != "" {
			dirs = append(dirs, line)
		}
	}
	return dirs
}

// Annotation is an ::error, ::warning or ::notice workflow command a step
// printed: what GitHub shows on the job and on the file's line.
type Annotation struct {
	Step    string `json:"step"`
	Level   string `json:"level"` // error, warning, notice
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Title   string `json:"title,omitempty"`
	Message string `json:"message"`
}

func (a Annotation) String() string {
	where := ""
	if a.File != "" {
		where = a.File
		if a.Line > 0 {
			where += fmt.Sprintf(":%d", a.Line)
		}
		where += ": "
	}
	title := ""
	if a.Title != "" {
		title = " [" + a.Title + "]"
	}
	return fmt.Sprintf("%s: %s%s%s", a.Level, where, a.Message, title)
}

// parseAnnotation reads one output line as a workflow command
// "::error file=F,line=N,title=T::message" (properties and message
// %-escaped). ok is false for any other line.
func parseAnnotation(line string) (Annotation, bool) {
	line = strings.TrimRight(line, "\r")
	rest, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), "::")
	if !ok {
		return Annotation{}, false
	}
	cmd, msg, ok := strings.Cut(rest, "::")
	if !ok {
		return Annotation{}, false
	}
	name, props, _ := strings.Cut(cmd, " ")
	a := Annotation{Level: name, Message: unescapeData(msg)}
	switch name {
	case "error", "warning", "notice":
	default:
		return Annotation{}, false
	}
	for _, p := range strings.Split(props, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		v = unescapeProperty(v)
		switch k {
		case "file":
			a.File = v
		case "line":
			fmt.Sscanf(v, "%d", &a.Line)
		case "title":
			a.Title = v
		}
	}
	return a, true
}

func unescapeData(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%25", "%").Replace(s)
}

func unescapeProperty(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}
