// Package config says where each of the CLI's options gets its value: the flag, else the environment variable
// A2ACLI_<FLAG> (EnvName), else the dotenv files (--config, ./.env, the user's a2a/.env), else the default. Apply
// fills a parsed pflag.FlagSet that way once, before the command runs, reads credentials given as @FILE or -
// (stdin), and returns each option's Source; Entries lists them, secrets masked, for `a2a config show`.
//
// It works on pflag flag sets only: it must not import cobra or internal/cli, and it prints nothing.
package config
