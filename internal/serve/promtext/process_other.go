//go:build !linux

package promtext

func processFamilies() []family { return nil }
