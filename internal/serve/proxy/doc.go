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
// The server (package serve) owns the route table and the traffic log; the proxy reads them
// through the Routes and Log interfaces and serve's Proxy backend hands them over. It must not
// import serve or its other subpackages but tasks (the log's task states), cobra or the CLI.
package proxy
