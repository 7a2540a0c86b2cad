//go:build !linux

package coder

// discardTypeahead is a no-op where terminal input flushing is not wired up: type-ahead there may still
// answer a question.
func discardTypeahead(int) {}
