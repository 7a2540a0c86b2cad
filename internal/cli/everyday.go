package cli

import (
	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
)

// everyday are the global options beyond the protocol's own: credentials beside --auth, dotenv files, client TLS,
// output controls.
type everyday struct {
	config string
	color  string
	jqExpr string
}

// addEverydayFlags registers the flags of everyday on the root's persistent set.
func (f *factory) addEverydayFlags(pf *pflag.FlagSet) {
	o := &f.opts.everyday
	pf.StringVar(&f.opts.Bearer, "bearer", "", "bearer `token`, sent as \"Authorization: Bearer <token>\" (@FILE or - reads it from a file or stdin)")
	pf.StringVar(&f.opts.APIKey, "api-key", "", "API `key`, sent in the header the card's apiKey scheme names, else X-API-Key (@FILE or -: from a file or stdin)")
	pf.StringVar(&o.config, "config", "", "dotenv `file` of A2ACLI_ variables, read in place of ./.env, before ~/.config/a2a/.env")
	pf.StringVar(&f.opts.CACert, "cacert", "", "trust the CA certificates in this PEM `file` (besides the system's)")
	pf.StringVar(&f.opts.Cert, "cert", "", "client certificate PEM `file` for mutual TLS (with --key)")
	pf.StringVar(&f.opts.Key, "key", "", "client private key PEM `file` for mutual TLS (with --cert)")
	pf.StringVar(&o.color, "color", "auto", "colour: auto, always or never (auto honours NO_COLOR, CLICOLOR, CLICOLOR_FORCE, FORCE_COLOR)")
	pf.StringVar(&o.jqExpr, "jq", "", "filter JSON output with a jq `expression` (implies -o json; strings print raw)")
}

// prepareEveryday checks and loads the everyday options once flags, environment and files are read.
func (f *factory) prepareEveryday(fs *pflag.FlagSet) error {
	o := &f.opts.everyday
	switch o.color {
	case "auto", "always", "never":
	default:
		return client.Usagef("invalid --color %q: want auto, always or never", o.color)
	}
	f.io.ColorMode = o.color
	if f.opts.Bearer != "" && f.opts.Auth != "" {
		return client.Usagef("--bearer and --auth both set the Authorization header: give one")
	}
	if err := f.opts.LoadTLS(); err != nil {
		return err
	}
	if o.jqExpr != "" {
		if fl := fs.Lookup("output"); fl != nil && fl.Changed && f.opts.output != string(output.JSON) {
			return client.Usagef("--jq filters JSON: drop -o %s", f.opts.output)
		}
		f.opts.output = string(output.JSON)
		jw, err := output.NewJQ(f.io.Out, o.jqExpr)
		if err != nil {
			return client.Usagef("invalid --jq expression: %v", err)
		}
		f.jq = jw
		f.io.Out = jw
	}
	return nil
}
