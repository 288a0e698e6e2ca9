package actionrun

import (
	"reflect"
	"testing"
)

func TestParseKeyValueFile(t *testing.T) {
	for _, tc := range []struct {
		data string
		want []KeyValue
	}{
		{"", nil},
		{"a=1\n", []KeyValue{{"a", "1"}}},
		{"a=\nb=x=y\n\nc<<d=e\n", nil}, // c<<d=e: '=' comes after '<<', so a heredoc that never closes (below)
		{"a=\nb=x=y\n", []KeyValue{{"a", ""}, {"b", "x=y"}}},
		{"s=a<<b\n", []KeyValue{{"s", "a<<b"}}},
		{"multi<<EOF\nline 1\n\nline=3\nEOF\nnext=1\n", []KeyValue{{"multi", "line 1\n\nline=3"}, {"next", "1"}}},
		{"empty<<ghadelimiter_1\nghadelimiter_1\n", []KeyValue{{"empty", ""}}},
		{"crlf=1\r\nm<<E\r\nx\r\nE\r\n", []KeyValue{{"crlf", "1"}, {"m", "x"}}},
		{"dup=1\ndup=2\n", []KeyValue{{"dup", "1"}, {"dup", "2"}}},
	} {
		got, err := parseKeyValueFile(tc.data)
		if tc.want == nil && tc.data != "" {
			if err == nil {
				t.Errorf("%q: want an error, got %v", tc.data, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.data, got, err, tc.want)
		}
	}
	for _, bad := range []string{"novalue\n", "=v\n", "m<<EOF\nnever closed\n", "<<EOF\nEOF\n", "m<<\n"} {
		if got, err := parseKeyValueFile(bad); err == nil {
			t.Errorf("%q: want an error, got %v", bad, got)
		}
	}
}

func TestParsePathFile(t *testing.T) {
	got := parsePathFile("/a\n\n/b c\r\n")
	if !reflect.DeepEqual(got, []string{"/a", "/b c"}) {
		t.Errorf("got %q", got)
	}
}

func TestParseAnnotation(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Annotation
		ok   bool
	}{
		{"::error file=agent.yaml,line=6,title=sysgate baseline unreviewed::/usr/bin/dash needs a reason",
			Annotation{Level: "error", File: "agent.yaml", Line: 6, Title: "sysgate baseline unreviewed", Message: "/usr/bin/dash needs a reason"}, true},
		{"::warning title=a%3Ab%2Cc::50%25%0Anext",
			Annotation{Level: "warning", Title: "a:b,c", Message: "50%\nnext"}, true},
		{"  ::notice::plain", Annotation{Level: "notice", Message: "plain"}, true},
		{"::group::not an annotation", Annotation{}, false},
		{"::add-mask::secret", Annotation{}, false},
		{"error: plain text", Annotation{}, false},
		{"::error missing the second colons", Annotation{}, false},
	} {
		got, ok := parseAnnotation(tc.line)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q: got %+v %v, want %+v %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzParseKeyValueFile(f *testing.F) {
	f.Add("a=1\nm<<E\nx\nE\n")
	f.Fuzz(func(t *testing.T, data string) {
		kvs, err := parseKeyValueFile(data)
		if err != nil {
			return
		}
		for _, kv := range kvs {
			if kv.Key == "" {
				t.Fatalf("%q: an entry without a name", data)
			}
		}
	})
}
