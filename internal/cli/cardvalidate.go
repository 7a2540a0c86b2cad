package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/a2acli/a2a/internal/cardcheck"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// validateCard is --validate: the card with its findings; an error among them fails the command (exit 1,
// A2ACLI_ERR_CARD_INVALID), whose JSON error document carries the report as its data.
func (f *factory) validateCard(ctx context.Context, card *a2a.AgentCard, raw []byte, cardURL string, checks bool, notes []output.CardNote) error {
	ctx, cancel := client.TimeoutContext(ctx, f.opts.Timeout)
	defer cancel()
	opts := cardcheck.Options{CardURL: cardURL, HTTP: f.dialer().HTTPClient()}
	if !strings.HasPrefix(cardURL, "http://") && !strings.HasPrefix(cardURL, "https://") {
		opts.CardURL = ""
	}
	rep := cardcheck.Validate(ctx, raw, opts)
	n := rep.Errors()
	if n == 0 || f.opts.output != string(output.JSON) {
		if err := f.printCard(card, checks, append(notes, validationNote(rep))); err != nil {
			return err
		}
	}
	if n == 0 {
		return nil
	}
	data, _ := json.Marshal(rep) // a Report always marshals
	return &client.DataError{Data: data, Err: &client.CardError{URL: cardURL, Err: fmt.Errorf("%d validation error%s", n, plural(n)),
		Hint: "the findings say where: fix the card, or tell its author"}}
}

// validationNote: "Validation: v1.0, 1 error, 0 warnings" and one line per finding.
func validationNote(r *cardcheck.Report) output.CardNote {
	errs := r.Errors()
	warns := len(r.Findings) - errs
	lines := []string{fmt.Sprintf("v%s, %d error%s, %d warning%s", r.Version, errs, plural(errs), warns, plural(warns))}
	for _, f := range r.Findings {
		path := f.Path
		if path == "" {
			path = "/"
		}
		lines = append(lines, fmt.Sprintf("%s %s: %s", f.Level, path, f.Message))
	}
	return output.CardNote{Label: "Validation", Lines: lines, Member: "validation", JSON: r}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// validateUnreadable validates a card that did not parse: the findings, then the parse error.
func (f *factory) validateUnreadable(ctx context.Context, ce *client.CardError) error {
	ctx, cancel := client.TimeoutContext(ctx, f.opts.Timeout)
	defer cancel()
	opts := cardcheck.Options{HTTP: f.dialer().HTTPClient()}
	if strings.HasPrefix(ce.URL, "http://") || strings.HasPrefix(ce.URL, "https://") {
		opts.CardURL = ce.URL
	}
	rep := cardcheck.Validate(ctx, ce.Body, opts)
	if f.opts.output != string(output.JSON) {
		note := validationNote(rep)
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %s\n", note.Label, note.Lines[0])
		for _, l := range note.Lines[1:] {
			b.WriteString("  " + output.Sanitize(l) + "\n")
		}
		if _, err := io.WriteString(f.io.Out, b.String()); err != nil {
			return err
		}
	}
	data, _ := json.Marshal(rep) // a Report always marshals
	return &client.DataError{Data: data, Err: ce}
}
