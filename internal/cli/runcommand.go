package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"

	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/devtool"
	"github.com/a2acli/a2a/internal/follow"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/spf13/cobra"
)

type runCommandOptions struct {
	f          *factory
	withClient withClientFunc
	url        string
	words      []string // NAME ARGS…, NAME split at spaces
	dt         devtoolOptions
}

func newRunCommandCmd(f *factory, runF func(context.Context, *runCommandOptions) error) *cobra.Command {
	o := &runCommandOptions{f: f, withClient: f.withClient, dt: devtoolOptions{answerTimeout: defaultAnswerTimeout}}
	cmd := &cobra.Command{
		Use:   "command <url> <name> [args...]",
		Short: "Run a slash command of a coding agent and stream its output",
		Long: `Run one of the slash commands a coding agent lists (see 'a2a list commands'). NAME may hold the subcommand
("memory show") or the subcommand may follow as an argument (memory show). The RFC's command/execute is used where
the agent has it (then the execution's task is streamed, permission prompts included), the Gemini CLI server's
POST /executeCommand otherwise.`,
		Example: `  a2a run command localhost:41242 memory show
  a2a run command localhost:41242 "memory add" "always use tabs"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return exactArgs("<url>", "<name>")(cmd, args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url = args[0]
			o.words = append(strings.Fields(strings.TrimPrefix(args[1], "/")), args[2:]...)
			if len(o.words) == 0 {
				return &client.UsageError{Msg: "empty command name", Cmd: cmd.CommandPath()}
			}
			if err := o.dt.check(""); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runRunCommand(cmd.Context(), o)
		},
	}
	cmd.Flags().BoolVar(&o.dt.approve, "approve", false, "approve every tool call the command asks permission for (once)")
	cmd.Flags().BoolVar(&o.dt.reject, "reject", false, "reject every tool call the command asks permission for")
	cmd.Flags().DurationVar(&o.dt.answerTimeout, "answer-timeout", defaultAnswerTimeout, "give up when the agent sends nothing this long after a permission answer")
	cmd.MarkFlagsMutuallyExclusive("approve", "reject")
	return cmd
}

func newRunCmd(f *factory) *cobra.Command {
	run := &cobra.Command{Use: "run", Short: "Run something on an agent: command", RunE: nounArgs}
	run.AddCommand(newRunCommandCmd(f, nil))
	return run
}

func runRunCommand(ctx context.Context, o *runCommandOptions) error {
	return o.withClient(ctx, o.url, func(ctx context.Context, c *client.Conn) error {
		path, args := o.words, []string(nil)
		if len(o.words) > 1 {
			cmds, _, err := fetchCommands(ctx, o.f, c)
			if err != nil {
				o.f.log.Printf("list commands to split %q: %v", strings.Join(o.words, " "), err)
			}
			path, args = devtool.SplitCommandLine(o.words, cmds)
		}
		if c.SpeaksJSONRPC() {
			raw, err := c.RPC(ctx, "command/execute", map[string]any{"command_path": path, "args": strings.Join(args, " ")})
			if err == nil {
				return o.followExecution(ctx, c, raw)
			}
			if !client.MethodMissing(err) {
				return fmt.Errorf("command/execute: %w", err)
			}
			o.f.log.Printf("command/execute: %v: trying POST /executeCommand", err)
		}
		return o.executeGemini(ctx, c, path, args)
	})
}

// followExecution prints the RFC's ExecuteSlashCommandResponse and streams the execution's task, whose events carry
// the command's output (and its permission prompts).
func (o *runCommandOptions) followExecution(ctx context.Context, c *client.Conn, raw json.RawMessage) error {
	var res struct {
		ExecutionID  string `json:"execution_id"`
		ExecutionID2 string `json:"executionId"`
		Status       any    `json:"status"`
		Message      string `json:"message"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return fmt.Errorf("decode command/execute answer: %w", err)
	}
	id := res.ExecutionID + res.ExecutionID2
	status := fmt.Sprint(res.Status)
	if status == "FAILED_TO_START" || status == "2" {
		return fmt.Errorf("command failed to start: %s", oneLine(res.Message))
	}
	if id == "" {
		return o.f.printer().CommandResult(raw)
	}
	p := o.f.printer()
	if o.f.opts.output == string(output.JSON) {
		if err := p.CommandResult(raw); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(o.f.io.Err, "command started: execution %s (%s)\n", output.Sanitize(id), output.Sanitize(status))
	}
	t := o.f.newTurn(c, o.url, &o.dt, p)
	t.Ask = o.f.terminalAsker(&o.dt)
	err := t.Run(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return c.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(id), Tenant: o.f.opts.Tenant})
	})
	if err != nil && t.View.Task == nil && (errors.Is(err, a2a.ErrTaskNotFound) || finishedTaskRefusal(err)) {
		// The execution has no task to follow (or it ended already): the answer above is all there is.
		o.f.log.Printf("subscribe to execution %s: %v", id, err)
		err = nil
	}
	return o.finish(ctx, p, t, err)
}

func (o *runCommandOptions) finish(ctx context.Context, p *output.Printer, t *follow.Turn, err error) error {
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if t.Stopped {
		return o.f.stopAtPrompt(ctx, t, true)
	}
	return o.f.outcome(o.url, t.View.Task)
}

// executeGemini runs the command through POST /executeCommand {"command":"memory show","args":[…]}: a JSON answer is
// printed, an event stream is rendered like send --stream.
func (o *runCommandOptions) executeGemini(ctx context.Context, c *client.Conn, path, args []string) error {
	if args == nil {
		args = []string{}
	}
	body, err := json.Marshal(map[string]any{"command": strings.Join(path, " "), "args": args})
	if err != nil {
		return fmt.Errorf("encode command: %w", err)
	}
	u := c.HostURL("/executeCommand")
	p := o.f.printer()
	t := o.f.newTurn(c, o.url, &o.dt, p)
	t.Ask = o.f.terminalAsker(&o.dt)
	var result json.RawMessage
	err = t.Run(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return func(yield func(a2a.Event, error) bool) {
			resp, err := c.Do(ctx, http.MethodPost, u, body)
			if err != nil {
				yield(nil, err)
				return
			}
			defer resp.Body.Close()
			if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
				raw, err := readAll(resp)
				if err != nil {
					yield(nil, err)
					return
				}
				result = raw
				return
			}
			for ev, err := range client.SSEEvents(resp.Body) {
				if !yield(ev, err) || err != nil {
					return
				}
			}
		}
	})
	if err == nil && result != nil {
		err = p.CommandResult(result)
	}
	return o.finish(ctx, p, t, err)
}

// readAll reads a whole JSON answer; a non-2xx status is an error with the agent's message.
func readAll(resp *http.Response) (json.RawMessage, error) {
	raw, err := io.ReadAll(io.LimitReader(resp.Body, client.MaxCommandBody))
	if err != nil {
		return nil, fmt.Errorf("read command answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, &client.HTTPError{Code: resp.StatusCode, Msg: client.ErrorText(raw, resp.Status)}
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("command answer is not JSON: %.200s", raw)
	}
	return raw, nil
}
