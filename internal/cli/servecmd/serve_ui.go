package servecmd

import (
	"github.com/a2acli/a2a/internal/inspect"
	"github.com/a2acli/a2a/internal/serve"
)

// applyUI mounts the inspector page when --ui is set; with a token, serve prints a one-time link to it.
func (o *serveOptions) applyUI(cfg *serve.Config) {
	if o.ui {
		cfg.Inspector = inspect.New(inspect.Options{Token: cfg.Token != ""})
	}
}
