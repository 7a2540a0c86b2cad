// Package traffic is the traffic log of `a2a serve`: one record per call (Call), its line in text
// or JSON (calllog.go; payloads and request parameters when verbose, credentials redacted, every
// line sanitised), the lines of requests refused before any call took them (Front, GRPCCall,
// TLSRefused), the Prometheus metrics behind GET /metrics (metrics.go) and the observers of calls
// (Observer, the inspector's hook). Log.Handler records the calls of any a2asrv request handler;
// a path no handler sees (the proxy's byte path) records its calls itself with Record and Finish.
//
// Package serve builds the Log from its Config, mounts Front, Handler and Metrics, and hands it to
// its backends (serve.Env.Log: the proxy's byte path records with it); the routes are serve's, so
// what it knows of a request reaches the log as plain values (WithFront, the JSON-RPC test given to
// Front). It must not import serve or any of its other subpackages but tasks (task state names) and
// promtext (the metrics' text format), cobra or the CLI.
package traffic
