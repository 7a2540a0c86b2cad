package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/redact"
)

// envPrefix names every option's environment variable, as the A2A CLI specification does: A2ACLI_ + the long flag
// in upper snake case (--poll-interval: A2ACLI_POLL_INTERVAL).
const envPrefix = "A2ACLI_"

// EnvName is the environment variable of a flag.
func EnvName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// noEnvFlags are flags no variable or file may set: asking for help or the version is the user's act, not a
// default; --stream changes the shape of -o json (one document or JSON Lines), which the a2a-cli specification
// (§7.2, §11.3) keeps a function of the command line alone; and the specification's OPTIONAL aliases name no
// variable of their own (§7.2: --async is A2ACLI_ASYNC, never A2ACLI_NO_WAIT).
// So are the flags that make up the message itself (its parts, their media types, the whole message): content a
// command line gives, not a setting (A2ACLI_FILE would attach a file to every message to every agent, and
// A2ACLI_MEDIA_TYPE made every send a usage error).
var noEnvFlags = map[string]bool{"help": true, "version": true, "stream": true,
	"return-immediately": true, "no-wait": true, "watch": true,
	"text": true, "text-part": true, "file": true, "file-part": true, "data": true, "data-part": true,
	"media-type": true, "json": true, "request-payload": true, "parts": true, "message-file": true}

// NoEnv reports a flag no variable may set (--help, --version, --stream).
func NoEnv(flag string) bool { return noEnvFlags[flag] }

// secretFlags hold credentials: `config show` masks them, and "@FILE" or "-" reads them from a file or stdin.
var secretFlags = map[string]bool{"auth": true, "bearer": true, "api-key": true, "client-secret": true}

// WithoutSecrets is env (KEY=value entries) without the variables that carry credentials (A2ACLI_AUTH,
// A2ACLI_BEARER, A2ACLI_API_KEY, A2ACLI_CLIENT_SECRET): the environment of a process a2a starts for someone else (a
// browser), which has no business with them.
func WithoutSecrets(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if secret := strings.TrimPrefix(strings.ToUpper(name), envPrefix); secret != strings.ToUpper(name) &&
			secretFlags[strings.ToLower(strings.ReplaceAll(secret, "_", "-"))] {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// Source says where an option's effective value came from.
type Source struct {
	Kind string // flag, env, file or default
	From string // the variable or file path, when Kind is env or file
}

func (s Source) String() string {
	if s.From == "" {
		return s.Kind
	}
	return s.Kind + " " + s.From
}

// loader is one Apply: the environment, stdin (for "-" secrets) and the sources found so far.
type loader struct {
	getenv  func(string) string
	stdin   io.Reader
	config  string // --config
	agent   string // the agent the command names (its <url>, -a), for per-agent settings; "" when none
	sources map[string]Source
}

// dotenvValue is one A2ACLI_ line of a dotenv file.
type dotenvValue struct{ value, path string }

// Apply fills every flag of fs the command line left unset: from the environment, then the dotenv files
// (--config, ./.env, the user's config directory, first wins), then the flag's default. It runs once, before the
// command, over the command's whole flag set, so a new flag gets its variable without code. It then reads secrets
// given as @FILE or - (stdin). It returns where each flag's value came from.
func Apply(fs *pflag.FlagSet, getenv func(string) string, stdin io.Reader) (map[string]Source, error) {
	return ApplyFor(fs, getenv, stdin, "")
}

// ApplyFor is Apply for a command that names an agent: the settings scoped to that agent (files.go) count too.
func ApplyFor(fs *pflag.FlagSet, getenv func(string) string, stdin io.Reader, agent string) (map[string]Source, error) {
	f := &loader{getenv: getenv, stdin: stdin, agent: agent, sources: map[string]Source{}}
	if err := f.apply(fs); err != nil {
		return nil, err
	}
	return f.sources, nil
}

func (f *loader) apply(fs *pflag.FlagSet) error {
	if fl := fs.Lookup("config"); fl != nil && !fl.Changed {
		if v := f.getenv(EnvName("config")); v != "" {
			if err := fl.Value.Set(v); err != nil {
				return client.Usagef("invalid %s=%q: %v", EnvName("config"), v, err)
			}
			fl.Changed = true
			f.sources["config"] = Source{Kind: "env", From: EnvName("config")}
		}
	}
	if fl := fs.Lookup("config"); fl != nil {
		f.config = fl.Value.String()
	}
	files, err := f.loadDotenv()
	if err != nil {
		return err
	}
	var errs []error
	fs.VisitAll(func(fl *pflag.Flag) {
		if noEnvFlags[fl.Name] {
			return
		}
		if fl.Changed {
			if _, ok := f.sources[fl.Name]; !ok {
				f.sources[fl.Name] = Source{Kind: "flag"}
			}
			return
		}
		name := EnvName(fl.Name)
		val, src := f.getenv(name), Source{Kind: "env", From: name}
		if val == "" {
			dv, ok := files[name]
			if !ok {
				f.sources[fl.Name] = Source{Kind: "default"}
				return
			}
			val, src = dv.value, Source{Kind: "file", From: dv.path}
		}
		if err := fl.Value.Set(val); err != nil {
			errs = append(errs, client.Usagef("invalid %s=%q (%s): %v", name, maskIf(fl.Name, val), src, err))
			return
		}
		fl.Changed = true
		f.sources[fl.Name] = src
	})
	if len(errs) > 0 {
		return errs[0]
	}
	return f.readSecrets(fs)
}

// maskIf hides val when the flag carries a secret.
func maskIf(flag, val string) string {
	if secretFlags[flag] {
		return "***"
	}
	return val
}

// fileFlags take "@FILE" or "-" as well as a value: the credentials, and the OAuth client id that goes with a
// client secret (kept in the same kind of file or pipe as the secret, but not masked: it is no secret).
var fileFlags = []string{"auth", "bearer", "api-key", "client-secret", "client-id"}

// readSecrets replaces the "@FILE" of a credential flag (or --client-id) by the file's first line and "-" by
// stdin's, so a secret need not appear in ps or the shell history.
func (f *loader) readSecrets(fs *pflag.FlagSet) error {
	stdinUsed := ""
	for _, name := range fileFlags {
		fl := fs.Lookup(name)
		if fl == nil {
			continue
		}
		v := fl.Value.String()
		var data []byte
		switch {
		case v == "-":
			if stdinUsed != "" {
				return client.Usagef("--%s - and --%s - cannot both read stdin", stdinUsed, name)
			}
			stdinUsed = name
			b, err := io.ReadAll(io.LimitReader(f.stdin, 64<<10))
			if err != nil {
				return fmt.Errorf("read --%s from stdin: %w", name, err)
			}
			data = b
		case strings.HasPrefix(v, "@"):
			b, err := os.ReadFile(v[1:])
			if err != nil {
				return client.Usagef("read --%s file: %v", name, err)
			}
			data = b
		default:
			continue
		}
		secret, _, _ := strings.Cut(string(data), "\n")
		secret = strings.TrimRight(secret, "\r")
		if secret == "" {
			return client.Usagef("--%s %s: nothing in it", name, v)
		}
		if err := fl.Value.Set(secret); err != nil {
			return client.Usagef("invalid --%s: %v", name, err)
		}
	}
	return nil
}

// dotenvPaths are the dotenv files, most important first: --config or else ./.env (the a2a-cli specification, §7.2
// and §8.3: an explicit file is read in place of the local one, so a file chosen for one agent takes no credentials
// from the directory's), then the user's config directory.
func (f *loader) dotenvPaths() []string {
	var paths []string
	if f.config != "" {
		paths = append(paths, f.config)
	} else {
		paths = append(paths, ".env")
	}
	if dir := f.userConfigDir(); dir != "" {
		if key := agentKey(f.agent); key != "" {
			paths = append(paths, filepath.Join(dir, "a2a", "agents", key+".env")) // files.go
		}
		paths = append(paths, filepath.Join(dir, "a2a", ".env"), filepath.Join(dir, "a2a", "config.yaml"), filepath.Join(dir, "a2a", "config.json"))
	}
	return paths
}

// userConfigDir is os.UserConfigDir read through Streams.Getenv: $XDG_CONFIG_HOME, else ~/.config ($APPDATA on
// Windows when HOME is unset).
func (f *loader) userConfigDir() string {
	if d := f.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return d
	}
	if h := f.getenv("HOME"); h != "" {
		return filepath.Join(h, ".config")
	}
	return f.getenv("APPDATA")
}

// loadDotenv reads the A2ACLI_ lines of every dotenv file; a name in a more important file wins. A missing
// ./.env or user file is fine; a missing --config file is a usage error.
func (f *loader) loadDotenv() (map[string]dotenvValue, error) {
	out := map[string]dotenvValue{}
	paths := f.dotenvPaths()
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		data, err := os.ReadFile(p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && (f.config == "" || i > 0) {
				continue
			}
			return nil, client.Usagef("read config file: %v", err)
		}
		vals, err := f.parseFile(p, data) // files.go: dotenv, or YAML/JSON with per-agent sections
		if err != nil {
			return nil, client.Usagef("config file %s: %v", p, err)
		}
		for k, v := range vals {
			if strings.HasPrefix(k, envPrefix) {
				out[k] = dotenvValue{value: v, path: p}
			}
		}
	}
	return out, nil
}

