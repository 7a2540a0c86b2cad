// Package testagent owns reference A2A agents for tests of the CLI: small servers
// built directly from the a2a-go library (a2asrv, a2agrpc, a2acompat/a2av0) and
// started in-process on 127.0.0.1:0.
//
// Start serves one transport (JSON-RPC, HTTP+JSON or gRPC), speaking protocol 1.0
// or, with Options.V03, only protocol 0.3, and runs one scripted Behavior. The
// agent records the headers of every A2A request so tests can assert what the
// CLI sent. StartRaw serves fixed bytes for card-resolution failure cases.
//
// The package is imported only from tests. It must not import any other package
// of this repository, and it never sleeps to wait for readiness: an agent is
// ready when Start returns, and it stops in t.Cleanup.
//
// Library quirks a test author should know:
//   - a2agrpc dials the interface URL with grpc.NewClient, so a gRPC card lists
//     "127.0.0.1:PORT" (no scheme). The card itself is then served over HTTP on a
//     separate listener, and Agent.URL is that HTTP base.
//   - A v0.3 card without "preferredTransport" parses with a2av0.NewAgentCardParser
//     into a card with ZERO supported interfaces; a2aclient.NewFromCard then fails
//     with "agent card has no supported interfaces".
//   - The a2a-go JSON-RPC clients (v1 and v0.3) turn an HTTP 401 into a plain
//     error "unexpected HTTP status: 401 Unauthorized" (not a2a.ErrUnauthenticated).
//     REST clients map the google.rpc.Status body to a2a.ErrUnauthenticated, and
//     gRPC clients map codes.Unauthenticated to a2a.ErrUnauthenticated.
//   - SSE lines are limited to 10 MB by the client and gRPC messages to 4 MB by
//     default on receive, so Big streams its 20 MiB in 2.5 MiB chunks; a non-streaming
//     gRPC call for Big needs grpc.MaxCallRecvMsgSize on the client.
//   - v0.3 JSON-RPC has no ListTasks: the client returns a2a.ErrUnsupportedOperation.
//   - DieMidStream over gRPC closes the whole client connection (all calls on it
//     fail); the client sees "error reading from server: EOF". Over HTTP only the
//     stream's connection is hijacked and closed ("SSE stream error: unexpected EOF").
package testagent
