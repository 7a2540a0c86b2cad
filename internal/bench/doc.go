// Package bench owns load generation for `a2a bench`: the closed loop (workers, each sending its next request when
// the last one answered), the open loop (requests at a fixed rate, each timed from its intended start, so a stalled
// agent shows in the tail: coordinated omission corrected as wrk2 does), the warm-up, the HDR histograms, the noise
// of a run (batch means over time windows), the report and its comparison with a previous one. It knows nothing of
// A2A: a request is an Op the caller supplies, errors are classified by the caller.
//
// It imports the HdrHistogram module and the standard library only; internal/cli imports it, nothing else does.
package bench
