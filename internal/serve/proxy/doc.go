// Package proxy forwards A2A calls to an upstream agent, for `a2a serve --proxy`. Two paths share
// one upstream connection and one header policy (headers.go): the byte path (bytePath, in front of
// the server's HTTP handler) forwards a call whose binding and protocol version the upstream also
// serves byte for byte over leanTransport (leanhttp.go), reading only what the traffic log needs
// (scan.go, tee.go); every other call reaches the decoding path, the Proxy's a2asrv.RequestHandler,
// which re-sends it with the upstream a2aclient.Client. TestHeaderPolicyBothPaths sends the same
// requests through both paths and compares what the upstream got. Both reach the upstream as the
// client does: the decoding path's client comes from Config.Connect, the byte path's transport from
// Config.Transport (client.Upstream: the client's TLS and credential rule).
//
// New is the backend of `a2a serve --proxy` (backend.go), plugged into serve's exported Backend API
// like any other. The server (package serve) owns the route table and the traffic log and hands them
// over in serve.Env; the proxy reads them through its Routes and Log interfaces, which backend.go
// implements over them (and tests implement over fakes). It must not import serve's other
// subpackages but tasks (the log's task states) and traffic, cobra or the CLI.
package proxy
