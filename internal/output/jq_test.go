package output

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
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

// jqChild marks the process TestJQFirstUse starts for itself.
const jqChild = "A2A_JQ_FIRST_USE"

// TestJQFirstUse checks our patched gojq (third_party/itchyny/gojq: the builtin tables are built on the first
// Compile, not in init): several goroutines at once compile the process's first filters, using builtins written in
// jq (map, select, join) and in Go (length, tostring, @base64), and get their results. The test runs itself again
// in a new process, so that its goroutines are the very first users of the package whatever ran before; -race
// checks that first use.
func TestJQFirstUse(t *testing.T) {
	if os.Getenv(jqChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestJQFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), jqChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestJQFirstUse") {
			t.Fatalf("the first use in a new process: %v\n%s", err, out)
		}
		return
	}
	const goroutines = 8
	start := make(chan struct{})
	errs := make(chan error, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			var out bytes.Buffer
			expr := `([.n[] | select(. > 1) | tostring] | join(",")) + " " + (.n | length | tostring) + " " + (.s | @base64)`
			if i%2 == 1 {
				expr = `(.n | map(. * 2) | add | tostring) + " " + (.s | ascii_upcase)`
			}
			j, err := NewJQ(&out, expr)
			if err == nil {
				_, err = j.Write([]byte(`{"n":[1,2,3],"s":"ab"}` + "\n"))
			}
			want := "2,3 3 YWI=\n"
			if i%2 == 1 {
				want = "12 AB\n"
			}
			if err == nil && out.String() != want {
				err = fmt.Errorf("%s: got %q, want %q", expr, out.String(), want)
			}
			errs <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
