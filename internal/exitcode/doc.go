// Package exitcode owns what an error means to the user of the CLI: its exit code, the error code of the JSON error
// document, the hint, and the task it concerns (docs/CONTRACT.md, "Errors and exit codes"). Classify is the only place
// that decides exit codes.
//
// It must not import cli or any serve package: it reads the typed errors of client and follow.
package exitcode