// parseDotenv reads KEY=VALUE lines: blank lines and # comments skipped, an optional "export ", values in single
// quotes taken as they are, in double quotes with \n, \" and \\ escapes, bare values up to a " #" comment.
func parseDotenv(data []byte) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("line %d: want NAME=value", n)
		}
		v = strings.TrimSpace(v)
		switch {
		case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
			v = v[1 : len(v)-1]
		case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
			v = strings.NewReplacer(`\n`, "\n", `\"`, `"`, `\\`, `\`).Replace(v[1 : len(v)-1])
		default:
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
		}
		out[k] = v
	}
	return out, sc.Err()
}

// Entry is one line of `config show`.
type Entry struct {
	Name   string `json:"name"`
	Env    string `json:"env"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Entries lists the options of fs with their effective values and sources (from Apply), secrets masked.
func Entries(fs *pflag.FlagSet, sources map[string]Source) []Entry {
	var out []Entry
	fs.VisitAll(func(fl *pflag.Flag) {
		if noEnvFlags[fl.Name] {
			return
		}
		v := fl.Value.String()
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			v = strings.Join(redactParams(fl.Name, sv.GetSlice()), ",")
		}
		if secretFlags[fl.Name] && v != "" {
			v = "***"
		}
		src := sources[fl.Name]
		if src.Kind == "" {
			src.Kind = "default"
		}
		out = append(out, Entry{Name: fl.Name, Env: EnvName(fl.Name), Value: v, Source: src.String()})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// redactParams masks the values of key=value service parameters whose key names a credential.
func redactParams(flag string, vals []string) []string {
	if flag != "svc-param" {
		return vals
	}
	out := make([]string, len(vals))
	for i, kv := range vals {
		k, _, _ := strings.Cut(kv, "=")
		if redact.Sensitive(k) {
			kv = k + "=" + redact.Mask
		}
		out[i] = kv
	}
	return out
}
