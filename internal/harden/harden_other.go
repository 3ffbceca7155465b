//go:build !linux

package harden

// NotDumpable does nothing where Linux's prctl is not: the docs say so.
func NotDumpable() error { return nil }
