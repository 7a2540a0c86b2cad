//go:build !unix

package coder

// sizer is what FollowResize resizes: the chat's line editor.
type sizer interface{ SetSize(width, height int) error }

// FollowResize does nothing where terminals report no resize signal: the chat keeps its starting width.
func FollowResize(int, sizer) (stop func()) { return func() {} }
