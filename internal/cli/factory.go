package cli

import (
	"context"
	"io"
	"time"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/config"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2acli/a2a/internal/spinner"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// globalOptions are the flags every client verb shares: how to reach an agent (Options) and how to present what it
// says.
type globalOptions struct {
	client.Options
	output  string
	verbose bool
	fail    bool
	// wait is --poll-interval and --wait of the verbs that wait for a task (send, subscribe); zero elsewhere.
	wait follow.Wait
	// verify is --verify: a card whose signatures are not verified is an error; trustKeys are --trust-keys.
	verify    bool
	trustKeys []string
	// everyday holds --config, --color and --jq (see everyday.go).
	everyday
	// canon holds the a2a-cli specification's global flags (canonical.go).
	canon canonicalOptions
}

// factory is the state of one run: the streams, the parsed options, the -v log and the run's one Dialer. Every verb
// reaches agents through withClient and nothing else.
type factory struct {
	io *Streams
	// term is the terminal stderr shows on, shared by the spinner and every write to it (nil: no terminal).
	term *spinner.Terminal
	opts *globalOptions
	log  *client.Log
	// started is set once flags and arguments were accepted: an error before that is a usage error.
	started bool
	// cmdPath is the running command's path, for help hints.
	cmdPath string
	// failDoc: under --fail with -o json, a task's result was not printed; report prints the error document instead.
	failDoc bool
	// dial connects to agents; built on first use, shared by every connection of the run (see dialer).
	dial *client.Dialer
	// sources says where each option's value came from (see applyConfig); jq filters stdout under --jq.
	sources map[string]config.Source
	jq      *output.JQ
	// idleClose bounds the wait for the agent to close idle connections after a turn stopped at a prompt (0:
	// idleCloseBound); tests shorten it.
	idleClose time.Duration
	// inChat: the printer renders for the interactive chat (see printer).
	inChat bool
	// agentURL is the agent the run reached through withClient, and storedToken whether a token of `auth login`
	// went with it: a refusal's hint names `a2a auth login` for it.
	agentURL    string
	storedToken bool
	// agentOAuth: the agent's card declares an oauth2 or openIdConnect scheme; agentCard is that card.
	agentOAuth bool
	agentCard  *a2a.AgentCard
	// catchSignals starts delivering SIGINT and SIGTERM to run; called once flags parsed, so that `--help` and
	// `--version` start no signal handling.
	catchSignals func()
}

// dialer is the run's Dialer: one HTTP client and keep-alive pool for every connection.
func (f *factory) dialer() *client.Dialer {
	if f.dial == nil {
		var warn io.Writer
		if f.io != nil {
			warn = f.io.Err
		}
		f.dial = client.NewDialer(&f.opts.Options, f.log, warn)
	}
	return f.dial
}

// withClient connects to the agent named by rawURL, runs fn, and closes the client.
func (f *factory) withClient(ctx context.Context, rawURL string, fn func(ctx context.Context, c *client.Conn) error) error {
	if f.opts.Tenant != "" {
		ctx = a2a.AttachTenant(ctx, f.opts.Tenant)
	}
	c, err := f.connect(ctx, rawURL)
	if err != nil {
		return err
	}
	defer c.Destroy() //nolint:errcheck // closing a client has nothing useful to report
	return fn(ctx, c)
}

// connect connects to the agent named by rawURL as every verb does: with the token `auth login` stored for its
// origin when the user gave no credentials, and its card's signature checked (--verify) or reported.
func (f *factory) connect(ctx context.Context, rawURL string) (*client.Conn, error) {
	f.agentURL = rawURL
	if err := f.useStoredToken(ctx, rawURL); err != nil {
		return nil, err
	}
	c, err := f.dialer().Connect(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	f.agentOAuth, f.agentCard = declaresOAuth(c.Card), c.Card
	switch {
	case f.opts.verify && c.Card != nil:
		if _, err := f.verifyCard(ctx, c.CardBytes, c.CardURL); err != nil {
			_ = c.Destroy() // closing a client has nothing useful to report
			return nil, err
		}
	case c.Card != nil && len(c.Card.Signatures) > 0:
		f.checkSignature(ctx, c.CardBytes, c.CardURL)
	}
	return c, nil
}

// printer renders to stdout in the chosen format.
func (f *factory) printer() *output.Printer {
	return output.New(f.io.Out, output.Options{
		Format: output.Format(f.opts.output),
		Color:  f.outputColor(),
		Indent: false, // -o json: the same bytes on a terminal and in a pipe
		Width:  f.io.Width,
		// The chat's header names the task once per task: its stream need not restate it.
		NoRestate: f.inChat,
	})
}

// withClientFunc is the shape of factory.withClient; verbs hold one so tests may swap it.
type withClientFunc func(ctx context.Context, rawURL string, fn func(ctx context.Context, c *client.Conn) error) error
