package output

import (
	"bytes"
	"strings"
	"testing"
)

func TestJQ(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, expr, in, want string
	}{
		{"strings print raw and sanitised", ".name", `{"name":"a\u001b[2Jb"}` + "\n", "ab\n"},
		{"values print compact", ".task", `{"task":{"id":"t","n":[1,2]}}` + "\n", `{"id":"t","n":[1,2]}` + "\n"},
		{"one result per output", ".[]", `[1,2.5,12345678901234567890]` + "\n", "1\n2.5\n12345678901234567000\n"},
		{"a stream line by line", ".n", "{\"n\":1}\n{\"n\":2}\n", "1\n2\n"},
		{"halt prints nothing", "halt", `{"n":1}` + "\n", ""},
		{"no newline waits for Flush", ".n", `{"n":3}`, "3\n"},
		{"blank lines are skipped", ".", "\n  \n", ""},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		j, err := NewJQ(&out, tt.expr)
		if err != nil {
			t.Fatalf("%s: NewJQ(%q) = %v", tt.name, tt.expr, err)
		}
		if _, err := j.Write([]byte(tt.in)); err != nil {
			t.Fatalf("%s: Write() = %v", tt.name, err)
		}
		if err := j.Flush(); err != nil {
			t.Fatalf("%s: Flush() = %v", tt.name, err)
		}
		if out.String() != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, out.String(), tt.want)
		}
		if j.Under() != &out {
			t.Errorf("%s: Under() is not the writer given", tt.name)
		}
	}
}

func TestJQErrors(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{".[", "nosuchfunction(1)"} {
		if _, err := NewJQ(&bytes.Buffer{}, expr); err == nil {
			t.Errorf("NewJQ(%q) = nil error, want the expression's error", expr)
		}
	}
	j, err := NewJQ(&bytes.Buffer{}, ".a.b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Write([]byte("not json\n")); err == nil || !strings.Contains(err.Error(), "--jq: output is not JSON") {
		t.Errorf("Write(not json) = %v, want the not-JSON error", err)
	}
	if _, err := j.Write([]byte(`{"a":1}` + "\n")); err == nil || !strings.HasPrefix(err.Error(), "--jq: ") {
		t.Errorf("Write() of a failing filter = %v, want a --jq error", err)
	}
}
