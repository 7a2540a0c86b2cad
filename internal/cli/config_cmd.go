package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/a2acli/a2a/internal/config"
	"github.com/a2acli/a2a/internal/output"
)

func newConfigCmd(f *factory) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show the configuration: flags, environment, dotenv files", RunE: nounArgs}
	show := &cobra.Command{
		Use:   "show",
		Short: "Print every global option's effective value and where it came from",
		Long: `Print every global option's effective value and its source: flag, env (the variable), file (the dotenv
file) or default. Credentials are masked. Each option is read from, in this order: the flag, the environment
variable A2ACLI_<FLAG> (upper snake case), the dotenv files (--config PATH or else ./.env, then
$XDG_CONFIG_HOME/a2a/.env or ~/.config/a2a/.env), the default.`,
		Example: `  a2a config show
  A2ACLI_TIMEOUT=5s a2a config show -o json`,
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			entries := config.Entries(cmd.InheritedFlags(), f.sources)
			if f.opts.output == string(output.JSON) {
				b, err := json.Marshal(map[string]any{"options": entries})
				if err != nil {
					return err
				}
				return f.writeJSON(b)
			}
			tw := tabwriter.NewWriter(f.io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "OPTION\tVALUE\tSOURCE")
			for _, e := range entries {
				v := e.Value
				if v == "" {
					v = `""`
				}
				fmt.Fprintf(tw, "--%s\t%s\t%s\n", e.Name, output.Sanitize(v), e.Source)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(show)
	return cmd
}
