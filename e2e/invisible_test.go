package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// invisibleName holds every kind of invisible or reordering character a card name can hide: zero-width space,
// non-joiner and joiner, the bidi marks, an override, an isolate, the byte-order mark and the line separator.
const invisibleName = "Pay\u200bPal ad\u200dm\u200cin \u200elrm\u200f rlo\u202eexe.txt\u202c iso\u2066x\u2069 bom\ufeff ls\u2028next"

// TestInvisibleCardNameShownEscaped: zero-width and bidi characters in a card's name reach
// neither discover's card (stdout) nor its -v log (stderr) raw; each is shown as an escape, like other control
// characters. The agent is a hand-written net/http server.
func TestInvisibleCardNameShownEscaped(t *testing.T) {
	t.Parallel()
	name, err := json.Marshal(invisibleName)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":%s,"description":"d","version":"1","capabilities":{},"skills":[{"id":"s","name":%s,"description":"d","tags":[]}],
			"defaultInputModes":[],"defaultOutputModes":[],"supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`,
			name, name, "http://"+r.Host+"/rpc")
	}))
	t.Cleanup(srv.Close)

	r := run(t, "", "discover", srv.URL, "-v")
	wantCode(t, r, 0)
	// The joiners (U+200C, U+200D) are kept in prose (the -v log's body dump), as emoji and Persian text need them;
	// in names, ids and the card they are shown escaped too.
	_, cardLine, _ := strings.Cut(r.stderr, "* card: ")
	for what, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "the -v card line": cardLine} {
		if i := strings.IndexFunc(out, func(c rune) bool {
			return c == 0x200b || c == 0x200e || c == 0x200f || c == 0x202e || c == 0x202c ||
				c == 0x2066 || c == 0x2069 || c == 0xfeff || c == 0x2028 ||
				(what != "stderr" && (c == 0x200c || c == 0x200d))
		}); i >= 0 {
			t.Errorf("discover -v: an invisible character reached %s raw at %d: %q", what, i, out)
		}
	}
	wantContains(t, "discover's card", field(r.stdout, "Name"),
		`Pay\u200bPal ad\u200dm\u200cin \u200elrm\u200f rlo\u202eexe.txt\u202c iso\u2066x\u2069 bom\ufeff ls\u2028next`)
	wantContains(t, "discover -v", cardLine, `Pay\u200bPal ad\u200dm\u200cin`, `\u202eexe.txt`)
}
