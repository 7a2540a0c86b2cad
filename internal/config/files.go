package config

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/a2acli/a2a/third_party/go-yaml/yaml"
)

// Configuration files beside dotenv: a file whose name ends in .yaml, .yml or .json holds the same settings as a
// map, keyed by the long flag (bearer, agent-card, timeout) or by the variable (A2ACLI_BEARER), and may scope
// settings to one agent (the a2a-cli specification, §8.3: settings scoped by agent-card reference):
//
//	timeout: 1m
//	agents:
//	  localhost:8080:
//	    bearer: s3cret
//
// A section applies when the command's agent reference names the same host and port; within a file it wins over
// the file's other settings. For dotenv, the user's a2a/agents/HOST_PORT.env file is the agent's own.

// parseFile reads one configuration file's A2ACLI_ settings.
func (f *loader) parseFile(path string, data []byte) (map[string]string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("not YAML: %v", err)
		}
		return f.structured(doc)
	case ".json":
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("not a JSON object: %v", err)
		}
		return f.structured(doc)
	}
	return parseDotenv(data)
}

// structured flattens a YAML or JSON document into variables: its top-level settings, then the section of the
// command's agent over them.
func (f *loader) structured(doc map[string]any) (map[string]string, error) {
	out := map[string]string{}
	var agents map[string]any
	for k, v := range doc {
		if k == "agents" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("agents: want a map of agent references to settings")
			}
			agents = m
			continue
		}
		s, err := scalar(k, v)
		if err != nil {
			return nil, err
		}
		out[varName(k)] = s
	}
	want := agentKey(f.agent)
	for ref, v := range agents {
		if want == "" || agentKey(ref) != want {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("agents.%s: want a map of settings", ref)
		}
		for k, v := range m {
			s, err := scalar(k, v)
			if err != nil {
				return nil, err
			}
			out[varName(k)] = s
		}
	}
	return out, nil
}

// varName is the variable a key names: A2ACLI_X as it is, a flag name as its variable.
func varName(k string) string {
	if strings.HasPrefix(strings.ToUpper(k), envPrefix) {
		return strings.ToUpper(k)
	}
	return EnvName(k)
}

// scalar is a setting's value as the flag reads it; a list is joined by commas (--transport's preference order).
func scalar(k string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int:
		return strconv.Itoa(x), nil
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), nil
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, err := scalar(k, e)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, ","), nil
	case nil:
		return "", nil
	}
	return "", fmt.Errorf("%s: want a string, number, boolean or list", k)
}

// agentKey is the host_port an agent reference names ("" for none, or a card file): the key of its settings.
func agentKey(ref string) string {
	if ref == "" {
		return ""
	}
	raw := ref
	if !strings.Contains(raw, "://") {
		if strings.ContainsAny(raw, `/\`) && !strings.Contains(strings.SplitN(raw, "/", 2)[0], ":") {
			return "" // a path: a card file
		}
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[strings.ToLower(u.Scheme)]
	}
	host := strings.ToLower(u.Hostname())
	if port == "" {
		return host
	}
	return strings.NewReplacer(":", "_", "[", "", "]", "").Replace(net.JoinHostPort(host, port))
}
