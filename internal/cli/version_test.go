package cli

import (
	"context"
	"testing"
)

// --version prints what `a2a version` prints, though the root no longer builds that line on every start.
func TestVersionFlagIsVersionLine(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		s, _, out, errOut := TestStreams()
		if code := Main(context.Background(), args, s); code != 0 || out.String() != versionString()+"\n" || errOut.Len() > 0 {
			t.Errorf("a2a %s: exit %d, stdout %q, stderr %q; want 0 and %q", args[0], code, out, errOut, versionString()+"\n")
		}
	}
}
