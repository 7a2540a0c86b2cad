package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
)

// The fast stream reader of the v1.0 JSON-RPC and REST bindings (at wire speed). a2a-go decodes every event
// of a stream by reflection (a JSON-RPC envelope, then a StreamResponse union, then each part's union), which was
// most of the client's CPU on a stream of small chunks. fastStreams keeps a2a-go for everything it does right and
// replaces only that decoding:
//   - the request is a2a-go's own: its transport builds and sends it (URL, tenant, headers, service params), and
//     the answer goes through our HTTP client (credential guard, caps, -v log, answerCheck). When the answer is a
//     200 (an event stream), streamCapture keeps its body and hands a2a-go an empty one, so a2a-go ends its stream
//     with no event, and the body is read here. Any other answer stays a2a-go's to turn into its error.
//   - the SSE framing is a2a-go's, rule for rule (sseDataEvents).
//   - an event of the hot shape (an artifact-update of text parts, see decodeFast) is decoded by hand; any other
//     well-formed event by encoding/json into a2a-go's own types, as a2a-go does (decodeGeneral); error events and
//     anything malformed by a2a-go itself (decodeBySDK), so each gives the same event or the same error.
// TestFastStreamDifferential and FuzzStreamDecode hold the whole to a2a-go's decoding.

// captureKey marks a request whose 200 answer streamCapture keeps. The body comes back through this context value
// (against the habit of STYLE.md) because a2a-go's transport stands between the call and the RoundTripper and
// has no other way to hand it over; the slot lives for one call, and one client may run several streams at once.
type captureKey struct{}

// captured is where streamCapture puts the body of the answer.
type captured struct{ body io.ReadCloser }

// streamCapture is the RoundTripper a2a-go's streaming transports send through.
type streamCapture struct{ base http.RoundTripper }

func (s streamCapture) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := s.base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	slot, ok := req.Context().Value(captureKey{}).(*captured)
	if !ok || resp.StatusCode != http.StatusOK || slot.body != nil {
		return resp, nil
	}
	slot.body = resp.Body
	cp := *resp
	cp.Body = http.NoBody
	return &cp, nil
}

// fastStreams is an a2a-go transport with its two streaming methods reading events here.
type fastStreams struct {
	a2aclient.Transport
	jsonrpc bool
	// sdk decodes one event the way a2a-go does (see decodeBySDK).
	sdk a2aclient.Transport
}

// fastTransport is the factory of a v1.0 JSON-RPC (jsonrpc) or REST binding over hc.
func fastTransport(hc *http.Client, jsonrpc bool) a2aclient.TransportFactory {
	return a2aclient.TransportFactoryFn(func(ctx context.Context, _ *a2a.AgentCard, iface *a2a.AgentInterface) (a2aclient.Transport, error) {
		u, err := url.Parse(iface.URL)
		if err != nil {
			return nil, fmt.Errorf("failed to parse endpoint URL: %w", err)
		}
		chc := &http.Client{Transport: streamCapture{base: hc.Transport}, CheckRedirect: hc.CheckRedirect, Jar: hc.Jar, Timeout: hc.Timeout}
		return &fastStreams{Transport: newSDKTransport(u, chc, jsonrpc), jsonrpc: jsonrpc, sdk: sdkDecoder(jsonrpc)}, nil
	})
}

func newSDKTransport(u *url.URL, hc *http.Client, jsonrpc bool) a2aclient.Transport {
	if jsonrpc {
		return a2aclient.NewJSONRPCTransport(u.String(), hc)
	}
	return a2aclient.NewRESTTransport(u, hc)
}

func (t *fastStreams) SendStreamingMessage(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SendMessageRequest) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.Transport.SendStreamingMessage(ctx, params, req)
	})
}

func (t *fastStreams) SubscribeToTask(ctx context.Context, params a2aclient.ServiceParams, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return t.stream(ctx, func(ctx context.Context) iter.Seq2[a2a.Event, error] {
		return t.Transport.SubscribeToTask(ctx, params, req)
	})
}

func (t *fastStreams) stream(ctx context.Context, open func(ctx context.Context) iter.Seq2[a2a.Event, error]) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		slot := &captured{}
		for ev, err := range open(context.WithValue(ctx, captureKey{}, slot)) {
			// Only an answer that was not captured gets here (an error, or events of a body we did not keep).
			if !yield(ev, err) {
				if slot.body != nil {
					slot.body.Close() //nolint:errcheck // nothing to report
				}
				return
			}
		}
		if slot.body == nil {
			return
		}
		defer slot.body.Close() //nolint:errcheck // nothing to report
		for data, err := range sseDataEvents(slot.body) {
			if err != nil {
				yield(nil, err)
				return
			}
			ev, err := t.decode(ctx, data)
			if !yield(ev, err) || err != nil {
				return
			}
		}
	}
}

