package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/a2acli/a2a/internal/redact"
)

// --debug is the raw wire (the a2a-cli specification, §7.2): besides what -v shows (each request and response with
// its headers, timings, the card and interface chosen and why, retries), every body whole up to maxDebugPayload (not
// the first 16 KiB), each line of an event stream as it arrives, and each gRPC message sent and received. Credentials
// are masked as under -v (headers by name, JSON members by name), and the bytes are escaped, not dropped: a control
// character, an escape sequence's ESC, a line break inside a body or a byte that is not UTF-8 shows as \x1b, \n, \xff.

// maxDebugPayload bounds one logged body, event line or message under --debug.
const maxDebugPayload = 1 << 20

// debugging reports whether the log is the raw wire (--debug).
func (l *Log) debugging() bool { return l != nil && l.Enabled && l.Debug }

// logLimit is how much of one payload the log shows.
func (l *Log) logLimit() int {
	if l.debugging() {
		return maxDebugPayload
	}
	return maxLoggedPayload
}

// wireText shows b with every byte visible: printable text as it is, anything else escaped.
func wireText(b []byte) string {
	var out strings.Builder
	out.Grow(len(b))
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&out, `\x%02x`, b[i])
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\r':
			out.WriteString(`\r`)
		case r == '\t':
			out.WriteString(`\t`)
		case r == '\\':
			out.WriteString(`\\`)
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			fmt.Fprintf(&out, `\x%02x`, r)
		case r != ' ' && !unicode.IsGraphic(r):
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.Write(b[i : i+size])
		}
		i += size
	}
	return out.String()
}

// logPayload is one body for the log: credentials masked, cut at the log's limit, escaped under --debug.
func (l *Log) logPayload(b []byte, cut bool) string {
	if len(b) == 0 {
		return ""
	}
	masked := redact.JSON(b)
	s := string(masked)
	if l.debugging() {
		s = wireText(masked)
	}
	if cut {
		s += " …(truncated)"
	}
	return "  " + s + "\n"
}

// sseLog logs each line of an event stream as it is read (--debug): data lines with their JSON's credentials masked.
type sseLog struct {
	io.ReadCloser
	log  *Log
	line bytes.Buffer
	long bool // the line being read passed maxDebugPayload: the rest of it is dropped
}

func (s *sseLog) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		chunk := data
		if i >= 0 {
			chunk = data[:i]
		}
		if room := maxDebugPayload - s.line.Len(); len(chunk) > room {
			s.line.Write(chunk[:room])
			s.long = true
		} else {
			s.line.Write(chunk)
		}
		if i < 0 {
			break
		}
		s.flush()
		data = data[i+1:]
	}
	if err != nil && s.line.Len() > 0 {
		s.flush()
	}
	return n, err
}

func (s *sseLog) flush() {
	line := bytes.TrimSuffix(s.line.Bytes(), []byte("\r"))
	if field, value, ok := bytes.Cut(line, []byte(":")); ok && string(field) == "data" {
		line = append([]byte("data: "), redact.JSON(bytes.TrimPrefix(value, []byte(" ")))...)
	}
	if len(line) > 0 {
		msg := wireText(line)
		if s.long {
			msg += " …(truncated)"
		}
		s.log.Printf("< sse %s", msg)
	}
	s.line.Reset()
	s.long = false
}

// grpcDebug logs each gRPC message sent and received under --debug, as protobuf JSON with credentials masked.
func (l *Log) grpcDebug() (grpc.UnaryClientInterceptor, grpc.StreamClientInterceptor) {
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if !l.debugging() {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		l.Printf("grpc > %s %s", method, l.message(req))
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err != nil {
			l.Printf("grpc < %s: %s", method, wireText([]byte(err.Error())))
			return err
		}
		l.Printf("grpc < %s %s", method, l.message(reply))
		return nil
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil || !l.debugging() {
			return s, err
		}
		return &grpcLoggedStream{ClientStream: s, log: l, method: method}, nil
	}
	return unary, stream
}

type grpcLoggedStream struct {
	grpc.ClientStream
	log    *Log
	method string
}

func (s *grpcLoggedStream) SendMsg(m any) error {
	s.log.Printf("grpc > %s %s", s.method, s.log.message(m))
	return s.ClientStream.SendMsg(m)
}

func (s *grpcLoggedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	switch {
	case err == io.EOF:
		s.log.Printf("grpc < %s: end of stream", s.method)
	case err != nil:
		s.log.Printf("grpc < %s: %s", s.method, wireText([]byte(err.Error())))
	default:
		s.log.Printf("grpc < %s %s", s.method, s.log.message(m))
	}
	return err
}

// message is a gRPC message for the log: protobuf JSON, credentials masked, bounded, escaped.
func (l *Log) message(m any) string {
	pm, ok := m.(proto.Message)
	if !ok {
		return fmt.Sprintf("(%T)", m)
	}
	b, err := protojson.MarshalOptions{}.Marshal(pm)
	if err != nil {
		return fmt.Sprintf("(%T: %v)", m, err)
	}
	cut := len(b) > maxDebugPayload
	if cut {
		b = b[:maxDebugPayload]
	}
	return strings.TrimSpace(l.logPayload(b, cut))
}
