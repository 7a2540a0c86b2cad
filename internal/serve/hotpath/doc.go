// Package hotpath serves the hot v1.0 calls (SendMessage, SendStreamingMessage, SubscribeToTask) of
// any a2asrv.RequestHandler over REST and JSON-RPC, writing the bytes a2asrv's own handlers write
// but faster: a wire encoder instead of json.Marshal (wire*.go), an SSE writer with pooled buffers,
// streams detached from net/http onto a goroutine of their own (Detacher), a flush gate that shares
// one write among waiting events (FlushGate), and the listener Splitter that puts gRPC and HTTP on
// one port (over TLS too: the handshake first, then ALPN routes, tls.go). Everything it does not take goes to a2asrv's handler, and the differential tests here
// compare both answers byte for byte.
//
// It owns no A2A semantics: which handler answers, how a refused stream is answered (Refusal) and
// what the server logs belong to the caller (package serve). It must not import serve or any of its
// other subpackages, cobra or the CLI; it imports a2a-go, the standard library and fdwatch only.
package hotpath
