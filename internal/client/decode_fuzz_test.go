package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseCard: any body an agent serves as its card is parsed or refused with an error, never a panic; a
// card it accepts lists only interfaces with a URL and survives a JSON round trip unchanged. Its one pass reads
// every card as the two passes of parseCardSlow (keys first, then the card of that version) do: the same card or
// the same error, so a card's version is told the same way (the seeds below are the edges of that).
func FuzzParseCard(f *testing.F) {
	for _, seed := range []string{
		`null`, `[]`, `"card"`, `{}`, `{"url":""}`, `{"supportedInterfaces":"no"}`, `{"supportedInterfaces":null,"url":"http://h"}`,
		`{"SupportedInterfaces":[{"url":"http://h"}],"url":"http://h/v03"}`,
		`{"SUPPORTEDINTERFACES":[{"url":"http://h"}],"description":"\"supportedInterfaces\""}`,
		`{"SUPPORTEDINTERFACES":[{"url":"http://h"}],"description":"supportedInterfaces"}`,
		`{"ſupportedInterfaceſ":[{"url":"http://h"}],"skills":[{"id":"supportedInterfaces","tags":["x"]}],"url":"http://v03"}`,
		`{"supportedInterface\u0073":[{"url":"http://h"}]}`,
		`{"supportedInterfaces":[{"url":"http://a"}],"SUPPORTEDINTERFACES":[{"url":"http://b"}]}`,
		`{"SUPPORTEDINTERFACES":[{"url":"http://b"}] , "supportedInterfaces" : [{"url":"http://a"}]}`,
		`{"x\"supportedInterfaces":1,"SupportedInterfaces":[{"url":"http://b"}],"url":"http://v03"}`,
		`{"name":5,"supportedInterfaces":[{"url":"http://h"}]}`,
		`{"supportedInterfaces":[{"url":"http://h"}],"securitySchemes":{"b":{"type":"http","scheme":"bearer"}}}`,
		`{"url":"http://h","protocolVersion":"0.3.0","securitySchemes":{"b":{"type":"http","scheme":"bearer"}},"security":[{"b":[]}]}`,
		`{"url":"http://h","preferredTransport":"HTTP+JSON","supportsAuthenticatedExtendedCard":true}`,
		`{"supportedInterfaces":[{"url":"http://h","protocolBinding":"GRPC"}],"url":"http://ignored"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Add([]byte(`{"name":"a","supportedInterfaces":[{"url":"http://127.0.0.1:1","protocolBinding":"JSONRPC"}]}`))
	f.Add([]byte(`{"name":"a","url":"http://h/rpc","protocolVersion":"0.3.0","capabilities":{"streaming":true},"skills":[]}`))
	f.Add([]byte(`{"url":"http://h","preferredTransport":"GRPC","additionalInterfaces":[{"url":"http://h/r","transport":"HTTP+JSON"}]}`))
	f.Add([]byte(`{"supportedInterfaces":[null,{"url":""},{"url":"x","protocolVersion":"0.3"}],"securitySchemes":{"b":{"httpAuthSecurityScheme":{"scheme":"bearer"}}}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		card, err := ParseCard(body)
		slow, slowErr := parseCardSlow(body)
		// The same error: its kind (the text before the first colon; a2a-go's own text after it may list a map's
		// keys in any order).
		if kind := func(err error) string { k, _, _ := strings.Cut(fmt.Sprint(err), ":"); return k }; kind(err) != kind(slowErr) {
			t.Fatalf("parseCard(%q): one pass: %v, two passes: %v", body, err, slowErr)
		}
		if err != nil {
			return
		}
		if a, err := json.Marshal(card); err == nil {
			b, _ := json.Marshal(slow)
			if diff := cmp.Diff(string(b), string(a)); diff != "" {
				t.Fatalf("parseCard(%q): one pass and two passes read another card (-two +one):\n%s", body, diff)
			}
		}
		for _, iface := range card.SupportedInterfaces {
			if iface == nil || iface.URL == "" {
				t.Fatalf("parseCard(%q) kept an interface without a URL: %+v", body, iface)
			}
		}
		once, err := json.Marshal(card)
		if err != nil {
			return // a value json.Marshal cannot write (a NaN): nothing to round-trip
		}
		again, err := ParseCard(once)
		if err != nil {
			t.Fatalf("parseCard(%s), a card it produced: %v", once, err)
		}
		twice, err := json.Marshal(again)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(once), string(twice)); diff != "" {
			t.Fatalf("card changed in a round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzSSEEvents: the client's SSE reader yields the same events and errors whether the body arrives whole
// or a byte at a time, and never panics.
func FuzzSSEEvents(f *testing.F) {
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"statusUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_WORKING\"}}}}\n\n"))
	f.Add([]byte("data: {\"kind\":\"status-update\",\"taskId\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"completed\"},\"final\":true}\r\n\r\n"))
	f.Add([]byte("event: e\ndata: {\"artifactUpdate\":\ndata: {\"taskId\":\"t\",\"artifact\":{\"artifactId\":\"a\",\"parts\":[{\"text\":\"x\"}]}}}\n\n: comment\n\n"))
	f.Add([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}\n\n"))
	f.Add([]byte("data: not json\n\ndata:{\"task\":{\"id\":\"t\",\"contextId\":\"c\",\"status\":{\"state\":\"TASK_STATE_COMPLETED\"}}}"))
	f.Fuzz(func(t *testing.T, body []byte) {
		whole := readSSE(bytes.NewReader(body))
		if got := readSSE(iotest.OneByteReader(bytes.NewReader(body))); !cmp.Equal(whole, got) {
			t.Fatalf("body %q byte by byte:\n%q\nwhole:\n%q", body, got, whole)
		}
	})
}

// readSSE returns each event SSEEvents yields as JSON, or its error.
func readSSE(r io.Reader) []string {
	var out []string
	for ev, err := range SSEEvents(r) {
		if err != nil {
			out = append(out, "error: "+err.Error())
			continue
		}
		b, merr := json.Marshal(ev)
		out = append(out, fmt.Sprintf("%T %s %v", ev, b, merr))
	}
	return out
}
