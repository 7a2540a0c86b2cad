//go:build !unix

package coder

// sizer is what followResize resizes: the chat's line editor.
type sizer interface{ SetSize(width, height int) error }

// followResize does nothing where terminals report no resize signal: the chat keeps its starting width.
func followResize(int, sizer) (stop func()) { return func() {} }