// decode turns the data of one SSE event into the event (or error) a2a-go gives for it.
func (t *fastStreams) decode(ctx context.Context, data []byte) (a2a.Event, error) {
	if ev, ok := decodeFast(data, t.jsonrpc); ok {
		return ev, nil
	}
	if ev, ok := decodeGeneral(data, t.jsonrpc); ok {
		return ev, nil
	}
	if t.jsonrpc {
		if err := unreadableRPCError(data); err != nil {
			return nil, err
		}
	}
	return decodeBySDK(ctx, t.sdk, data)
}

// restEvent and rpcEnvelope are the shapes a2a-go's transports decode an event's data into (internal/rest
// streamResponse, internal/jsonrpc ClientResponse), field for field and tag for tag, but for the error object,
// kept raw: an event that has one goes to a2a-go.
type restEvent struct {
	Message        *a2a.Message                 `json:"message,omitempty"`
	Task           *a2a.Task                    `json:"task,omitempty"`
	StatusUpdate   *a2a.TaskStatusUpdateEvent   `json:"statusUpdate,omitempty"`
	ArtifactUpdate *a2a.TaskArtifactUpdateEvent `json:"artifactUpdate,omitempty"`
	Error          *json.RawMessage             `json:"error,omitempty"`
}

type rpcEnvelope struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      string           `json:"id"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   *json.RawMessage `json:"error,omitempty"`
}

// decodeGeneral decodes any well-formed event that is not an error as a2a-go does, with the same types, in one
// pass (a2a-go's own path through decodeBySDK costs a request's worth of allocations). ok is false for an error
// event and for anything a2a-go would fail on, which decodeBySDK then turns into a2a-go's very error.
func decodeGeneral(data []byte, jsonrpc bool) (a2a.Event, bool) {
	if jsonrpc {
		var env rpcEnvelope
		if json.Unmarshal(data, &env) != nil || env.Error != nil {
			return nil, false
		}
		var sr a2a.StreamResponse
		if json.Unmarshal(env.Result, &sr) != nil {
			return nil, false
		}
		return sr.Event, true
	}
	var w restEvent
	if json.Unmarshal(data, &w) != nil || w.Error != nil {
		return nil, false
	}
	var n int
	var ev a2a.Event
	if w.Message != nil {
		ev = w.Message
		n++
	}
	if w.Task != nil {
		ev = w.Task
		n++
	}
	if w.StatusUpdate != nil {
		ev = w.StatusUpdate
		n++
	}
	if w.ArtifactUpdate != nil {
		ev = w.ArtifactUpdate
		n++
	}
	return ev, n == 1
}

// decodeFast decodes the hot shape of an event's data: {"artifactUpdate":{...}} on REST, the same inside a
// {"jsonrpc":"2.0","id":"...","result":...} envelope on JSON-RPC. ok is false for anything else.
func decodeFast(data []byte, jsonrpc bool) (a2a.Event, bool) {
	p := &jparser{b: data}
	var ev *a2a.TaskArtifactUpdateEvent
	var ok bool
	if jsonrpc {
		ev, ok = p.envelope()
	} else {
		ev, ok = p.streamResponse()
	}
	if !ok {
		return nil, false
	}
	p.ws()
	if p.i != len(p.b) {
		return nil, false
	}
	return ev, true
}

// sdkEventKey carries the data of one event to sdkBody.
type sdkEventKey struct{}

// sdkDecoder is an a2a-go transport whose every stream is the one event its context carries: decodeBySDK runs
// a2a-go's own decoding on it, in memory.
func sdkDecoder(jsonrpc bool) a2aclient.Transport {
	u := &url.URL{Scheme: "http", Host: "decode.invalid"}
	return newSDKTransport(u, &http.Client{Transport: sdkBody{}}, jsonrpc)
}

type sdkBody struct{}

func (sdkBody) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close() //nolint:errcheck // in memory
	}
	data, _ := req.Context().Value(sdkEventKey{}).([]byte)
	var b bytes.Buffer
	b.Grow(len(data) + 16)
	b.WriteString("data: ")
	b.Write(bytes.ReplaceAll(data, []byte("\n"), []byte("\ndata: ")))
	b.WriteString("\n\n")
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(&b),
		Request: req,
	}, nil
}

// decodeBySDK decodes the data of one SSE event with a2a-go's own code: the first (and only) result of a stream
// whose body is that event.
func decodeBySDK(ctx context.Context, sdk a2aclient.Transport, data []byte) (a2a.Event, error) {
	ctx = context.WithValue(context.WithoutCancel(ctx), sdkEventKey{}, data)
	for ev, err := range sdk.SendStreamingMessage(ctx, nil, &a2a.SendMessageRequest{}) {
		return ev, err
	}
	// a2a-go yields nothing only for an empty event, which sseDataEvents never gives.
	return nil, fmt.Errorf("SSE event decoded to nothing")
}

// sseDataEvents yields the data of each event of an SSE stream exactly as a2a-go's reader (internal/sse
// ParseDataStream) does: lines as bufio.ScanLines cuts them, up to 10 MB; only data: fields count, one optional
// space after the colon dropped, joined by "\n"; a blank line ends an event; an event with no data is skipped.
// The data yielded is only good until the next event: the buffer is reused (decoding copies what it keeps).
func sseDataEvents(body io.Reader) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 0, 64*1024), 10*1024*1024)
		var event []byte
		flush := func() bool {
			if len(event) == 0 {
				return true
			}
			ok := yield(event, nil)
			event = event[:0]
			return ok
		}
		for sc.Scan() {
			line := sc.Bytes()
			if len(line) == 0 {
				if !flush() {
					return
				}
				continue
			}
			data, ok := bytes.CutPrefix(line, []byte("data:"))
			if !ok {
				continue
			}
			if len(data) > 0 && data[0] == ' ' {
				data = data[1:]
			}
			if len(event) > 0 {
				event = append(event, '\n')
			}
			event = append(event, data...)
		}
		if err := sc.Err(); err != nil {
			yield(nil, fmt.Errorf("SSE stream error: %w", err))
			return
		}
		flush()
	}
}

// jparser reads the few JSON shapes decodeFast accepts. Every method returns ok false on anything outside them
// (escapes in strings, null, numbers, unknown or repeated keys), which sends the event to a2a-go.
type jparser struct {
	b []byte
	i int
}

func (p *jparser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) lit(c byte) bool {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// plainByte marks the bytes a JSON string holds as they are: not '"', not '\\', no control character, ASCII.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// run returns the end of the run of plain bytes from j.
func (p *jparser) run(j int) int {
	b := p.b
	for j < len(b) && plainByte[b[j]] {
		j++
	}
	return j
}

// str reads a string as json.Unmarshal does, for valid UTF-8 and the escapes a JSON encoder writes (\n, \",
// \u003c...); a surrogate escape or invalid UTF-8 fails (json.Unmarshal's replacements are its own business).
func (p *jparser) str() (string, bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	j := p.run(start)
	if j < len(p.b) && p.b[j] == '"' {
		p.i = j + 1
		return string(p.b[start:j]), true
	}
	return p.escaped(start, j)
}

// escaped goes on reading the string that started at start from j, the first byte that is not plain.
func (p *jparser) escaped(start, j int) (string, bool) {
	var out strings.Builder
	out.Grow(j - start + 64)
	out.Write(p.b[start:j])
	for j < len(p.b) {
		c := p.b[j]
		switch {
		case c == '"':
			if !utf8.ValidString(out.String()) {
				return "", false
			}
			p.i = j + 1
			return out.String(), true
		case c < 0x20:
			return "", false
		case c != '\\':
			k := j + 1
			for k < len(p.b) && p.b[k] >= 0x80 {
				k++
			}
			k = p.run(k)
			out.Write(p.b[j:k])
			j = k
			continue
		}
		if j+1 >= len(p.b) {
			return "", false
		}
		switch e := p.b[j+1]; e {
		case '"', '\\', '/':
			out.WriteByte(e)
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		case 'n':
			out.WriteByte('\n')
		case 'r':
			out.WriteByte('\r')
		case 't':
			out.WriteByte('\t')
		case 'u':
			if j+6 > len(p.b) {
				return "", false
			}
			var r rune
			for _, h := range p.b[j+2 : j+6] {
				switch {
				case h >= '0' && h <= '9':
					r = r<<4 | rune(h-'0')
				case h >= 'a' && h <= 'f':
					r = r<<4 | rune(h-'a'+10)
				case h >= 'A' && h <= 'F':
					r = r<<4 | rune(h-'A'+10)
				default:
					return "", false
				}
			}
			if r >= 0xD800 && r < 0xE000 {
				return "", false
			}
			out.WriteRune(r)
			j += 6
			continue
		default:
			return "", false
		}
		j += 2
	}
	return "", false
}

func (p *jparser) boolean() (bool, bool) {
	p.ws()
	switch {
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return false, true
	}
	return false, false
}

// object reads {"key": value, ...}, calling field for each key once; a repeated key fails.
func (p *jparser) object(field func(key string) bool) bool {
	if !p.lit('{') {
		return false
	}
	if p.lit('}') {
		return true
	}
	var seen []string
	for {
		k, ok := p.str()
		if !ok || !p.lit(':') {
			return false
		}
		for _, s := range seen {
			if s == k {
				return false
			}
		}
		seen = append(seen, k)
		if !field(k) {
			return false
		}
		if p.lit(',') {
			continue
		}
		return p.lit('}')
	}
}

// jfield is one key an object the fast path reads may hold, and where its value goes: a string, a boolean, or
// what read reads. A key the object's fields do not list makes it one the fast path does not read.
type jfield struct {
	key  string
	str  *string
	flag *bool
	read func() bool
}

// fields reads an object whose keys are among fs, each at most once.
func (p *jparser) fields(fs ...jfield) bool {
	return p.object(func(k string) bool {
		for i := range fs {
			f := &fs[i]
			if f.key != k {
				continue
			}
			var ok bool
			switch {
			case f.str != nil:
				*f.str, ok = p.str()
			case f.flag != nil:
				*f.flag, ok = p.boolean()
			default:
				ok = f.read()
			}
			return ok
		}
		return false
	})
}

// envelope reads {"jsonrpc":"2.0","id":"...","result":{"artifactUpdate":...}}.
func (p *jparser) envelope() (*a2a.TaskArtifactUpdateEvent, bool) {
	var ev *a2a.TaskArtifactUpdateEvent
	var version, id string
	ok := p.fields(
		jfield{key: "jsonrpc", str: &version},
		jfield{key: "id", str: &id},
		jfield{key: "result", read: func() (ok bool) { ev, ok = p.streamResponse(); return ok }},
	)
	return ev, ok && ev != nil
}

// streamResponse reads {"artifactUpdate":{...}}.
func (p *jparser) streamResponse() (*a2a.TaskArtifactUpdateEvent, bool) {
	var ev *a2a.TaskArtifactUpdateEvent
	ok := p.fields(jfield{key: "artifactUpdate", read: func() (ok bool) { ev, ok = p.artifactUpdate(); return ok }})
	return ev, ok && ev != nil
}

func (p *jparser) artifactUpdate() (*a2a.TaskArtifactUpdateEvent, bool) {
	ev := &a2a.TaskArtifactUpdateEvent{}
	ok := p.fields(
		jfield{key: "taskId", str: (*string)(&ev.TaskID)},
		jfield{key: "contextId", str: &ev.ContextID},
		jfield{key: "append", flag: &ev.Append},
		jfield{key: "lastChunk", flag: &ev.LastChunk},
		jfield{key: "artifact", read: func() (ok bool) { ev.Artifact, ok = p.artifact(); return ok }},
	)
	return ev, ok && ev.Artifact != nil
}

func (p *jparser) artifact() (*a2a.Artifact, bool) {
	a := &a2a.Artifact{}
	ok := p.fields(
		jfield{key: "artifactId", str: (*string)(&a.ID)},
		jfield{key: "name", str: &a.Name},
		jfield{key: "parts", read: func() (ok bool) { a.Parts, ok = p.textParts(); return ok }},
	)
	return a, ok && a.Parts != nil
}

// textParts reads a non-empty array of {"text":"..."}.
func (p *jparser) textParts() (a2a.ContentParts, bool) {
	if !p.lit('[') {
		return nil, false
	}
	var parts a2a.ContentParts
	for {
		var text string
		var has bool
		ok := p.object(func(k string) bool {
			if k != "text" {
				return false
			}
			var ok bool
			text, ok = p.str()
			has = ok
			return ok
		})
		if !ok || !has {
			return nil, false
		}
		parts = append(parts, &a2a.Part{Content: a2a.Text(text)})
		if p.lit(',') {
			continue
		}
		return parts, p.lit(']')
	}
}
