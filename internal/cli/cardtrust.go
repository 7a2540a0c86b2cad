package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/a2acli/a2a/internal/cardsig"
	"github.com/a2acli/a2a/internal/client"
	"github.com/a2acli/a2a/internal/output"
	"github.com/a2aproject/a2a-go/v2/a2a"
)

// cardSignature classifies the signatures of a card as it arrived (see package cardsig): keys from --trust-keys,
// else from the jku of a card fetched over https.
func (f *factory) cardSignature(ctx context.Context, raw []byte, cardURL string) (cardsig.Result, error) {
	if !strings.HasPrefix(cardURL, "https://") && !strings.HasPrefix(cardURL, "http://") {
		cardURL = "" // a card file: no origin for a jku
	}
	ctx, cancel := client.TimeoutContext(ctx, f.opts.Timeout)
	defer cancel()
	keys, err := cardsig.NewKeys(ctx, f.dialer().HTTPClient(), cardURL, f.opts.trustKeys)
	if err != nil {
		return cardsig.Result{}, err
	}
	r := cardsig.Verify(ctx, raw, keys)
	f.log.Printf("card signature: %s %s %s", r.Status, r.KeyID, r.Reason)
	return r, nil
}

// verifyCard is --verify: anything but a verified card is a SignatureError.
func (f *factory) verifyCard(ctx context.Context, raw []byte, cardURL string) (cardsig.Result, error) {
	r, err := f.cardSignature(ctx, raw, cardURL)
	if err != nil {
		return r, err
	}
	if f.opts.verify && r.Status != cardsig.Verified {
		return r, &client.SignatureError{URL: cardURL, Status: string(r.Status), Reason: r.Reason}
	}
	return r, nil
}

// checkSignature classifies a signed card's signatures before a call made without --verify: the -v log says what
// they amount to, and an invalid signature (a tampered card, or one signed by another key than the one trusted) is
// a warning on stderr. An unsigned card costs nothing; --verify makes anything but verified an error instead.
func (f *factory) checkSignature(ctx context.Context, raw []byte, cardURL string) {
	r, err := f.cardSignature(ctx, raw, cardURL)
	if err != nil {
		f.log.Printf("card signature: %v", err)
		return
	}
	if r.Status == cardsig.Invalid {
		fmt.Fprintf(f.io.Err, "warning: the agent card's signature is invalid: %s (--verify refuses such a card)\n", output.Sanitize(r.Reason))
	}
}

// signatureNote is the classification as the card's output shows it: "Signature: verified (kid …, jku …)".
func signatureNote(r cardsig.Result) output.CardNote {
	line := string(r.Status)
	switch {
	case r.Status == cardsig.Verified:
		line += fmt.Sprintf(" (%s, kid %s, key from %s)", r.Algorithm, r.KeyID, r.KeySource)
	case r.Reason != "":
		line += ": " + r.Reason
	}
	return output.CardNote{Label: "Signature", Lines: []string{line}, Member: "signatureCheck", JSON: r, Quiet: r.Status == cardsig.Absent}
}

// printCard prints a card and what a2a found out about it (notes): in text, the notes after the card's fields; in
// JSON and raw, the card alone on stdout (an AgentCard a program can save and read back) and the notes as text on
// stderr (but an unsigned card's: signing is optional, and a pipe's stderr need not say so every time), or, with checks (--checks), one document {"card":…,"signatureCheck":…,"validation":…} on stdout.
func (f *factory) printCard(card *a2a.AgentCard, checks bool, notes []output.CardNote) error {
	p := f.printer()
	if f.opts.output == string(output.Text) {
		return p.CardNotes(card, notes...)
	}
	if checks {
		return p.CardChecks(card, notes...)
	}
	if err := p.Card(card); err != nil {
		return err
	}
	return output.WriteNotes(f.io.Err, notes...)
}
