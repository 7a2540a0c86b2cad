package hotpath

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"time"
)

// TLS on the splitter's connections (Splitter.TLS): the handshake comes first, then ALPN routes the connection
// ("h2" to gRPC, anything else to the HTTP server); serve/tlsconf.go says why.

// handshake runs the TLS handshake of an accepted connection; ok is false when it failed and c is closed.
// h2 reports that the client agreed on HTTP/2 (gRPC). A failure is told to refused (nil => not told), but for a
// connection closed before it said anything (a TCP probe, a port scan).
func handshake(raw net.Conn, conf *tls.Config, refused func(client, reason string)) (c *tls.Conn, h2, ok bool) {
	c = tls.Server(raw, conf)
	ctx, cancel := context.WithTimeout(context.Background(), sniffTimeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		reason := "TLS handshake: " + err.Error()
		var re tls.RecordHeaderError
		if errors.As(err, &re) && re.Conn != nil && looksLikeHTTP(re.RecordHeader[:]) {
			// What net/http answers in this case, so that clients (ours included) recognise it.
			_ = re.Conn.SetWriteDeadline(time.Now().Add(time.Second)) // best effort: the answer is a courtesy
			_, _ = io.WriteString(re.Conn, "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n")
			reason = "plain HTTP sent to the TLS port"
		}
		if refused != nil && !errors.Is(err, io.EOF) {
			refused(raw.RemoteAddr().String(), reason)
		}
		raw.Close()
		return nil, false, false
	}
	return c, c.ConnectionState().NegotiatedProtocol == "h2", true
}

// looksLikeHTTP reports whether the first bytes of a connection are a plain HTTP/1 request line.
func looksLikeHTTP(hdr []byte) bool {
	switch string(hdr) {
	case "GET /", "HEAD ", "POST ", "PUT /", "OPTIO", "DELET", "PATCH":
		return true
	}
	return false
}
