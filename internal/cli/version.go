package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X github.com/a2acli/a2a/internal/cli.version=…".
var version = "dev"

type versionInfo struct {
	Version   string   `json:"version"`
	Commit    string   `json:"commit,omitempty"`
	Modified  bool     `json:"modified,omitempty"`
	Go        string   `json:"go"`
	A2AGo     string   `json:"a2aGo"`
	Protocols []string `json:"protocols"`
}

func buildInfo() versionInfo {
	v := versionInfo{Version: version, Go: runtime.Version(), Protocols: []string{string(a2a.Version), "0.3"}}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/a2aproject/a2a-go/v2" {
				v.A2AGo = d.Version
			}
		}
		// Without -ldflags, the module version (go install …@vX) or the VCS revision of the build names it.
		if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Commit = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

func versionString() string {
	v := buildInfo()
	ver := v.Version
	if v.Commit != "" {
		c := v.Commit[:min(12, len(v.Commit))]
		if v.Modified {
			c += "-dirty"
		}
		ver += " " + c
	}
	return fmt.Sprintf("a2a %s (a2a-go %s, %s, protocols %v)", ver, v.A2AGo, v.Go, v.Protocols)
}

var addVersionFunc sync.Once

// versionTemplate is the root's --version template: it builds the version line (reading the build information)
// only when --version asks for it, not on every start.
func versionTemplate() string {
	addVersionFunc.Do(func() { cobra.AddTemplateFunc("a2aVersion", versionString) })
	return "{{a2aVersion}}\n"
}

func newVersionCmd(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version of a2a",
		Example: "  a2a version\n  a2a version -o json",
		Args:    exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.opts.output == "json" {
				b, err := json.Marshal(buildInfo())
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(f.io.Out, "%s\n", b)
				return err
			}
			_, err := fmt.Fprintln(f.io.Out, versionString())
			return err
		},
	}
}
