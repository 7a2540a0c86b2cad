package servecmd

import (
	"strings"
	"testing"
)

// TestEveryBackendNamed: each backend of backends() is chosen by its own flag alone, and is named where a user looks:
// the usage line, the long help, the error listing the backends, the error of a flag given no value, and (a risky
// one alone) the help's sentence on what needs a --token beyond loopback.
func TestEveryBackendNamed(t *testing.T) {
	values := map[string]string{"CMD": "cat", "URL": "http://127.0.0.1:1", "FILE": "x.jsonl", "HOST:PORT": "127.0.0.1:1"}
	for _, b := range backends() {
		a := b.about()
		o := &serveOptions{backends: backends()}
		cmd := New(Deps{})
		if cmd.Flags().Lookup(a.flag) == nil {
			t.Errorf("--%s: no such flag", a.flag)
		}
		if !strings.Contains(cmd.Use, a.use) || a.help == "" || !strings.Contains(cmd.Long, a.help) {
			t.Errorf("--%s: not in the usage line %q or the long help", a.flag, cmd.Use)
		}
		if a.does == "" || !strings.Contains(o.backendList(), "--"+a.flag) {
			t.Errorf("--%s: not in the list of backends: %s", a.flag, o.backendList())
		}
		// The help's guard sentence names the backends that need a --token beyond loopback: the risky ones.
		_, guard, _ := strings.Cut(cmd.Long, "beyond loopback, ")
		guard, _, found := strings.Cut(guard, " need a --token")
		if !found {
			t.Fatalf("serve's long help has no sentence naming the backends that need a --token")
		}
		if named := strings.Contains(guard+" ", "--"+a.flag+" ") || strings.Contains(guard, "--"+a.flag+","); named != a.risky {
			t.Errorf("--%s: risky %v, but the help's sentence %q names it: %v", a.flag, a.risky, guard, named)
		}
		if a.needs != "" && (a.value == "" || values[a.needs] == "") {
			t.Errorf("--%s %s: no sentence for its value", a.flag, a.needs)
		}
		// The flag chooses its backend and no other.
		args := []string{"--" + a.flag}
		if a.needs != "" {
			args[0] += "=" + values[a.needs]
		}
		chosen := 0
		for _, other := range withFlags(t, args) {
			if other.chosen() {
				chosen++
				if other.about().flag != a.flag {
					t.Errorf("--%s chose --%s too", a.flag, other.about().flag)
				}
			}
		}
		if chosen != 1 {
			t.Errorf("--%s chose %d backends, want its own", a.flag, chosen)
		}
	}
}

// withFlags returns serve's backends with args parsed into their flags.
func withFlags(t *testing.T, args []string) []backendFlags {
	t.Helper()
	bs := backends()
	cmd := New(Deps{})
	cmd.ResetFlags()
	for _, b := range bs {
		b.addFlags(cmd)
	}
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return bs
}
